// Google's `@google/genai` client (models.generateContent /
// generateContentStream) with its base URL pointed at `toolwire serve`,
// routed to a scripted upstream. It sends the key in x-goog-api-key and its
// schemas with upper-case types ("OBJECT", "STRING"); the non-stream calls
// use the SDK's default API version (v1), the stream calls v1beta.
import assert from 'node:assert/strict';
import { geminiContents, geminiSchema } from './dialect_bodies.mjs';
import { TIME_DESC, TIME_SCHEMA, WEATHER_DESC, WEATHER_SCHEMA } from './common.mjs';
import { clientSuite } from './scenarios.mjs';

const MODEL = 'gemini-2.5-flash';
const DECLARATIONS = {
  get_weather: { name: 'get_weather', description: WEATHER_DESC,
    parameters: geminiSchema(WEATHER_SCHEMA) },
  get_time: { name: 'get_time', description: TIME_DESC, parameters: geminiSchema(TIME_SCHEMA) },
};

function request(c) {
  return {
    model: MODEL,
    // The client's own history carries no thought signatures.
    contents: geminiContents(c, { placeholder: false }),
    config: { systemInstruction: c.system,
      tools: [{ functionDeclarations: c.tools.map((n) => DECLARATIONS[n]) }] },
  };
}

const callsOf = (fcs) => (fcs ?? []).map((f) =>
  ({ id: f.id, name: f.name, arguments: JSON.stringify(f.args) }));

function usageOf(u) {
  return { input: u?.promptTokenCount, output: u?.candidatesTokenCount,
    total: u?.totalTokenCount };
}

async function ask(gw, c, stream) {
  if (!stream) {
    const r = await gw.gemini().models.generateContent(request(c));
    const parts = r.candidates[0].content.parts;
    return {
      text: parts.filter((p) => p.text !== undefined).map((p) => p.text).join(''),
      calls: callsOf(r.functionCalls), finish: r.candidates[0].finishReason,
      usage: usageOf(r.usageMetadata),
    };
  }
  let text = '';
  const calls = [];
  let finish;
  let usage;
  let chunks = 0;
  for await (const chunk of await gw.gemini('v1beta').models.generateContentStream(request(c))) {
    chunks++;
    const cand = chunk.candidates?.[0];
    for (const p of cand?.content?.parts ?? []) if (p.text !== undefined) text += p.text;
    calls.push(...callsOf(chunk.functionCalls));
    if (cand?.finishReason) finish = cand.finishReason;
    if (chunk.usageMetadata) usage = usageOf(chunk.usageMetadata);
  }
  assert.ok(chunks >= 1, 'a stream of chunks');
  return { text, calls, finish, usage };
}

export function geminiClientSuite(upstream) {
  clientSuite({ dialect: 'gemini', client: '@google/genai', upstream, model: MODEL, ask,
    failure: (e) => ({ status: e.status, type: JSON.parse(e.message).error?.status }),
    finish: () => 'STOP' });
}
