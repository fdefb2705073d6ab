// The scripted upstream of the SDK tests: one node:http server on 127.0.0.1
// (port 0) that answers every dialect the way the real APIs do, whole (JSON)
// or streamed, as the request asks (shapes as in tests/data/wire/):
//   POST /v1/chat/completions  OpenAI Chat Completions   (upstream/openai_chat.mjs)
//   POST /v1/messages          Anthropic Messages        (upstream/anthropic_messages.mjs)
//   POST /v1/responses         OpenAI Responses          (upstream/openai_responses.mjs)
//   POST /v1beta/models/{model}:generateContent | :streamGenerateContent?alt=sse
//                              Gemini                    (upstream/gemini.mjs)
//   POST /model/{modelId}/converse | /converse-stream
//                              Bedrock Converse, every request's SigV4
//                              signature checked         (upstream/bedrock_converse.mjs)
//   GET  /v1/models            a one-model list, in OpenAI's or Anthropic's shape
//
// Each test queues what the model says next as canonical turns
//   { text?, toolCalls?: [{ id, name, arguments }], finish?, usage?, streamError? }
// (`arguments` is JSON text or an object; `finish` is 'stop' | 'tool_calls' |
// 'length', by default 'tool_calls' when there are calls, else 'stop'; `usage`
// is { input, output, cacheRead?, cacheWrite? } with `input` as Anthropic
// counts it, without the cache tokens; `streamError`: a stream breaks after
// the text with that message), or an error
// ({ error: { status, type?, message?, headers? } }), or a stall
// ({ stall: 'before_head' | 'after_head' | 'mid_stream' }). A turn is rendered
// in the dialect of the path it is asked on. Every request is recorded
// (method, path, headers, parsed body, raw text; `dialect` on model requests;
// `sigv4`, 'ok' or why not, on Bedrock's) so a test can assert exactly what
// the upstream got. A model request with nothing queued gets a 500 in its
// dialect, so a test that makes more upstream calls than it scripted fails
// loudly; a Bedrock request whose signature does not verify gets a 403.
//
// Lanes let tests share one mock concurrently: a request whose body holds the
// tag `[lane:KEY]` (e.g. in its user message: every dialect carries it) and
// whose KEY has a lane (lane(KEY)) is answered from that lane's queue and
// recorded with `lane: KEY`; others use the shared queue.
import http from 'node:http';

import {
  anthropicError, anthropicResponse, anthropicStream, HEADERS as ANTHROPIC_HEADERS,
  PATH as ANTHROPIC_PATH,
} from './upstream/anthropic_messages.mjs';
import {
  bedrockError, bedrockResponse, bedrockStream, checkSigV4, matchBedrock,
} from './upstream/bedrock_converse.mjs';
import { geminiError, geminiResponse, geminiStream, matchGemini } from './upstream/gemini.mjs';
import {
  openaiError, openaiResponse, openaiStream, PATH as OPENAI_PATH,
} from './upstream/openai_chat.mjs';
import {
  PATH as RESPONSES_PATH, responsesError, responsesResponse, responsesStream,
} from './upstream/openai_responses.mjs';

const SSE = 'text/event-stream; charset=utf-8';
const LANE_TAG = /\[lane:([A-Za-z0-9_.-]+)\]/;

/** The tag that routes a request to lane `key` (put it in the prompt). */
export const laneTag = (key) => `[lane:${key}]`;
const exact = (path) => (url) => (url === path ? {} : null);

// Per dialect: which URLs are its (and what the URL says: model, stream),
// its renderers, its stream's media type and the events a mid-stream stall
// sends before it stops.
const DIALECTS = [
  { name: 'openai', match: exact(OPENAI_PATH), response: openaiResponse, stream: openaiStream,
    error: openaiError, media: SSE, partial: 2 },
  { name: 'anthropic', match: exact(ANTHROPIC_PATH), response: anthropicResponse,
    stream: anthropicStream, error: anthropicError, media: SSE, headers: ANTHROPIC_HEADERS,
    partial: 3 },
  { name: 'responses', match: exact(RESPONSES_PATH), response: responsesResponse,
    stream: responsesStream, error: responsesError, media: SSE, partial: 3 },
  { name: 'gemini', match: matchGemini, response: geminiResponse, stream: geminiStream,
    error: geminiError, media: SSE, partial: 1 },
  { name: 'bedrock', match: matchBedrock, response: bedrockResponse, stream: bedrockStream,
    error: bedrockError, media: 'application/vnd.amazon.eventstream', verify: checkSigV4,
    partial: 2 },
];

function modelsList(anthropic) {
  return anthropic
    ? {
      data: [{
        type: 'model', id: 'mock-model', display_name: 'Mock', created_at: '2025-01-01T00:00:00Z',
      }],
      has_more: false, first_id: 'mock-model', last_id: 'mock-model',
    }
    : {
      object: 'list',
      data: [{ id: 'mock-model', object: 'model', created: 1700000000, owned_by: 'mock' }],
    };
}

