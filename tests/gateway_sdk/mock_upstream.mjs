// A scripted upstream model server for the gateway SDK tests: node:http on
// 127.0.0.1, port 0, speaking the real wire formats of
//   POST /v1/chat/completions  (OpenAI Chat Completions, JSON or SSE chunks)
//   POST /v1/messages          (Anthropic Messages, JSON or SSE events)
//   POST /v1/responses         (OpenAI Responses, JSON or SSE events; mock_responses.mjs)
//   POST /v1beta/models/{model}:generateContent | :streamGenerateContent?alt=sse
//                              (Gemini; mock_gemini.mjs)
//   POST /model/{modelId}/converse | /converse-stream
//                              (Bedrock Converse, JSON or binary event stream,
//                               every request's SigV4 signature checked; mock_bedrock.mjs)
// (shapes as in tests/data/wire/). Each test queues canonical turns
//   { text?, toolCalls?: [{ id, name, arguments }], usage: { input, output } }
// (`arguments` is the JSON text of the call's arguments), or failures
// { error: { status, message } }, or a stream that breaks after its text
// { text, streamError: message, usage }; every request pops one turn and
// renders it in the dialect of the path it came to and in the stream mode it
// asked for (the path's for Gemini and Bedrock). Every request
// is recorded (method, path, headers, parsed body, and for Bedrock `sigv4`:
// 'ok' or why not). A request with no turn queued gets a 500 in its dialect,
// so a test that makes more upstream calls than it scripted fails loudly; a
// Bedrock request whose signature does not verify gets a 403.
import http from 'node:http';
import {
  bedrockError, bedrockResponse, bedrockStream, checkSigV4, matchBedrock,
} from './mock_bedrock.mjs';
import { geminiError, geminiResponse, geminiStream, matchGemini } from './mock_gemini.mjs';
import { responsesError, responsesResponse, responsesStream } from './mock_responses.mjs';
import { pieces } from './mock_util.mjs';

const CREATED = 1700000000;

function finishOf(turn, dialect) {
  const calls = (turn.toolCalls ?? []).length > 0;
  if (dialect === 'openai') return calls ? 'tool_calls' : 'stop';
  return calls ? 'tool_use' : 'end_turn';
}

// ---- OpenAI Chat Completions ------------------------------------------------

function openaiResponse(turn, model, n) {
  const message = { role: 'assistant', content: turn.text ?? null, refusal: null };
  if (turn.toolCalls?.length)
    message.tool_calls = turn.toolCalls.map((c) => ({
      id: c.id, type: 'function', function: { name: c.name, arguments: c.arguments },
    }));
  return {
    id: `chatcmpl-mock${n}`, object: 'chat.completion', created: CREATED, model,
    choices: [{ index: 0, message, logprobs: null, finish_reason: finishOf(turn, 'openai') }],
    usage: {
      prompt_tokens: turn.usage.input, completion_tokens: turn.usage.output,
      total_tokens: turn.usage.input + turn.usage.output,
    },
  };
}

function openaiStream(turn, model, n, includeUsage) {
  const chunk = (choices, extra = {}) => {
    const c = { id: `chatcmpl-mock${n}`, object: 'chat.completion.chunk', created: CREATED, model,
      system_fingerprint: 'fp_mock', choices, ...extra };
    // With include_usage every chunk carries "usage": null but the last.
    if (includeUsage && !('usage' in c)) c.usage = null;
    return `data: ${JSON.stringify(c)}\n\n`;
  };
  const delta = (d, finish = null) =>
    chunk([{ index: 0, delta: d, logprobs: null, finish_reason: finish }]);
  let out = delta({ role: 'assistant', content: '', refusal: null });
  for (const p of pieces(turn.text ?? '', 3)) out += delta({ content: p });
  if (turn.streamError)
    return `${out}data: ${JSON.stringify({ error: { message: turn.streamError,
      type: 'server_error', param: null, code: null } })}\n\n`;
  (turn.toolCalls ?? []).forEach((c, index) => {
    const start = { index, id: c.id, type: 'function', function: { name: c.name, arguments: '' } };
    out += delta({ tool_calls: [start] });
    for (const p of pieces(c.arguments, 3))
      out += delta({ tool_calls: [{ index, function: { arguments: p } }] });
  });
  out += delta({}, finishOf(turn, 'openai'));
  if (includeUsage)
    out += chunk([], { usage: {
      prompt_tokens: turn.usage.input, completion_tokens: turn.usage.output,
      total_tokens: turn.usage.input + turn.usage.output,
    } });
  return out + 'data: [DONE]\n\n';
}

// ---- Anthropic Messages ------------------------------------------------------

function anthropicContent(turn) {
  const content = [];
  if (turn.text !== undefined) content.push({ type: 'text', text: turn.text });
  for (const c of turn.toolCalls ?? [])
    content.push({ type: 'tool_use', id: c.id, name: c.name, input: JSON.parse(c.arguments) });
  return content;
}

function anthropicResponse(turn, model, n) {
  return {
    id: `msg_mock${n}`, type: 'message', role: 'assistant', model, content: anthropicContent(turn),
    stop_reason: finishOf(turn, 'anthropic'), stop_sequence: null,
    usage: { input_tokens: turn.usage.input, output_tokens: turn.usage.output },
  };
}

