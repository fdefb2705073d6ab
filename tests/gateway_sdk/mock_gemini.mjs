// The Gemini API's generateContent for the scripted upstream (mock_upstream.mjs):
//   POST /v1beta/models/{model}:generateContent           (JSON; also under /v1/)
//   POST /v1beta/models/{model}:streamGenerateContent?alt=sse  (SSE, `data:` lines)
// Calls carry their scripted id in functionCall.id (the API's optional field);
// a scripted call with `id: undefined` goes without, as most answers do.
import { pieces } from './mock_util.mjs';

export function matchGemini(url) {
  const m = /^\/(?:v1beta|v1)\/models\/([^/:]+):(generateContent|streamGenerateContent)(\?.*)?$/
    .exec(url);
  if (!m) return null;
  const stream = m[2] === 'streamGenerateContent';
  return { model: decodeURIComponent(m[1]), stream, sse: /[?&]alt=sse(&|$)/.test(m[3] ?? '') };
}

function usageMetadata(turn) {
  return {
    promptTokenCount: turn.usage.input, candidatesTokenCount: turn.usage.output,
    totalTokenCount: turn.usage.input + turn.usage.output,
  };
}

function callPart(c) {
  const functionCall = { name: c.name, args: JSON.parse(c.arguments) };
  if (c.id !== undefined) functionCall.id = c.id;
  return { functionCall };
}

// The API says STOP for a turn with function calls too.
const FINISH = 'STOP';

export function geminiResponse(turn, model, n) {
  const parts = [];
  if (turn.text !== undefined) parts.push({ text: turn.text });
  for (const c of turn.toolCalls ?? []) parts.push(callPart(c));
  return {
    candidates: [{ content: { role: 'model', parts }, finishReason: FINISH, index: 0 }],
    usageMetadata: usageMetadata(turn), modelVersion: model, responseId: `gemini-mock${n}`,
  };
}

export function geminiStream(turn, model, n) {
  const chunk = (parts, last) => {
    const candidate = { content: { role: 'model', parts }, index: 0 };
    if (last) candidate.finishReason = FINISH;
    const c = { candidates: [candidate], modelVersion: model, responseId: `gemini-mock${n}` };
    if (last) c.usageMetadata = usageMetadata(turn);
    return `data: ${JSON.stringify(c)}\r\n\r\n`;
  };
  const texts = pieces(turn.text ?? '', 3);
  const calls = turn.toolCalls ?? [];
  let out = '';
  // Text in pieces, then every call whole in the last chunk (as the API sends them).
  texts.forEach((t, i) => {
    out += chunk([{ text: t }], !turn.streamError && calls.length === 0 && i === texts.length - 1);
  });
  if (turn.streamError)
    return `${out}data: ${JSON.stringify(geminiError(500, turn.streamError))}\r\n\r\n`;
  if (calls.length > 0 || texts.length === 0) out += chunk(calls.map(callPart), true);
  return out;
}

export function geminiError(status, message) {
  const codes = { 400: 'INVALID_ARGUMENT', 404: 'NOT_FOUND', 500: 'INTERNAL' };
  return { error: { code: status, message, status: codes[status] ?? 'UNKNOWN' } };
}
