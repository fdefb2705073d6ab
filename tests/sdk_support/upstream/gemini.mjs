// The Gemini API's generateContent for the scripted upstream (mock_upstream.mjs):
//   POST /v1beta/models/{model}:generateContent           (JSON; also under /v1/)
//   POST /v1beta/models/{model}:streamGenerateContent?alt=sse  (SSE, `data:` lines)
// Calls carry their scripted id in functionCall.id (the API's optional field);
// a scripted call with `id: undefined` goes without, as most answers do.
import { argsText, finishOf, fragments, usageOf } from './fragments.mjs';

export function matchGemini(url) {
  const m = /^\/(?:v1beta|v1)\/models\/([^/:]+):(generateContent|streamGenerateContent)(\?.*)?$/
    .exec(url);
  if (!m) return null;
  const stream = m[2] === 'streamGenerateContent';
  return { model: decodeURIComponent(m[1]), stream, sse: /[?&]alt=sse(&|$)/.test(m[3] ?? '') };
}

function usageMetadata(turn) {
  const u = usageOf(turn);
  return {
    promptTokenCount: u.input, candidatesTokenCount: u.output, totalTokenCount: u.input + u.output,
  };
}

function callPart(c) {
  const functionCall = { name: c.name, args: JSON.parse(argsText(c)) };
  if (c.id !== undefined) functionCall.id = c.id;
  return { functionCall };
}

// The API says STOP for a turn with function calls too.
const finish = (turn) => (finishOf(turn) === 'length' ? 'MAX_TOKENS' : 'STOP');

export function geminiResponse(turn, { model, serial: n }) {
  const parts = [];
  if (turn.text !== undefined) parts.push({ text: turn.text });
  for (const c of turn.toolCalls ?? []) parts.push(callPart(c));
  return {
    candidates: [{ content: { role: 'model', parts }, finishReason: finish(turn), index: 0 }],
    usageMetadata: usageMetadata(turn), modelVersion: model, responseId: `gemini-mock${n}`,
  };
}

// The SSE events, one string each.
export function geminiStream(turn, { model, serial: n }) {
  const chunk = (parts, last) => {
    const candidate = { content: { role: 'model', parts }, index: 0 };
    if (last) candidate.finishReason = finish(turn);
    const c = { candidates: [candidate], modelVersion: model, responseId: `gemini-mock${n}` };
    if (last) c.usageMetadata = usageMetadata(turn);
    return `data: ${JSON.stringify(c)}\r\n\r\n`;
  };
  const texts = fragments(turn.text ?? '');
  const calls = turn.toolCalls ?? [];
  // Text in pieces, then every call whole in the last chunk (as the API sends them).
  const out = texts.map((t, i) =>
    chunk([{ text: t }], !turn.streamError && calls.length === 0 && i === texts.length - 1));
  if (turn.streamError) {
    out.push(`data: ${JSON.stringify(geminiError(500, turn.streamError).body)}\r\n\r\n`);
    return out;
  }
  if (calls.length > 0 || texts.length === 0) out.push(chunk(calls.map(callPart), true));
  return out;
}

export function geminiError(status, message) {
  const codes = { 400: 'INVALID_ARGUMENT', 404: 'NOT_FOUND', 500: 'INTERNAL' };
  return { body: { error: { code: status, message, status: codes[status] ?? 'UNKNOWN' } } };
}