function anthropicStream(turn, model, n) {
  const ev = (type, data) => `event: ${type}\ndata: ${JSON.stringify({ type, ...data })}\n\n`;
  let out = ev('message_start', { message: {
    id: `msg_mock${n}`, type: 'message', role: 'assistant', model, content: [],
    stop_reason: null, stop_sequence: null,
    usage: { input_tokens: turn.usage.input, output_tokens: 1 },
  } });
  let index = 0;
  if (turn.text !== undefined) {
    out += ev('content_block_start', { index, content_block: { type: 'text', text: '' } });
    out += ev('ping', {});
    for (const p of pieces(turn.text, 3))
      out += ev('content_block_delta', { index, delta: { type: 'text_delta', text: p } });
    out += ev('content_block_stop', { index });
    index++;
  }
  for (const c of turn.toolCalls ?? []) {
    const block = { type: 'tool_use', id: c.id, name: c.name, input: {} };
    out += ev('content_block_start', { index, content_block: block });
    // The first fragment is empty, as the API sends it.
    for (const p of ['', ...pieces(JSON.stringify(JSON.parse(c.arguments)), 3)])
      out += ev('content_block_delta',
        { index, delta: { type: 'input_json_delta', partial_json: p } });
    out += ev('content_block_stop', { index });
    index++;
  }
  out += ev('message_delta', {
    delta: { stop_reason: finishOf(turn, 'anthropic'), stop_sequence: null },
    usage: { output_tokens: turn.usage.output },
  });
  return out + ev('message_stop', {});
}

// ---- server ------------------------------------------------------------------

export async function startMockUpstream() {
  const turns = [];
  const requests = [];
  let served = 0;
  const server = http.createServer((req, res) => {
    const chunks = [];
    req.on('data', (c) => chunks.push(c));
    req.on('end', async () => {
      const rawBytes = Buffer.concat(chunks);
      const raw = rawBytes.toString('utf8');
      let body = null;
      try { body = JSON.parse(raw); } catch { body = null; }
      const record = { method: req.method, path: req.url, headers: req.headers, body, raw };
      requests.push(record);
      const gemini = matchGemini(req.url);
      const bedrock = matchBedrock(req.url);
      const dialect = req.url === '/v1/chat/completions' ? 'openai'
        : req.url === '/v1/messages' ? 'anthropic' : req.url === '/v1/responses' ? 'responses'
          : gemini ? 'gemini' : bedrock ? 'bedrock' : null;
      const fail = (status, message) => {
        let headers = {};
        let out;
        if (dialect === 'anthropic') out = { type: 'error', error: { type: 'api_error', message } };
        else if (dialect === 'gemini') out = geminiError(status, message);
        else if (dialect === 'responses') out = responsesError(status, message);
        else if (dialect === 'bedrock') ({ headers, body: out } = bedrockError(status, message));
        else out = { error: { message, type: 'server_error', param: null, code: null } };
        res.writeHead(status, { 'content-type': 'application/json', ...headers });
        res.end(JSON.stringify(out));
      };
      if (req.method !== 'POST' || !dialect)
        return fail(404, `mock upstream: no route ${req.method} ${req.url}`);
      if (bedrock) {
        record.sigv4 = await checkSigV4(req, rawBytes);
        if (record.sigv4 !== 'ok') return fail(403, `mock upstream: SigV4: ${record.sigv4}`);
      }
      if (gemini?.stream && !gemini.sse)
        return fail(400, 'mock upstream: streamGenerateContent without alt=sse');
      if (!body) return fail(400, 'mock upstream: body is not JSON');
      const turn = turns.shift();
      if (!turn) return fail(500, `mock upstream: no scripted turn for request ${requests.length}`);
      // A scripted failure: { error: { status, message } }, in the path's dialect.
      if (turn.error) return fail(turn.error.status, turn.error.message);
      const n = ++served;
      const model = gemini?.model ?? bedrock?.model ?? body.model ?? 'mock-model';
      const stream = gemini?.stream ?? bedrock?.stream ?? body.stream === true;
      if (dialect === 'bedrock') {
        if (stream) {
          res.writeHead(200, { 'content-type': 'application/vnd.amazon.eventstream' });
          return res.end(bedrockStream(turn));
        }
        res.writeHead(200, { 'content-type': 'application/json' });
        return res.end(JSON.stringify(bedrockResponse(turn)));
      }
      if (stream) {
        res.writeHead(200, { 'content-type': 'text/event-stream', 'cache-control': 'no-cache' });
        res.end(dialect === 'openai'
          ? openaiStream(turn, model, n, body.stream_options?.include_usage === true)
          : dialect === 'anthropic' ? anthropicStream(turn, model, n)
            : dialect === 'responses' ? responsesStream(turn, model, n)
              : geminiStream(turn, model, n));
      } else {
        res.writeHead(200, { 'content-type': 'application/json' });
        res.end(JSON.stringify(dialect === 'openai' ? openaiResponse(turn, model, n)
          : dialect === 'anthropic' ? anthropicResponse(turn, model, n)
            : dialect === 'responses' ? responsesResponse(turn, model, n)
              : geminiResponse(turn, model, n)));
      }
    });
  });
  await new Promise((resolve, reject) => {
    server.once('error', reject);
    server.listen(0, '127.0.0.1', resolve);
  });
  const { port } = server.address();
  return {
    port,
    root: `http://127.0.0.1:${port}`,
    requests,
    // Replaces the script and forgets earlier requests (one test's state).
    script(...next) {
      turns.length = 0;
      turns.push(...next);
      requests.length = 0;
    },
    pending: () => turns.length,
    close() {
      server.closeAllConnections();
      return new Promise((resolve) => server.close(() => resolve()));
    },
  };
}
