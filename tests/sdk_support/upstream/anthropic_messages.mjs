// Anthropic Messages for the scripted upstream (mock_upstream.mjs):
//   POST /v1/messages  (JSON, or SSE events)
// Streams are message_start, ping, content_block_start/delta/stop
// (text_delta, input_json_delta starting with ""), message_delta,
// message_stop (tests/data/wire/anthropic-messages-*).
import { argsText, finishOf, fragments, usageOf } from './fragments.mjs';

export const PATH = '/v1/messages';

const STOP = { stop: 'end_turn', tool_calls: 'tool_use', length: 'max_tokens' };
const ERROR_TYPE = {
  400: 'invalid_request_error', 401: 'authentication_error', 403: 'permission_error',
  404: 'not_found_error', 413: 'request_too_large', 429: 'rate_limit_error', 500: 'api_error',
  529: 'overloaded_error',
};
export const HEADERS = { 'request-id': 'req_mock' };

function usage(u) {
  return {
    input_tokens: u.input, cache_creation_input_tokens: u.cacheWrite ?? 0,
    cache_read_input_tokens: u.cacheRead ?? 0,
    output_tokens: u.output, service_tier: 'standard',
  };
}

const messageId = (serial) => `msg_mock${String(serial).padStart(4, '0')}`;

export function anthropicResponse(turn, { model, serial }) {
  const content = [];
  if (turn.text !== undefined) content.push({ type: 'text', text: turn.text });
  for (const c of turn.toolCalls ?? []) {
    content.push({ type: 'tool_use', id: c.id, name: c.name, input: JSON.parse(argsText(c)) });
  }
  return {
    id: messageId(serial), type: 'message', role: 'assistant', model, content,
    stop_reason: STOP[finishOf(turn)], stop_sequence: null, usage: usage(usageOf(turn)),
  };
}

export function anthropicStream(turn, { model, serial }) {
  const u = usageOf(turn);
  const ev = (type, data) => `event: ${type}\ndata: ${JSON.stringify({ type, ...data })}\n\n`;
  const out = [ev('message_start', {
    message: {
      id: messageId(serial), type: 'message', role: 'assistant', model, content: [],
      stop_reason: null, stop_sequence: null, usage: usage({ ...u, output: 1 }),
    },
  })];
  let index = 0;
  if (turn.text !== undefined) {
    out.push(ev('content_block_start', { index, content_block: { type: 'text', text: '' } }));
    out.push(ev('ping', {}));
    for (const piece of fragments(turn.text)) {
      out.push(ev('content_block_delta', { index, delta: { type: 'text_delta', text: piece } }));
    }
    if (turn.streamError) {
      return out.concat([ev('error', { error: { type: 'api_error', message: turn.streamError } })]);
    }
    out.push(ev('content_block_stop', { index }));
    index++;
  }
  for (const c of turn.toolCalls ?? []) {
    out.push(ev('content_block_start', {
      index, content_block: { type: 'tool_use', id: c.id, name: c.name, input: {} },
    }));
    // The API's first fragment is empty (tests/data/wire/anthropic-messages-stream-tool-use.sse).
    for (const piece of ['', ...fragments(JSON.stringify(JSON.parse(argsText(c))))]) {
      out.push(ev('content_block_delta', {
        index, delta: { type: 'input_json_delta', partial_json: piece },
      }));
    }
    out.push(ev('content_block_stop', { index }));
    index++;
  }
  if (index === 0) out.splice(1, 0, ev('ping', {}));
  out.push(ev('message_delta', {
    delta: { stop_reason: STOP[finishOf(turn)], stop_sequence: null },
    usage: { output_tokens: u.output },
  }));
  out.push(ev('message_stop', {}));
  return out;
}

export function anthropicError(status, message, type) {
  return {
    body: { type: 'error', error: { type: type ?? ERROR_TYPE[status] ?? 'api_error', message },
      request_id: 'req_mock0001' },
  };
}
