// Shared data and setup of the gateway SDK suites (openai_client_suite.mjs,
// anthropic_client_suite.mjs): the conversation's pieces, the tool
// definitions in both dialects, and one gateway + mock upstream per suite.
import assert from 'node:assert/strict';
import { after, before, beforeEach } from 'node:test';

import { recordingFetch } from '../sdk_support/clients.mjs';
import { startGateway } from '../sdk_support/harness.mjs';
import { startMockUpstream } from '../sdk_support/mock_upstream.mjs';

export const SYSTEM = 'You are a terse assistant.';
export const QUESTION = 'What is the weather in Paris, and what time is it there?';
// A 1x1 PNG.
export const PNG_B64 = 'iVBORw0KGgoAAAANSUhEUgAAAAEAAAABCAYAAAAfFcSJAAAADUlEQVR42mP8z8BQDwAEhQGA' +
  'hKmMIQAAAABJRU5ErkJggg==';
export const UPSTREAM_KEY = 'sk-upstream-secret-0123456789';
export const KEY_ENV = 'TOOLWIRE_TEST_UPSTREAM_KEY';

export const WEATHER = {
  name: 'get_weather', description: 'Current weather for a city',
  schema: { type: 'object', properties: { city: { type: 'string' } }, required: ['city'] },
};
export const TIME = {
  name: 'get_time', description: 'Current time in an IANA time zone',
  schema: { type: 'object', properties: { tz: { type: 'string' } }, required: ['tz'] },
};
export const asOpenAITool = (t) => ({
  type: 'function', function: { name: t.name, description: t.description, parameters: t.schema },
});
export const asAnthropicTool = (t) => ({
  name: t.name, description: t.description, input_schema: t.schema,
});

// Message pieces: an OpenAI tool message, an Anthropic tool_result block, a
// user turn of blocks, and a scripted mock turn of text.
export const oaToolMsg = (id, content) => ({ role: 'tool', tool_call_id: id, content });
export const anResult = (id, content, extra = {}) =>
  ({ type: 'tool_result', tool_use_id: id, content, ...extra });
export const userBlocks = (...content) => ({ role: 'user', content });
export const says = (text, input, output) => ({ text, usage: { input, output } });

// Call ids as each upstream writes them.
export const CALL_IDS = {
  openai: ['call_Q1w2E3r4T5y6U7i8O9p0aB', 'call_Zx9Cv8Bn7Ml6Kj5Hg4Fd3sA'],
  anthropic: ['toolu_01A09q90qw90lq917835lq9', 'toolu_01B7x8c9v0b1n2m3k4j5h6g7'],
};

export const ERROR_TEXT = 'ConnectionError: the weather service API is not available (HTTP 500)';

// One mock upstream and one `toolwire serve` in front of it for the whole
// file; the mock's records are cleared before each test. `upstream` is the
// dialect ('openai' | 'anthropic'); the OpenAI one is started as
// openai_compatible (a base URL of one's own, harness.mjs).
export function useGateway(upstream) {
  const ctx = { mock: null, gw: null, rec: recordingFetch() };
  before(async () => {
    ctx.mock = await startMockUpstream();
    ctx.gw = await startGateway({
      mock: ctx.mock, upstream, keyEnv: KEY_ENV, env: { [KEY_ENV]: UPSTREAM_KEY },
    });
  });
  beforeEach(() => {
    ctx.mock.requests.length = 0;
    ctx.mock.queue.length = 0;
    ctx.rec.responses.length = 0;
  });
  after(async () => {
    try {
      if (ctx.gw) {
        await ctx.gw.stop();
        assert.doesNotMatch(ctx.gw.stderr(), new RegExp(UPSTREAM_KEY),
          'the upstream key leaked into the log');
      }
    } finally {
      if (ctx.mock) await ctx.mock.close();
    }
  });
  return ctx;
}

// The one model request the upstream got since the test began, checked for
// path, auth (the gateway's upstream key, never the client's) and stream
// flag; returns its parsed body.
export function upstreamRequest(ctx, upstream, index = -1) {
  const reqs = ctx.mock.modelRequests();
  assert.ok(reqs.length > 0, 'the upstream got no model request');
  const got = reqs.at(index);
  assert.equal(got.method, 'POST');
  if (upstream === 'anthropic') {
    assert.equal(got.path, '/v1/messages');
    assert.equal(got.headers['x-api-key'], UPSTREAM_KEY);
    assert.equal(got.headers['anthropic-version'], '2023-06-01');
    assert.equal(got.headers.authorization, undefined, 'a client credential went upstream');
  } else {
    assert.equal(got.path, '/v1/chat/completions');
    assert.equal(got.headers.authorization, `Bearer ${UPSTREAM_KEY}`);
    assert.equal(got.headers['x-api-key'], undefined, 'a client credential went upstream');
  }
  assert.match(got.headers['content-type'] ?? '', /^application\/json/);
  return got.body;
}

export function assertNoKeyIn(value) {
  assert.doesNotMatch(JSON.stringify(value), new RegExp(UPSTREAM_KEY), 'the upstream key leaked');
}

// Runs a test's deferred checks — each answer's toolwire-warnings against
// `expectWarnings`, then the `later` closures — and fails with all of their
// messages at once.
export function settle(warned, later, expectWarnings) {
  const failures = [];
  warned.forEach((w, i) => {
    try {
      assert.deepEqual(w, expectWarnings, `toolwire-warnings of answer ${i + 1}`);
    } catch (e) {
      failures.push(e.message);
    }
  });
  for (const check of later) {
    try {
      check();
    } catch (e) {
      failures.push(e.message);
    }
  }
  if (failures.length) assert.fail(failures.join('\n---\n'));
}
