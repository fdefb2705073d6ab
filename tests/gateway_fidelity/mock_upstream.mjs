// A scripted upstream for the gateway's SDK tests: one node:http server on
// 127.0.0.1 (port 0) that answers BOTH dialects the way the real APIs do —
// OpenAI Chat Completions at POST /v1/chat/completions, Anthropic Messages at
// POST /v1/messages — whole (JSON) or streamed (SSE), as the request asks.
//
// Each test queues what the model says next as canonical turns
//   { text?, toolCalls?: [{ id, name, arguments }], finish?, usage? }
// (`arguments` is JSON text or an object; `finish` is 'stop' | 'tool_calls' |
// 'length', by default 'tool_calls' when there are calls, else 'stop'; `usage`
// is { input, output, cacheRead?, cacheWrite? } with `input` as Anthropic
// counts it, without the cache tokens; OpenAI's prompt_tokens include them),
// or an error ({ error: { status, type?, message?, headers? } }),
// or a stall ({ stall: 'before_head' | 'after_head' | 'mid_stream' }). A turn
// is rendered in the dialect of the path it is asked on. Every request is
// recorded (method, path, headers, parsed body) so a test can assert exactly
// what the upstream got. A request with nothing queued gets a 500 in its
// dialect, and is recorded like any other.
//
// Shapes follow tests/data/wire/ (official examples): OpenAI chunks carry
// tool_calls deltas by index (first with id/type/name and "" arguments, then
// argument fragments), `usage: null` on every chunk and a final `choices: []`
// usage chunk when `stream_options.include_usage` is set, then `data: [DONE]`;
// Anthropic streams are message_start, ping, content_block_start/delta/stop
// (text_delta, input_json_delta starting with ""), message_delta, message_stop.
import http from 'node:http';

const OPENAI_PATH = '/v1/chat/completions';
const ANTHROPIC_PATH = '/v1/messages';

// Split a string into pieces of 1..n characters (deterministic), so SDKs and
// the gateway see arguments and text arrive in fragments as they do live.
function fragments(text, n = 7) {
  const out = [];
  for (let p = 0, k = 0; p < text.length; k++) {
    const len = 1 + ((k * 5 + 3) % n);
    out.push(text.slice(p, p + len));
    p += len;
  }
  return out;
}

function argsText(call) {
  return typeof call.arguments === 'string' ? call.arguments : JSON.stringify(call.arguments ?? {});
}

function finishOf(turn) {
  return turn.finish ?? ((turn.toolCalls ?? []).length ? 'tool_calls' : 'stop');
}

const ANTHROPIC_STOP = { stop: 'end_turn', tool_calls: 'tool_use', length: 'max_tokens' };

const OPENAI_ERROR_TYPE = {
  400: 'invalid_request_error', 401: 'invalid_request_error', 403: 'permission_error',
  404: 'invalid_request_error', 429: 'rate_limit_error', 500: 'server_error', 503: 'server_error',
};
const ANTHROPIC_ERROR_TYPE = {
  400: 'invalid_request_error', 401: 'authentication_error', 403: 'permission_error',
  404: 'not_found_error', 413: 'request_too_large', 429: 'rate_limit_error', 500: 'api_error',
  529: 'overloaded_error',
};

// ---- OpenAI Chat Completions -------------------------------------------------

