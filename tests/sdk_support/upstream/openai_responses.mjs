// OpenAI's Responses API for the scripted upstream (mock_upstream.mjs):
//   POST /v1/responses  (JSON, or SSE events `response.*` with sequence numbers)
// Shapes as in tests/data/wire/ (openai-responses-*).
import { argsText, fragments, usageOf } from './fragments.mjs';

export const PATH = '/v1/responses';

const CREATED = 1700000000;

function usage(turn) {
  const u = usageOf(turn);
  return {
    input_tokens: u.input, input_tokens_details: { cached_tokens: 0 },
    output_tokens: u.output, output_tokens_details: { reasoning_tokens: 0 },
    total_tokens: u.input + u.output,
  };
}

function items(turn, n) {
  const out = [];
  if (turn.text !== undefined)
    out.push({ id: `msg_mock${n}`, type: 'message', status: 'completed', role: 'assistant',
      content: [{ type: 'output_text', text: turn.text, annotations: [] }] });
  (turn.toolCalls ?? []).forEach((c, i) => out.push({
    id: `fc_mock${n}_${i}`, type: 'function_call', status: 'completed', call_id: c.id,
    name: c.name, arguments: argsText(c),
  }));
  return out;
}

function envelope(model, n, status, output, u) {
  return {
    id: `resp_mock${n}`, object: 'response', created_at: CREATED, status, error: null,
    incomplete_details: null, model, output, parallel_tool_calls: true, tool_choice: 'auto',
    tools: [], usage: u,
  };
}

export function responsesResponse(turn, { model, serial: n }) {
  return envelope(model, n, 'completed', items(turn, n), usage(turn));
}

// The SSE events, one string each.
export function responsesStream(turn, { model, serial: n }) {
  const out = [];
  const ev = (type, data) => out.push(
    `event: ${type}\ndata: ${JSON.stringify({ type, sequence_number: out.length, ...data })}\n\n`);
  ev('response.created', { response: envelope(model, n, 'in_progress', [], null) });
  ev('response.in_progress', { response: envelope(model, n, 'in_progress', [], null) });
  const done = items(turn, n);
  if (turn.streamError) {
    ev('response.output_item.added', { output_index: 0, item: { ...done[0],
      status: 'in_progress', content: [] } });
    for (const p of fragments(turn.text))
      ev('response.output_text.delta',
        { item_id: done[0].id, output_index: 0, content_index: 0, delta: p, logprobs: [] });
    ev('error', { code: 'server_error', message: turn.streamError, param: null });
    return out;
  }
  done.forEach((item, output_index) => {
    if (item.type === 'message') {
      const text = item.content[0].text;
      ev('response.output_item.added',
        { output_index, item: { ...item, status: 'in_progress', content: [] } });
      const part = { type: 'output_text', text: '', annotations: [] };
      ev('response.content_part.added', { item_id: item.id, output_index, content_index: 0, part });
      for (const p of fragments(text))
        ev('response.output_text.delta',
          { item_id: item.id, output_index, content_index: 0, delta: p, logprobs: [] });
      ev('response.output_text.done',
        { item_id: item.id, output_index, content_index: 0, text, logprobs: [] });
      ev('response.content_part.done',
        { item_id: item.id, output_index, content_index: 0, part: { ...part, text } });
    } else {
      ev('response.output_item.added',
        { output_index, item: { ...item, status: 'in_progress', arguments: '' } });
      for (const p of fragments(item.arguments))
        ev('response.function_call_arguments.delta', { item_id: item.id, output_index, delta: p });
      ev('response.function_call_arguments.done',
        { item_id: item.id, output_index, arguments: item.arguments });
    }
    ev('response.output_item.done', { output_index, item });
  });
  ev('response.completed', { response: envelope(model, n, 'completed', done, usage(turn)) });
  return out;
}

export function responsesError(status, message) {
  return { body: { error: { message, type: status >= 500 ? 'server_error' : 'invalid_request_error',
    param: null, code: null } } };
}