export async function startMockUpstream() {
  const queue = [];
  const requests = [];
  const lanes = new Map();
  const sockets = new Set();
  const stalled = new Set();
  let serial = 0;

  const server = http.createServer((req, res) => {
    const chunks = [];
    req.on('data', (d) => chunks.push(d));
    req.on('end', () => {
      const rawBytes = Buffer.concat(chunks);
      const raw = rawBytes.toString('utf8');
      let body = null;
      try { body = raw ? JSON.parse(raw) : null; } catch { body = { unparsable: raw }; }
      const record = { method: req.method, path: req.url, headers: req.headers, body, raw };
      requests.push(record);
      handle(req, res, record, rawBytes).catch((e) => {
        if (!res.headersSent) json(res, 500, { error: { message: `mock upstream: ${e.stack}` } });
        else res.destroy();
      });
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

  async function handle(req, res, record, rawBytes) {
    let dialect = null;
    let route = null;
    for (const d of DIALECTS) {
      route = d.match(req.url);
      if (route) { dialect = d; break; }
    }
    const anthropicClient = req.headers['anthropic-version'] !== undefined;
    if (req.method === 'GET' && req.url.split('?')[0] === '/v1/models') {
      return json(res, 200, modelsList(anthropicClient));
    }
    // In the dialect of the path, else of the client's headers.
    const fail = (status, message, type, extra = {}) => {
      const d = dialect ?? DIALECTS[anthropicClient ? 1 : 0];
      const { headers = {}, body } = d.error(status, message, type);
      json(res, status, body, { ...headers, ...extra });
    };
    if (!dialect || req.method !== 'POST') {
      return fail(404, `mock upstream: no route ${req.method} ${req.url}`);
    }
    record.dialect = dialect.name;
    if (dialect.verify) {
      record.sigv4 = await dialect.verify(req, rawBytes);
      if (record.sigv4 !== 'ok') return fail(403, `mock upstream: SigV4: ${record.sigv4}`);
    }
    if (route.stream && route.sse === false) {
      return fail(400, 'mock upstream: streamGenerateContent without alt=sse');
    }
    if (!record.body || record.body.unparsable !== undefined) {
      return fail(400, 'mock upstream: body is not JSON');
    }
    const laneKey = LANE_TAG.exec(record.raw)?.[1];
    const lane = laneKey === undefined ? undefined : lanes.get(laneKey);
    if (lane) {
      record.lane = laneKey;
      lane.requests.push(record);
    }
    const item = (lane?.queue ?? queue).shift();
    if (!item) {
      return fail(500, `mock upstream: nothing queued for request ${requests.length}` +
        (lane ? ` (lane ${laneKey})` : ''));
    }
    if (item.error) {
      const { status, type, message = `mock error ${status}`, headers = {} } = item.error;
      return fail(status, message, type, headers);
    }
    const ctx = {
      model: route.model ?? record.body.model ?? 'mock-model', serial: serial + 1,
      body: record.body,
    };
    const stream = route.stream ?? record.body.stream === true;
    if (item.stall) return stall(res, item.stall, dialect, ctx, stream);
    serial++;
    if (!stream) return json(res, 200, dialect.response(item, ctx), dialect.headers);
    return send(res, dialect.stream(item, ctx), dialect);
  }

  // One write per event, on separate ticks, so each arrives as its own read.
  function send(res, events, dialect) {
    res.writeHead(200, {
      'content-type': dialect.media, 'cache-control': 'no-cache', ...dialect.headers,
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
  function stall(res, where, dialect, ctx, stream) {
    stalled.add(res);
    res.on('close', () => stalled.delete(res));
    if (where === 'before_head') return;
    res.writeHead(200, {
      'content-type': stream ? dialect.media : 'application/json', 'cache-control': 'no-cache',
    });
    res.flushHeaders();
    if (where === 'mid_stream' && stream) {
      const partial = { text: 'partial' };
      for (const e of dialect.stream(partial, ctx).slice(0, dialect.partial)) res.write(e);
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
    /** Replaces the queue and forgets earlier requests (one test's state). */
    script(...items) {
      queue.length = 0;
      requests.length = 0;
      queue.push(...items);
      return this;
    },
    /** Turns queued and not yet asked for. */
    pending() { return queue.length; },
    /** The model requests (POST to a dialect's path) received so far. */
    modelRequests() { return requests.filter((r) => r.dialect); },
    stalledCount() { return stalled.size; },
    /**
     * The lane `key` (made on first use): script(...items) replaces its queue
     * and forgets its requests; requests() are its model requests so far;
     * pending() counts its turns not yet asked for.
     */
    lane(key) {
      if (!lanes.has(key)) lanes.set(key, { queue: [], requests: [] });
      const lane = lanes.get(key);
      return {
        tag: laneTag(key),
        script(...items) {
          lane.queue.length = 0;
          lane.requests.length = 0;
          lane.queue.push(...items);
          return this;
        },
        requests: () => [...lane.requests],
        pending: () => lane.queue.length,
      };
    },
    async close() {
      for (const r of stalled) r.destroy();
      for (const s of sockets) s.destroy();
      await new Promise((resolve) => server.close(resolve));
    },
  };
}
