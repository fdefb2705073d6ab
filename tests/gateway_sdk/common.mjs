// Tools, scripted turns and helpers shared by the gateway SDK tests.
import assert from 'node:assert/strict';
import { GEMINI_UPSTREAM_KEY } from '../sdk_support/harness.mjs';

export const WEATHER_SCHEMA = {
  type: 'object', properties: { city: { type: 'string' } }, required: ['city'],
};
export const TIME_SCHEMA = {
  type: 'object', properties: { tz: { type: 'string' } }, required: ['tz'],
};
export const WEATHER_DESC = 'Current weather of a city';
export const TIME_DESC = 'Current time in a time zone';

export const OPENAI_TOOLS = [
  { type: 'function',
    function: { name: 'get_weather', description: WEATHER_DESC, parameters: WEATHER_SCHEMA } },
  { type: 'function',
    function: { name: 'get_time', description: TIME_DESC, parameters: TIME_SCHEMA } },
];
export const ANTHROPIC_TOOLS = [
  { name: 'get_weather', description: WEATHER_DESC, input_schema: WEATHER_SCHEMA },
  { name: 'get_time', description: TIME_DESC, input_schema: TIME_SCHEMA },
];

// A 1x1 transparent PNG.
export const PNG_B64 =
  'iVBORw0KGgoAAAANSUhEUgAAAAEAAAABCAYAAAAfFcSJAAAADUlEQVR42mNkYPhfDwAChwGA60e6' +
  'kgAAAABJRU5ErkJggg==';

// The recorded upstream requests' bodies, one per call, asserting their paths.
export function upstreamBodies(mock, upstream, n) {
  const path = upstream === 'openai' ? '/v1/chat/completions' : '/v1/messages';
  const bodies = mock.requests.map((r) => r.body);
  assert.equal(mock.requests.length, n,
    `upstream got ${mock.requests.length} requests, wanted ${n}: ${JSON.stringify(bodies)}`);
  for (const r of mock.requests) {
    assert.equal(r.method, 'POST');
    assert.equal(r.path, path);
    assert.equal(r.headers['content-type'], 'application/json');
    assert.equal(r.headers.accept,
      r.body?.stream === true ? 'text/event-stream' : 'application/json');
    if (upstream === 'anthropic') assert.equal(r.headers['anthropic-version'], '2023-06-01');
    // The client's key is the gateway's business; it never goes upstream.
    assert.equal(r.headers.authorization, undefined);
    assert.equal(r.headers['x-api-key'], undefined);
  }
  assert.equal(mock.pending(), 0, 'scripted turns left unused');
  return bodies;
}

// Any upstream dialect: the recorded requests (n of them, every script turn
// used), each checked for its path (the model and stream flag in it for
// Gemini and Bedrock), content type, accept, and credentials: none of the
// client's; Gemini's upstream key; Bedrock's SigV4 signature verified by
// the mock. `stream`: whether each request streams.
export function upstreamRequests(mock, upstream, n, { model, stream }) {
  const bodies = mock.requests.map((r) => r.raw);
  assert.equal(mock.requests.length, n,
    `upstream got ${mock.requests.length} requests, wanted ${n}: ${JSON.stringify(bodies)}`);
  for (const r of mock.requests) {
    assert.equal(r.method, 'POST');
    const path = {
      openai: '/v1/chat/completions', anthropic: '/v1/messages', responses: '/v1/responses',
      gemini: stream ? `/v1beta/models/${model}:streamGenerateContent?alt=sse`
        : `/v1beta/models/${model}:generateContent`,
      bedrock: `/model/${encodeURIComponent(model)}/${stream ? 'converse-stream' : 'converse'}`,
    }[upstream];
    assert.equal(r.path, path);
    assert.equal(r.headers['content-type'], 'application/json');
    const streamType = upstream === 'bedrock' ? 'application/vnd.amazon.eventstream'
      : 'text/event-stream';
    assert.equal(r.headers.accept, stream ? streamType : 'application/json');
    if (upstream === 'anthropic') assert.equal(r.headers['anthropic-version'], '2023-06-01');
    assert.equal(r.headers['x-api-key'], undefined);
    if (upstream === 'gemini') {
      assert.equal(r.headers['x-goog-api-key'], GEMINI_UPSTREAM_KEY);
      assert.equal(r.headers.authorization, undefined);
    } else if (upstream === 'bedrock') {
      assert.equal(r.sigv4, 'ok');
      assert.equal(r.headers['x-goog-api-key'], undefined);
    } else {
      assert.equal(r.headers.authorization, undefined);
      assert.equal(r.headers['x-goog-api-key'], undefined);
    }
  }
  assert.equal(mock.pending(), 0, 'scripted turns left unused');
  return mock.requests.map((r) => r.body);
}

// Stream flags the upstream must get: an OpenAI upstream is asked for the
// usage chunk (else a streamed answer has no usage to report).
export function streamFields(upstream, stream) {
  if (!stream) return {};
  if (upstream === 'anthropic') return { stream: true };
  return { stream: true, stream_options: { include_usage: true } };
}

// The Anthropic request fields the gateway must fill in when the client is an
// OpenAI one: max_tokens (required there) defaults to 4096.
export const ANTHROPIC_DEFAULT_MAX_TOKENS = 4096;

// Shapes, to keep the expectations short.
export const scriptedCall = (id, name, args) => ({ id, name, arguments: args });
export const oaCall = (id, name, args) =>
  ({ id, type: 'function', function: { name, arguments: args } });
export const oaToolMsg = (id, content) => ({ role: 'tool', tool_call_id: id, content });
export const anUse = (id, name, input) => ({ type: 'tool_use', id, name, input });
export const anResult = (id, content, extra = {}) =>
  ({ type: 'tool_result', tool_use_id: id, content, ...extra });
