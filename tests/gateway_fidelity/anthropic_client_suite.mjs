// The official `@anthropic-ai/sdk` as a client of `toolwire serve`, in front
// of an upstream of either dialect (the mock, mock_upstream.mjs). Each
// scenario runs whole and streamed; each checks what the SDK got (ids, names,
// inputs, text, stop reason, usage, the toolwire-warnings header) and the
// exact request the upstream got (parsed JSON, deep-equal), derived from the
// codec READMEs: same dialect passes through unchanged; to OpenAI, `system`
// becomes a leading system message, max_tokens becomes max_completion_tokens,
// tool_result blocks become one tool message each (is_error as an "Error: "
// prefix; images move to a user message after them, with a warning),
// tool_choice maps to "none" / {type: function}, and streams ask for
// stream_options.include_usage (the openai profiles' stream_usage).
import assert from 'node:assert/strict';
import { beforeEach, describe, test } from 'node:test';

import {
  anResult, asAnthropicTool, asOpenAITool, assertNoKeyIn, CALL_IDS, ERROR_TEXT, oaToolMsg, PNG_B64,
  QUESTION, says, settle, SYSTEM, TIME, upstreamRequest, useGateway, userBlocks, WEATHER,
} from './common.mjs';
import {
  Anthropic, anthropicClient, betaTool, recordingFetch,
} from '../sdk_support/clients.mjs';
import { startGateway, warningsOf } from '../sdk_support/harness.mjs';
import { startMockUpstream } from '../sdk_support/mock_upstream.mjs';

const MODEL = 'claude-haiku-4-5';

