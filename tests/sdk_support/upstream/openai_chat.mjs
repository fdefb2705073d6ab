// OpenAI Chat Completions for the scripted upstream (mock_upstream.mjs):
//   POST /v1/chat/completions  (JSON, or SSE chunks)
// Chunks carry tool_calls deltas by index (first with id/type/name and ""
// arguments, then argument fragments), `usage: null` on every chunk and a
// final `choices: []` usage chunk when `stream_options.include_usage` is set,
// then `data: [DONE]` (tests/data/wire/openai-chat-*).
import { argsText, finishOf, fragments, usageOf } from './fragments.mjs';

export const PATH = '/v1/chat/completions';

const ERROR_TYPE = {
  400: 'invalid_request_error', 401: 'invalid_request_error', 403: 'permission_error',
  404: 'invalid_request_error', 429: 'rate_limit_error', 500: 'server_error', 503: 'server_error',
};

// `usage.input` counts as Anthropic does, without the cache tokens; prompt_tokens include them.
function usage(u) {
  const prompt = u.input + (u.cacheRead ?? 0) + (u.cacheWrite ?? 0);
  return {
    prompt_tokens: prompt, completion_tokens: u.output, total_tokens: prompt + u.output,
    prompt_tokens_details: { cached_tokens: u.cacheRead ?? 0, audio_tokens: 0 },
    completion_tokens_details: {
      reasoning_tokens: 0, audio_tokens: 0, accepted_prediction_tokens: 0,
      rejected_prediction_tokens: 0,
    },
  };
}

export function openaiResponse(turn, { model, serial }) {
  const calls = (turn.toolCalls ?? []).map((c) => ({
    id: c.id, type: 'function', function: { name: c.name, arguments: argsText(c) },
  }));
  const message = { role: 'assistant', content: turn.text ?? null, refusal: null, annotations: [] };
  if (calls.length) message.tool_calls = calls;
  return {
    id: `chatcmpl-mock${serial}`, object: 'chat.completion', created: 1700000000 + serial, model,
    choices: [{ index: 0, message, logprobs: null, finish_reason: finishOf(turn) }],
    usage: usage(usageOf(turn)), service_tier: 'default', system_fingerprint: 'fp_mock0001',
  };
}

// The SSE events, one string each; `body` is the request (include_usage).
export function openaiStream(turn, { model, serial, body }) {
  const includeUsage = body?.stream_options?.include_usage === true;
  const id = `chatcmpl-mock${serial}`;
  const created = 1700000000 + serial;
  const envelope = (choices) => ({
    id, object: 'chat.completion.chunk', created, model, service_tier: 'default',
    system_fingerprint: 'fp_mock0001', choices,
  });
  const chunk = (delta, finish = null) => {
    const c = envelope([{ index: 0, delta, logprobs: null, finish_reason: finish }]);
    if (includeUsage) c.usage = null;
    return c;
  };
  const out = [];
  const calls = turn.toolCalls ?? [];
  if (turn.text !== undefined) {
    out.push(chunk({ role: 'assistant', content: '', refusal: null }));
    for (const piece of fragments(turn.text)) out.push(chunk({ content: piece }));
  }
  const sse = (chunks) => chunks.map((c) => `data: ${JSON.stringify(c)}\n\n`);
  if (turn.streamError) {
    return sse(out).concat([`data: ${JSON.stringify({ error: {
      message: turn.streamError, type: 'server_error', param: null, code: null } })}\n\n`]);
  }
  calls.forEach((c, index) => {
    const start = { index, id: c.id, type: 'function', function: { name: c.name, arguments: '' } };
    // A turn that opens with a call says role and content: null in the same delta.
    out.push(chunk(out.length === 0
      ? { role: 'assistant', content: null, tool_calls: [start], refusal: null }
      : { tool_calls: [start] }));
    for (const piece of fragments(argsText(c))) {
      out.push(chunk({ tool_calls: [{ index, function: { arguments: piece } }] }));
    }
  });
  if (out.length === 0) out.push(chunk({ role: 'assistant', content: '', refusal: null }));
  out.push(chunk({}, finishOf(turn)));
  if (includeUsage) out.push({ ...envelope([]), usage: usage(usageOf(turn)) });
  return sse(out).concat(['data: [DONE]\n\n']);
}

export function openaiError(status, message, type) {
  return {
    body: { error: { message, type: type ?? ERROR_TYPE[status] ?? 'server_error', param: null,
      code: null } },
  };
}
