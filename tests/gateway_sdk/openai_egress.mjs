// The official `openai` client's Chat Completions through `toolwire serve`
// to upstreams of the new dialects (egress): a Gemini upstream (key in
// x-goog-api-key) and the mock Bedrock (every request's SigV4 signature
// checked).
import assert from 'node:assert/strict';
import { upstreamBody } from './dialect_bodies.mjs';
import { clientSuite } from './scenarios.mjs';

const MODEL = 'gpt-4o-mini';

async function ask(gw, c, stream) {
  // The client side of the conversation is exactly OpenAI's body.
  const body = upstreamBody('openai', MODEL, c, false);
  let r;
  if (!stream) {
    r = await gw.openai.chat.completions.create(body);
  } else {
    const s = gw.openai.chat.completions.stream(body);
    let chunks = 0;
    s.on('chunk', () => chunks++);
    r = await s.finalChatCompletion();
    assert.ok(chunks > 1, 'a stream of several chunks');
  }
  const m = r.choices[0].message;
  return {
    text: m.content ?? '',
    calls: (m.tool_calls ?? []).map((t) =>
      ({ id: t.id, name: t.function.name, arguments: t.function.arguments })),
    finish: r.choices[0].finish_reason,
    usage: { input: r.usage?.prompt_tokens, output: r.usage?.completion_tokens,
      total: r.usage?.total_tokens },
  };
}

export function openaiEgressSuite(upstream) {
  clientSuite({ dialect: 'openai', client: 'openai (Chat)', upstream, model: MODEL, ask,
    failure: (e) => ({ status: e.status, type: e.type }),
    finish: (calls) => (calls ? 'tool_calls' : 'stop') });
}