export function anthropicClientSuite(upstream) {
  const ctx = useGateway(upstream);
  const client = () => anthropicClient(ctx.gw.anthropicBase, { fetch: ctx.rec.fetch });
  const [ID1, ID2] = CALL_IDS[upstream];
  const lead = upstream === 'anthropic' ? 'Let me check.' : undefined;

  const warned = [];
  const later = [];
  beforeEach(() => { warned.length = 0; later.length = 0; });
  // Every answer's toolwire-warnings and the deferred usage checks, at the
  // end of a test.
  const checkWarnings = (expect) => settle(warned, later, expect);
  // The upstream's last request (path and auth checked now), deep-equal to
  // `want` at the test's end: a difference there does not stop the rest of
  // the conversation.
  const expectUpstream = (want) => {
    const got = upstreamRequest(ctx, upstream);
    later.push(() => assert.deepEqual(got, want, 'the request the upstream got'));
  };

  // OpenAI's responses carry service_tier and system_fingerprint, which
  // Anthropic's have no place for: dropped with the documented warning
  // (dropped_unknown_field). A stream's headers leave before any of that.
  const expectedWarnings = (stream, extra = []) => [
    ...(upstream === 'openai' && !stream
      ? ['dropped_unknown_field ($.service_tier)', 'dropped_unknown_field ($.system_fingerprint)']
      : []),
    ...extra,
  ].sort();

  async function ask(params, stream) {
    const c = client();
    const message = stream
      ? await c.messages.stream(params).finalMessage() : await c.messages.create(params);
    const res = ctx.rec.responses.at(-1);
    assert.equal(res.status, 200);
    warned.push(warningsOf(res.headers));
    assertNoKeyIn(message);
    return message;
  }

  function base(messages, extra = {}) {
    return {
      model: MODEL, max_tokens: 256, system: SYSTEM, messages, tools: [asAnthropicTool(WEATHER)],
      ...extra,
    };
  }

  // The request the upstream must get; for OpenAI, `messages` are given in
  // OpenAI's form by the test (the system message is added here).
  function expected(params, stream, openaiMessages, openaiExtra = {}) {
    if (upstream === 'anthropic') return stream ? { ...params, stream: true } : params;
    const b = { model: MODEL, messages: [{ role: 'system', content: SYSTEM }, ...openaiMessages] };
    if (params.tools) b.tools = params.tools.map((t) => asOpenAITool({
      name: t.name, description: t.description, schema: t.input_schema,
    }));
    Object.assign(b, openaiExtra);
    b.max_completion_tokens = 256;
    if (stream) {
      b.stream = true;
      b.stream_options = { include_usage: true };
    }
    return b;
  }

  function expectBlocks(message, text, calls) {
    const want = [
      ...(text ? [{ type: 'text', text }] : []),
      ...calls.map((c) =>
        ({ type: 'tool_use', id: c.id, name: c.name, input: JSON.parse(c.arguments) })),
    ];
    const got = message.content.map((b) => (b.type === 'text'
      ? { type: 'text', text: b.text }
      : b.type === 'tool_use' ? { type: 'tool_use', id: b.id, name: b.name, input: b.input } : b));
    assert.deepEqual(got, want);
  }

  // Deferred to the test's end (checkWarnings), so a wrong count does not
  // hide the checks of the upstream's request.
  function expectUsage(message, input, output) {
    const u = message.usage;
    later.push(() => assert.deepEqual([u.input_tokens, u.output_tokens], [input, output],
      `usage (input, output) of ${JSON.stringify(message.usage)}`));
  }

  // The assistant turn a client sends back: the content blocks it got.
  const echo = (message) => ({
    role: 'assistant',
    content: message.content.map((b) => (b.type === 'text'
      ? { type: 'text', text: b.text }
      : { type: 'tool_use', id: b.id, name: b.name, input: b.input })),
  });
  const anAssistant = (calls) => ({
    role: 'assistant',
    content: calls.map((c) =>
      ({ type: 'tool_use', id: c.id, name: c.name, input: JSON.parse(c.arguments) })),
  });
  // The same, as OpenAI must get it.
  const oaAssistant = (text, calls) => ({
    role: 'assistant', content: text ?? null,
    tool_calls: calls.map((c) => ({
      id: c.id, type: 'function', function: { name: c.name, arguments: c.arguments },
    })),
  });
  const user = { role: 'user', content: QUESTION };

  for (const stream of [false, true]) {
    describe(stream ? 'streamed' : 'whole', () => {
      test('two-round tool conversation', async () => {
        const call = { id: ID1, name: 'get_weather', arguments: '{"city":"Paris"}' };
        ctx.mock.enqueue({ text: lead, toolCalls: [call], usage: { input: 52, output: 17 } },
          { text: 'It is 18°C and sunny in Paris.', usage: { input: 80, output: 12 } });
        const p1 = base([user]);
        const m1 = await ask(p1, stream);
        expectBlocks(m1, lead, [call]);
        assert.equal(m1.stop_reason, 'tool_use');
        expectUsage(m1, 52, 17);
        expectUpstream(expected(p1, stream, [user]));

        const p2 = base([user, echo(m1),
          userBlocks(anResult(ID1, '18°C, sunny'))]);
        const m2 = await ask(p2, stream);
        expectBlocks(m2, 'It is 18°C and sunny in Paris.', []);
        assert.equal(m2.stop_reason, 'end_turn');
        expectUsage(m2, 80, 12);
        expectUpstream(expected(p2, stream, [
          user, oaAssistant(lead, [call]), oaToolMsg(ID1, '18°C, sunny'),
        ]));
        assert.equal(ctx.mock.modelRequests().length, 2);
        checkWarnings(expectedWarnings(stream));
      });

      test('two parallel calls, both results in the next request', async () => {
        const calls = [
          { id: ID1, name: 'get_weather', arguments: '{"city":"Paris"}' },
          { id: ID2, name: 'get_time', arguments: '{"tz":"Europe/Paris"}' },
        ];
        ctx.mock.enqueue({ text: lead, toolCalls: calls, usage: { input: 60, output: 30 } },
          { text: 'Sunny, 18°C; it is 14:05.', usage: { input: 101, output: 11 } });
        const tools = [asAnthropicTool(WEATHER), asAnthropicTool(TIME)];
        const p1 = base([user], { tools });
        const m1 = await ask(p1, stream);
        expectBlocks(m1, lead, calls);
        assert.equal(m1.stop_reason, 'tool_use');
        expectUsage(m1, 60, 30);
        expectUpstream(expected(p1, stream, [user]));

        const p2 = base([user, echo(m1), { role: 'user', content: [
          { type: 'tool_result', tool_use_id: ID1, content: '18°C, sunny' },
          { type: 'tool_result', tool_use_id: ID2, content: '14:05' },
        ] }], { tools });
        const m2 = await ask(p2, stream);
        expectBlocks(m2, 'Sunny, 18°C; it is 14:05.', []);
        assert.equal(m2.stop_reason, 'end_turn');
        expectUsage(m2, 101, 11);
        expectUpstream(expected(p2, stream, [
          user, oaAssistant(lead, calls),
          { role: 'tool', tool_call_id: ID1, content: '18°C, sunny' },
          { role: 'tool', tool_call_id: ID2, content: '14:05' },
        ]));
        checkWarnings(expectedWarnings(stream));
      });

      // is_error has no OpenAI field: it goes up as the "Error: " prefix (the
      // codec's documented, lossless convention: no warning).
      test('an is_error tool result', async () => {
        const call = { id: ID1, name: 'get_weather', arguments: '{"city":"Paris"}' };
        ctx.mock.enqueue(says('The weather service is down; try again later.', 90, 10));
        const p = base([user, anAssistant([call]), { role: 'user', content: [
          { type: 'tool_result', tool_use_id: ID1, content: ERROR_TEXT, is_error: true },
        ] }]);
        const m = await ask(p, stream);
        expectBlocks(m, 'The weather service is down; try again later.', []);
        assert.equal(m.stop_reason, 'end_turn');
        expectUsage(m, 90, 10);
        expectUpstream(expected(p, stream, [
          user, oaAssistant(undefined, [call]),
          { role: 'tool', tool_call_id: ID1, content: `Error: ${ERROR_TEXT}` },
        ]));
        checkWarnings(expectedWarnings(stream));
      });

      // An image in a tool_result: Anthropic keeps it; an OpenAI tool message
      // cannot hold one, so it follows in a user message (warning
      // tool_result_image_moved, at the client's message).
      test('an image in a tool result', async () => {
        const call = { id: ID1, name: 'get_weather', arguments: '{"city":"Paris"}' };
        ctx.mock.enqueue(says('The radar shows clear skies.', 300, 8));
        const p = base([user, anAssistant([call]), { role: 'user', content: [{
          type: 'tool_result', tool_use_id: ID1, content: [
            { type: 'text', text: 'Rendered the radar image.' },
            { type: 'image', source: { type: 'base64', media_type: 'image/png', data: PNG_B64 } },
          ],
        }] }]);
        const m = await ask(p, stream);
        expectBlocks(m, 'The radar shows clear skies.', []);
        assert.equal(m.stop_reason, 'end_turn');
        expectUsage(m, 300, 8);
        expectUpstream(expected(p, stream, [
          user, oaAssistant(undefined, [call]),
          { role: 'tool', tool_call_id: ID1, content: 'Rendered the radar image.' },
          { role: 'user', content: [
            { type: 'text', text: `Image returned by tool call ${ID1}:` },
            { type: 'image_url', image_url: { url: `data:image/png;base64,${PNG_B64}` } },
          ] },
        ]));
        checkWarnings(expectedWarnings(stream,
          upstream === 'openai' ? ['tool_result_image_moved ($.messages[2])'] : []));
      });

      // OpenAI answers a named tool_choice with finish_reason "stop": the
      // turn holds a call, so the client must see tool_use.
      test('tool_choice forcing a named tool', async () => {
        const call = { id: ID1, name: 'get_time', arguments: '{"tz":"Europe/Paris"}' };
        ctx.mock.enqueue({ toolCalls: [call], finish: upstream === 'openai' ? 'stop' : 'tool_calls',
          usage: { input: 40, output: 9 } });
        const p = base([user], {
          tools: [asAnthropicTool(WEATHER), asAnthropicTool(TIME)],
          tool_choice: { type: 'tool', name: 'get_time' },
        });
        const m = await ask(p, stream);
        expectBlocks(m, undefined, [call]);
        assert.equal(m.stop_reason, 'tool_use');
        expectUsage(m, 40, 9);
        expectUpstream(expected(p, stream, [user],
          { tool_choice: { type: 'function', function: { name: 'get_time' } } }));
        checkWarnings(expectedWarnings(stream));
      });

      test('tool_choice none', async () => {
        ctx.mock.enqueue(says('I cannot look that up right now.', 41, 7));
        const p = base([user], { tool_choice: { type: 'none' } });
        const m = await ask(p, stream);
        expectBlocks(m, 'I cannot look that up right now.', []);
        assert.equal(m.stop_reason, 'end_turn');
        expectUsage(m, 41, 7);
        expectUpstream(expected(p, stream, [user], { tool_choice: 'none' }));
        checkWarnings(expectedWarnings(stream));
      });

      // The SDK's own loop: client.beta.messages.toolRunner (SDK 1.10). By
      // default it runs over a server-side message thread, sending `thread`;
      // the gateway keeps no threads and answers 400 with error_code
      // thread_unsupported_request, on which the runner resends the full
      // history unthreaded. With thread: false it sends the full history
      // from the start. Either way the upstream never sees `thread`.
      for (const threaded of [true, false]) {
        const mode = threaded ? 'default: thread, refused' : 'thread: false';
        test(`beta.messages.toolRunner (${mode})`, async () => {
          const call = { id: ID1, name: 'get_weather', arguments: '{"city":"Paris"}' };
          ctx.mock.enqueue({ text: lead, toolCalls: [call], usage: { input: 50, output: 15 } },
            { text: 'Sunny and 18°C.', usage: { input: 77, output: 6 } });
          const seen = [];
          const runner = client().beta.messages.toolRunner({
            model: MODEL, max_tokens: 256, system: SYSTEM, stream,
            ...(threaded ? {} : { thread: false }),
            messages: [user],
            tools: [betaTool({
              name: WEATHER.name, description: WEATHER.description, inputSchema: WEATHER.schema,
              run: (args) => { seen.push(args); return '18°C, sunny'; },
            })],
          });
          const final = await runner.runUntilDone();
          expectBlocks(final, 'Sunny and 18°C.', []);
          assert.equal(final.stop_reason, 'end_turn');
          expectUsage(final, 77, 6);
          assert.deepEqual(seen, [{ city: 'Paris' }]);

          const statuses = ctx.rec.responses.map((r) => r.status);
          assert.deepEqual(statuses, threaded ? [400, 200, 200] : [200, 200]);
          const reqs = ctx.mock.modelRequests();
          assert.equal(reqs.length, 2);
          for (const r of reqs) assert.equal(r.body.thread, undefined, 'thread went upstream');
          const second = upstreamRequest(ctx, upstream);
          assert.equal(second.stream, stream ? true : undefined);
          if (upstream === 'anthropic') {
            assert.equal(second.system, SYSTEM);
            assert.deepEqual(second.messages, [user, {
              role: 'assistant',
              content: [
                ...(lead ? [{ type: 'text', text: lead }] : []), anAssistant([call]).content[0],
              ],
            }, userBlocks(anResult(ID1, '18°C, sunny'))]);
            assert.deepEqual(second.tools.map((t) => t.name), ['get_weather']);
          } else {
            assert.deepEqual(second.messages, [
              { role: 'system', content: SYSTEM }, user, oaAssistant(lead, [call]),
              { role: 'tool', tool_call_id: ID1, content: '18°C, sunny' },
            ]);
            assert.deepEqual(second.tools.map((t) => t.function.name), ['get_weather']);
          }
          checkWarnings([]);  // (the runner's answers are not collected: its deferred checks)
        });
      }

      // OpenAI-compatible servers may write call ids Anthropic rejects
      // (^[a-zA-Z0-9_-]+$): the client sees the reversible tw- form and the
      // upstream gets its own id back (anthropic_messages README, Call ids).
      if (upstream === 'openai') {
        test('a call id Anthropic would reject round-trips through its tw- form', async () => {
          const call = { id: 'call.2:x', name: 'get_weather', arguments: '{"city":"Paris"}' };
          ctx.mock.enqueue({ toolCalls: [call], usage: { input: 5, output: 5 } },
            { text: 'Done.', usage: { input: 9, output: 2 } });
          const m1 = await ask(base([user]), stream);
          expectBlocks(m1, undefined, [{ ...call, id: 'tw-call-2e2-3ax' }]);
          const p2 = base([user, echo(m1), { role: 'user', content: [
            { type: 'tool_result', tool_use_id: 'tw-call-2e2-3ax', content: 'ok' }] }]);
          const m2 = await ask(p2, stream);
          expectBlocks(m2, 'Done.', []);
          expectUpstream(expected(p2, stream, [user, oaAssistant(undefined, [call]),
            { role: 'tool', tool_call_id: 'call.2:x', content: 'ok' }]));
          checkWarnings(expectedWarnings(stream));
        });
      }

      // A 429 whose retry-after is past the gateway's retry budget comes back
      // at once; a 400 is never retried. Both in Anthropic's shape and class.
      test('upstream errors reach the SDK as its own error classes, in its shape', async () => {
        const c = client();
        const p = base([user]);
        const send = () => (stream ? c.messages.stream(p).finalMessage() : c.messages.create(p));
        ctx.mock.enqueue({ error: {
          status: 429, message: 'Number of request tokens has exceeded your rate limit',
          headers: { 'retry-after': '120' },
        } });
        // The upstream's 429 is the gateway's failure: 503 overloaded_error
        // with the upstream's retry-after, not the caller's rate limit.
        await assert.rejects(send(), (e) => {
          assert.ok(e instanceof Anthropic.InternalServerError,
            `got ${e?.constructor?.name} ${e?.message}`);
          assert.equal(e.status, 503);
          assert.equal(e.headers?.get?.('retry-after') ?? e.headers?.['retry-after'], '120');
          assert.equal(e.error.type, 'error');
          assert.equal(e.error.error.type, 'overloaded_error');
          assert.match(e.message, /exceeded your rate limit/);
          assertNoKeyIn(e.error);
          return true;
        });
        assert.equal(ctx.mock.modelRequests().length, 1);
        ctx.mock.enqueue({ error: { status: 400, message: 'messages.1: bad thing' } });
        await assert.rejects(send(), (e) => {
          assert.ok(e instanceof Anthropic.BadRequestError,
            `got ${e?.constructor?.name} ${e?.message}`);
          assert.equal(e.status, 400);
          assert.equal(e.error.error.type, 'invalid_request_error');
          assert.match(e.message, /bad thing/);
          return true;
        });
        assert.equal(ctx.mock.modelRequests().length, 2);
      });
    });
  }

  test('GET /v1/models (Anthropic shape) and /health', async () => {
    const page = await client().models.list();
    assert.ok(Array.isArray(page.data), JSON.stringify(page));
    const health = await fetch(`${ctx.gw.url}/health`);
    assert.equal(health.status, 200);
    assert.deepEqual(await health.json(), { status: 'ok' });
  });

  test('--upstream-model is the model the upstream gets', async () => {
    const mock = await startMockUpstream();
    const gw = await startGateway({
      mock, upstream, profile: upstream === 'anthropic' ? 'anthropic' : 'openai', upstreamModel: 'upstream-model-x',
      keyEnv: 'TOOLWIRE_TEST_UPSTREAM_KEY', env: { TOOLWIRE_TEST_UPSTREAM_KEY: 'k-2' },
    });
    try {
      mock.enqueue({ text: 'ok', usage: { input: 1, output: 1 } });
      const c = anthropicClient(gw.anthropicBase, { fetch: recordingFetch().fetch });
      const m = await c.messages.create({
        model: MODEL, max_tokens: 16, messages: [{ role: 'user', content: 'hi' }],
      });
      expectBlocks(m, 'ok', []);
      const got = mock.modelRequests();
      assert.equal(got.length, 1);
      assert.equal(got[0].body.model, 'upstream-model-x');
      if (upstream === 'anthropic') assert.equal(got[0].headers['x-api-key'], 'k-2');
      else assert.equal(got[0].headers.authorization, 'Bearer k-2');
    } finally {
      await gw.stop();
      await mock.close();
    }
  });
}