function openaiUsage(u) {
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

function openaiToolCalls(turn) {
  return (turn.toolCalls ?? []).map((c) => ({
    id: c.id, type: 'function', function: { name: c.name, arguments: argsText(c) },
  }));
}

function openaiCompletion(turn, model, id, created) {
  const calls = openaiToolCalls(turn);
  const message = { role: 'assistant', content: turn.text ?? null, refusal: null, annotations: [] };
  if (calls.length) message.tool_calls = calls;
  return {
    id, object: 'chat.completion', created, model,
    choices: [{ index: 0, message, logprobs: null, finish_reason: finishOf(turn) }],
    usage: openaiUsage(turn.usage ?? { input: 0, output: 0 }),
    service_tier: 'default', system_fingerprint: 'fp_mock0001',
  };
}

function openaiChunks(turn, model, id, created, includeUsage) {
  const chunk = (delta, finish = null) => {
    const c = {
      id, object: 'chat.completion.chunk', created, model, service_tier: 'default',
      system_fingerprint: 'fp_mock0001',
      choices: [{ index: 0, delta, logprobs: null, finish_reason: finish }],
    };
    if (includeUsage) c.usage = null;
    return c;
  };
  const out = [];
  const calls = turn.toolCalls ?? [];
  if (turn.text !== undefined) {
    out.push(chunk({ role: 'assistant', content: '', refusal: null }));
    for (const piece of fragments(turn.text)) out.push(chunk({ content: piece }));
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
  if (includeUsage) {
    out.push({
      id, object: 'chat.completion.chunk', created, model, service_tier: 'default',
      system_fingerprint: 'fp_mock0001', choices: [],
      usage: openaiUsage(turn.usage ?? { input: 0, output: 0 }),
    });
  }
  return out.map((c) => `data: ${JSON.stringify(c)}\n\n`).concat(['data: [DONE]\n\n']);
}

function openaiError(status, type, message) {
  return {
    error: {
      message, type: type ?? OPENAI_ERROR_TYPE[status] ?? 'server_error', param: null, code: null,
    },
  };
}

// ---- Anthropic Messages ------------------------------------------------------

function anthropicUsage(u) {
  return {
    input_tokens: u.input, cache_creation_input_tokens: u.cacheWrite ?? 0,
    cache_read_input_tokens: u.cacheRead ?? 0,
    output_tokens: u.output, service_tier: 'standard',
  };
}

function anthropicContent(turn) {
  const content = [];
  if (turn.text !== undefined) content.push({ type: 'text', text: turn.text });
  for (const c of turn.toolCalls ?? []) {
    content.push({ type: 'tool_use', id: c.id, name: c.name, input: JSON.parse(argsText(c)) });
  }
  return content;
}

function anthropicMessage(turn, model, id) {
  return {
    id, type: 'message', role: 'assistant', model, content: anthropicContent(turn),
    stop_reason: ANTHROPIC_STOP[finishOf(turn)], stop_sequence: null,
    usage: anthropicUsage(turn.usage ?? { input: 0, output: 0 }),
  };
}

function anthropicEvents(turn, model, id) {
  const usage = turn.usage ?? { input: 0, output: 0 };
  const ev = (type, data) => `event: ${type}\ndata: ${JSON.stringify({ type, ...data })}\n\n`;
  const out = [ev('message_start', {
    message: {
      id, type: 'message', role: 'assistant', model, content: [], stop_reason: null,
      stop_sequence: null, usage: anthropicUsage({ ...usage, output: 1 }),
    },
  })];
  let index = 0;
  if (turn.text !== undefined) {
    out.push(ev('content_block_start', { index, content_block: { type: 'text', text: '' } }));
    out.push(ev('ping', {}));
    for (const piece of fragments(turn.text)) {
      out.push(ev('content_block_delta', { index, delta: { type: 'text_delta', text: piece } }));
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
    delta: { stop_reason: ANTHROPIC_STOP[finishOf(turn)], stop_sequence: null },
    usage: { output_tokens: usage.output },
  }));
  out.push(ev('message_stop', {}));
  return out;
}

function anthropicError(status, type, message) {
  return {
    type: 'error', error: { type: type ?? ANTHROPIC_ERROR_TYPE[status] ?? 'api_error', message },
    request_id: 'req_mock0001',
  };
}

// ---- the server ----------------------------------------------------------------

export async function startMockUpstream() {
  const queue = [];
  const requests = [];
  const sockets = new Set();
  const stalled = new Set();
  let serial = 0;

  const server = http.createServer((req, res) => {
    const chunks = [];
    req.on('data', (d) => chunks.push(d));
    req.on('end', () => {
      const raw = Buffer.concat(chunks).toString('utf8');
      let body = null;
      try { body = raw ? JSON.parse(raw) : null; } catch { body = { unparsable: raw }; }
      const record = { method: req.method, path: req.url, headers: req.headers, body, raw };
      requests.push(record);
      handle(req, res, record);
    });
  });
  server.on('connection', (s) => {
    sockets.add(s);
    s.on('close', () => sockets.delete(s));
  });

  function json(res, status, value, headers = {}) {
    res.writeHead(status, { 'content-type': 'application/json', ...headers });
    res.end(JSON.stringify(value));
  }

  function handle(req, res, record) {
    const path = req.url.split('?')[0];
    const dialect = path === OPENAI_PATH ? 'openai' : path === ANTHROPIC_PATH ? 'anthropic' : null;
    if (req.method === 'GET' && (path === '/v1/models')) {
      return json(res, 200, req.headers['anthropic-version']
        ? {
          data: [{
            type: 'model', id: 'mock-model', display_name: 'Mock',
            created_at: '2025-01-01T00:00:00Z',
          }],
          has_more: false, first_id: 'mock-model', last_id: 'mock-model',
        }
        : {
          object: 'list',
          data: [{ id: 'mock-model', object: 'model', created: 1700000000, owned_by: 'mock' }],
        });
    }
    if (!dialect || req.method !== 'POST') {
      return dialect === 'anthropic' || req.headers['anthropic-version']
        ? json(res, 404, anthropicError(404, undefined, `no route ${req.method} ${path}`))
        : json(res, 404, openaiError(404, undefined, `no route ${req.method} ${path}`));
    }
    record.dialect = dialect;
    const errorBody = (status, type, message) =>
      (dialect === 'openai' ? openaiError : anthropicError)(status, type, message);
    const item = queue.shift();
    if (!item) return json(res, 500, errorBody(500, undefined, 'mock upstream: nothing queued'));
    if (item.error) {
      const { status, type, message = `mock error ${status}`, headers = {} } = item.error;
      return json(res, status, errorBody(status, type, message), headers);
    }
    const model = record.body?.model ?? 'mock-model';
    const stream = record.body?.stream === true;
    if (item.stall) return stall(res, item.stall, dialect, model, stream);
    serial++;
    if (dialect === 'openai') {
      const id = `chatcmpl-mock${serial}`;
      const created = 1700000000 + serial;
      if (!stream) return json(res, 200, openaiCompletion(item, model, id, created));
      const includeUsage = record.body?.stream_options?.include_usage === true;
      return sse(res, openaiChunks(item, model, id, created, includeUsage), {});
    }
    const id = `msg_mock${String(serial).padStart(4, '0')}`;
    if (!stream) {
      return json(res, 200, anthropicMessage(item, model, id), { 'request-id': 'req_mock' });
    }
    return sse(res, anthropicEvents(item, model, id), { 'request-id': 'req_mock' });
  }

  // One write per event, on separate ticks, so each arrives as its own read.
  function sse(res, events, headers) {
    res.writeHead(200, {
      'content-type': 'text/event-stream; charset=utf-8', 'cache-control': 'no-cache', ...headers,
    });
    let i = 0;
    const next = () => {
      if (res.destroyed) return;
      if (i === events.length) return res.end();
      res.write(events[i++]);
      setImmediate(next);
    };
    next();
  }

  // Holds the request open until the client leaves or the mock closes.
  function stall(res, where, dialect, model, stream) {
    stalled.add(res);
    res.on('close', () => stalled.delete(res));
    if (where === 'before_head') return;
    res.writeHead(200, {
      'content-type': stream ? 'text/event-stream' : 'application/json',
      'cache-control': 'no-cache',
    });
    res.flushHeaders();
    if (where === 'mid_stream' && stream) {
      const events = dialect === 'openai'
        ? openaiChunks({ text: 'partial' }, model, 'chatcmpl-stall', 1700000000, false).slice(0, 2)
        : anthropicEvents({ text: 'partial' }, model, 'msg_stall').slice(0, 3);
      for (const e of events) res.write(e);
    }
  }

  await new Promise((resolve, reject) => {
    server.once('error', reject);
    server.listen(0, '127.0.0.1', resolve);
  });
  const port = server.address().port;
  const root = `http://127.0.0.1:${port}`;

  return {
    port,
    root,
    // Base URLs as each SDK and `toolwire serve --upstream` want them.
    openaiBase: `${root}/v1`,
    anthropicBase: root,
    requests,
    queue,
    /** Queue turns (canonical, see above), errors or stalls, answered in order. */
    enqueue(...items) { queue.push(...items); return this; },
    /** The model requests (POST to a dialect's path) received so far. */
    modelRequests() { return requests.filter((r) => r.dialect); },
    stalledCount() { return stalled.size; },
    async close() {
      for (const res of stalled) res.destroy();
      for (const s of sockets) s.destroy();
      await new Promise((resolve) => server.close(resolve));
    },
  };
}
