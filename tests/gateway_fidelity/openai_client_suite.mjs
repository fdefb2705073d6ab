// The official `openai` SDK as a client of `toolwire serve`, in front of an
// upstream of either dialect (the mock, mock_upstream.mjs). Each scenario runs
// whole and streamed; each checks what the SDK got (ids, names, arguments,
// text, finish reason, usage, the toolwire-warnings header) and the exact
// request the upstream got (parsed JSON, deep-equal), derived from the codec
// READMEs: same dialect passes through unchanged; to Anthropic, system
// messages become `system`, max_completion_tokens becomes max_tokens, tool
// messages become tool_result blocks in one user message (an "Error: " prefix
// becomes is_error), tool_choice maps to {type: tool|none|auto}, and
// stream_options is dropped with a warning.
import assert from 'node:assert/strict';
import { beforeEach, describe, test } from 'node:test';

import {
  anResult, asAnthropicTool, asOpenAITool, assertNoKeyIn, CALL_IDS, ERROR_TEXT, oaToolMsg, PNG_B64,
  QUESTION, says, settle, SYSTEM, TIME, upstreamRequest, useGateway, userBlocks, WEATHER,
} from './common.mjs';
import { openaiClient, OpenAI, recordingFetch } from '../sdk_support/clients.mjs';
import { startGateway, warningsOf } from '../sdk_support/harness.mjs';
import { startMockUpstream } from '../sdk_support/mock_upstream.mjs';

const MODEL = 'gpt-4o';

export function openaiClientSuite(upstream) {
  const ctx = useGateway(upstream);
  const client = () => openaiClient(ctx.gw.openaiBase, { fetch: ctx.rec.fetch });
  const [ID1, ID2] = CALL_IDS[upstream];
  // Anthropic models usually say something before a call; OpenAI's do not.
  const lead = upstream === 'anthropic' ? 'Let me check.' : undefined;

  // One request through the gateway; the completion, its first choice and
  // the warnings header of the response.
  async function ask(params, stream) {
    const c = client();
    const completion = stream
      ? await c.chat.completions.stream({ ...params, stream_options: { include_usage: true } })
        .finalChatCompletion()
      : await c.chat.completions.create(params);
    const res = ctx.rec.responses.at(-1);
    assert.equal(res.status, 200);
    assertNoKeyIn(completion);
    warned.push(warningsOf(res.headers));
    return { completion, choice: completion.choices[0] };
  }
  // The toolwire-warnings of every answer of a test, checked at its end (so
  // that a wrong header does not hide the other checks).
  const warned = [];
  const later = [];
  beforeEach(() => { warned.length = 0; later.length = 0; });
  const checkWarnings = (expect) => settle(warned, later, expect);
  // The upstream's last request (path and auth checked now), deep-equal to
  // `want` at the test's end: a difference there does not stop the rest of
  // the conversation.
  const expectUpstream = (want) => {
    const got = upstreamRequest(ctx, upstream);
    later.push(() => assert.deepEqual(got, want, 'the request the upstream got'));
  };

  function base(messages, stream, extra = {}) {
    return {
      model: MODEL, messages, tools: [asOpenAITool(WEATHER)], max_completion_tokens: 256, ...extra,
    };
  }

  // What the client sent, as the SDK wrote it (the stream helper adds these).
  const sent = (params, stream) =>
    (stream ? { ...params, stream: true, stream_options: { include_usage: true } } : params);

  // The request the upstream must get for a client request `params`; for
  // Anthropic, `messages` are given in Anthropic's form by the test.
  function expected(params, stream, anthropicMessages, anthropicExtra = {}) {
    if (upstream === 'openai') return sent(params, stream);
    const b = { model: MODEL, max_tokens: 256, system: SYSTEM, messages: anthropicMessages };
    if (params.tools) b.tools = params.tools.map((t) => asAnthropicTool({
      name: t.function.name, description: t.function.description, schema: t.function.parameters,
    }));
    Object.assign(b, anthropicExtra);
    if (stream) b.stream = true;
    return b;
  }

  // Anthropic's answers carry usage.service_tier, which OpenAI Chat has no
  // place for: dropped with the documented warning (issue 23: no field is
  // lost silently). A stream's headers leave before the answer.
  const expectedWarnings = (stream) => {
    if (upstream !== 'anthropic') return [];
    return stream ? ['dropped_unknown_field ($.stream_options)']
      : ['dropped_unknown_field ($.usage.service_tier)'];
  };

  function expectCalls(choice, calls) {
    const got = choice.message.tool_calls ?? [];
    assert.equal(got.length, calls.length, `tool_calls: ${JSON.stringify(got)}`);
    calls.forEach((c, i) => {
      assert.equal(got[i].id, c.id);
      assert.equal(got[i].type, 'function');
      assert.equal(got[i].function.name, c.name);
      assert.deepEqual(JSON.parse(got[i].function.arguments), JSON.parse(c.arguments));
      // Same dialect: the upstream's argument text passes through verbatim.
      if (upstream === 'openai') assert.equal(got[i].function.arguments, c.arguments);
    });
  }

  // Deferred to the test's end (checkWarnings), so a wrong count does not
  // hide the checks of the upstream's request.
  function expectUsage(completion, input, output) {
    const u = completion.usage;
    later.push(() => assert.deepEqual(
      [u?.prompt_tokens, u?.completion_tokens, u?.total_tokens], [input, output, input + output],
      `usage (prompt, completion, total) of ${JSON.stringify(completion)}`));
  }

  // The assistant message a client sends back, from the completion.
  // (A streamed tool-only turn may have accumulated content '': sent as null,
  // see 'a streamed tool-only turn accumulates content null'.)
  const echo = (choice) => ({
    role: 'assistant', content: choice.message.content || null,
    tool_calls: choice.message.tool_calls.map((c) => ({
      id: c.id, type: 'function',
      function: { name: c.function.name, arguments: c.function.arguments },
    })),
  });
  // An assistant turn of calls only, as a client writes it.
  const oaAssistant = (calls) => ({
    role: 'assistant', content: null,
    tool_calls: calls.map((c) => ({
      id: c.id, type: 'function', function: { name: c.name, arguments: c.arguments },
    })),
  });
  // The same, as Anthropic must get it.
  const anEcho = (text, calls) => ({
    role: 'assistant',
    content: [
      ...(text ? [{ type: 'text', text }] : []),
      ...calls.map((c) =>
        ({ type: 'tool_use', id: c.id, name: c.name, input: JSON.parse(c.arguments) })),
    ],
  });
  const sys = { role: 'system', content: SYSTEM };
  const user = { role: 'user', content: QUESTION };

  for (const stream of [false, true]) {
    describe(stream ? 'streamed' : 'whole', () => {
      test('two-round tool conversation', async () => {
        const call = { id: ID1, name: 'get_weather', arguments: '{"city":"Paris"}' };
        ctx.mock.enqueue({ text: lead, toolCalls: [call], usage: { input: 52, output: 17 } },
          { text: 'It is 18°C and sunny in Paris.', usage: { input: 80, output: 12 } });

        const p1 = base([sys, user], stream);
        const r1 = await ask(p1, stream);
        if (lead || !stream) assert.equal(r1.choice.message.content, lead ?? null);
        expectCalls(r1.choice, [call]);
        assert.equal(r1.choice.finish_reason, 'tool_calls');
        expectUsage(r1.completion, 52, 17);
        expectUpstream(expected(p1, stream, [{ role: 'user', content: QUESTION }]));

        const p2 = base([sys, user, echo(r1.choice),
          { role: 'tool', tool_call_id: ID1, content: '18°C, sunny' }], stream);
        const r2 = await ask(p2, stream);
        assert.equal(r2.choice.message.content, 'It is 18°C and sunny in Paris.');
        assert.equal((r2.choice.message.tool_calls ?? []).length, 0);
        assert.equal(r2.choice.finish_reason, 'stop');
        expectUsage(r2.completion, 80, 12);
        expectUpstream(expected(p2, stream, [
          { role: 'user', content: QUESTION },
          anEcho(lead, [call]),
          userBlocks(anResult(ID1, '18°C, sunny')),
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
        const tools = [asOpenAITool(WEATHER), asOpenAITool(TIME)];
        const p1 = base([sys, user], stream, { tools });
        const r1 = await ask(p1, stream);
        expectCalls(r1.choice, calls);
        assert.equal(r1.choice.finish_reason, 'tool_calls');
        expectUsage(r1.completion, 60, 30);
        expectUpstream(expected(p1, stream, [{ role: 'user', content: QUESTION }]));

        const p2 = base([sys, user, echo(r1.choice),
          { role: 'tool', tool_call_id: ID1, content: '18°C, sunny' },
          { role: 'tool', tool_call_id: ID2, content: '14:05' }], stream, { tools });
        const r2 = await ask(p2, stream);
        assert.equal(r2.choice.message.content, 'Sunny, 18°C; it is 14:05.');
        assert.equal(r2.choice.finish_reason, 'stop');
        expectUsage(r2.completion, 101, 11);
        expectUpstream(expected(p2, stream, [
          { role: 'user', content: QUESTION },
          anEcho(lead, calls),
          { role: 'user', content: [
            { type: 'tool_result', tool_use_id: ID1, content: '18°C, sunny' },
            { type: 'tool_result', tool_use_id: ID2, content: '14:05' },
          ] },
        ]));
        checkWarnings(expectedWarnings(stream));
      });

      // OpenAI has no error flag: the convention is the "Error: " prefix,
      // which reaches Anthropic as is_error: true without it.
      test('an error tool result ("Error: " prefix)', async () => {
        const call = { id: ID1, name: 'get_weather', arguments: '{"city":"Paris"}' };
        ctx.mock.enqueue(says('The weather service is down; try again later.', 90, 10));
        const p = base([sys, user, oaAssistant([call]),
          { role: 'tool', tool_call_id: ID1, content: `Error: ${ERROR_TEXT}` }], stream);
        const r = await ask(p, stream);
        assert.equal(r.choice.message.content, 'The weather service is down; try again later.');
        assert.equal(r.choice.finish_reason, 'stop');
        expectUsage(r.completion, 90, 10);
        expectUpstream(expected(p, stream, [
          { role: 'user', content: QUESTION },
          anEcho(undefined, [call]),
          userBlocks(anResult(ID1, ERROR_TEXT, { is_error: true })),
        ]));
        checkWarnings(expectedWarnings(stream));
      });

      // An OpenAI tool message cannot hold an image (text parts only), so an
      // OpenAI client sends the tool's image in a user message after it;
      // Anthropic gets it in the same user turn, after the tool_result.
      test('an image returned by a tool (user message after the tool message)', async () => {
        const call = { id: ID1, name: 'get_weather', arguments: '{"city":"Paris"}' };
        ctx.mock.enqueue(says('The radar shows clear skies.', 300, 8));
        const p = base([sys, user, oaAssistant([call]),
          { role: 'tool', tool_call_id: ID1, content: 'Rendered the radar image.' },
          { role: 'user', content: [{ type: 'text', text: 'Radar image:' },
            { type: 'image_url', image_url: { url: `data:image/png;base64,${PNG_B64}` } }] }],
        stream);
        const r = await ask(p, stream);
        assert.equal(r.choice.message.content, 'The radar shows clear skies.');
        assert.equal(r.choice.finish_reason, 'stop');
        expectUsage(r.completion, 300, 8);
        expectUpstream(expected(p, stream, [
          { role: 'user', content: QUESTION },
          anEcho(undefined, [call]),
          { role: 'user', content: [
            { type: 'tool_result', tool_use_id: ID1, content: 'Rendered the radar image.' },
            { type: 'text', text: 'Radar image:' },
            { type: 'image', source: { type: 'base64', media_type: 'image/png', data: PNG_B64 } },
          ] },
        ]));
        checkWarnings(expectedWarnings(stream));
      });

      // OpenAI answers a named tool_choice with finish_reason "stop" (not
      // "tool_calls"); a turn with a call must still reach the client as
      // tool_calls.
      test('tool_choice forcing a named tool', async () => {
        const call = { id: ID1, name: 'get_time', arguments: '{"tz":"Europe/Paris"}' };
        ctx.mock.enqueue({ toolCalls: [call], finish: upstream === 'openai' ? 'stop' : 'tool_calls',
          usage: { input: 40, output: 9 } });
        const p = base([sys, user], stream, {
          tools: [asOpenAITool(WEATHER), asOpenAITool(TIME)],
          tool_choice: { type: 'function', function: { name: 'get_time' } },
        });
        const r = await ask(p, stream);
        expectCalls(r.choice, [call]);
        if (!stream) assert.equal(r.choice.message.content, null);
        assert.equal(r.choice.finish_reason, 'tool_calls');
        expectUsage(r.completion, 40, 9);
        expectUpstream(expected(p, stream,
          [{ role: 'user', content: QUESTION }],
          { tool_choice: { type: 'tool', name: 'get_time' } }));
        checkWarnings(expectedWarnings(stream));
      });

      test('tool_choice none', async () => {
        ctx.mock.enqueue(says('I cannot look that up right now.', 41, 7));
        const p = base([sys, user], stream, { tool_choice: 'none' });
        const r = await ask(p, stream);
        assert.equal(r.choice.message.content, 'I cannot look that up right now.');
        assert.equal((r.choice.message.tool_calls ?? []).length, 0);
        assert.equal(r.choice.finish_reason, 'stop');
        expectUsage(r.completion, 41, 7);
        expectUpstream(expected(p, stream,
          [{ role: 'user', content: QUESTION }], { tool_choice: { type: 'none' } }));
        checkWarnings(expectedWarnings(stream));
      });

      // The SDK's own loop: chat.completions.runTools (openai 7.x).
      test('chat.completions.runTools runs the call and gets the answer', async () => {
        const call = { id: ID1, name: 'get_weather', arguments: '{"city":"Paris"}' };
        ctx.mock.enqueue({ text: lead, toolCalls: [call], usage: { input: 50, output: 15 } },
          { text: 'Sunny and 18°C.', usage: { input: 77, output: 6 } });
        const seen = [];
        const runner = client().chat.completions.runTools({
          model: MODEL, max_completion_tokens: 256, stream,
          ...(stream ? { stream_options: { include_usage: true } } : {}),
          messages: [sys, user],
          tools: [{ type: 'function', function: {
            name: WEATHER.name, description: WEATHER.description, parameters: WEATHER.schema,
            parse: JSON.parse, function: (args) => { seen.push(args); return '18°C, sunny'; },
          } }],
        });
        assert.equal(await runner.finalContent(), 'Sunny and 18°C.');
        assert.deepEqual(seen, [{ city: 'Paris' }]);
        const final = await runner.finalChatCompletion();
        assert.equal(final.choices[0].finish_reason, 'stop');
        expectUsage(final, 77, 6);
        const total = await runner.totalUsage();
        assert.equal(total.prompt_tokens, 127);
        assert.equal(total.completion_tokens, 21);

        const reqs = ctx.mock.modelRequests();
        assert.equal(reqs.length, 2);
        const second = upstreamRequest(ctx, upstream);
        if (upstream === 'openai') {
          assert.equal(second.tool_choice, 'auto');
          assert.deepEqual(second.messages.map((m) => m.role),
            ['system', 'user', 'assistant', 'tool']);
          assert.deepEqual(
            second.messages[2].tool_calls.map((c) => [c.id, c.function.name, c.function.arguments]),
            [[ID1, 'get_weather', '{"city":"Paris"}']]);
          assert.deepEqual(second.messages[3], oaToolMsg(ID1, '18°C, sunny'));
          assert.equal(second.stream, stream ? true : undefined);
        } else {
          assert.deepEqual(second.tool_choice, { type: 'auto' });
          assert.equal(second.system, SYSTEM);
          assert.deepEqual(second.messages, [
            { role: 'user', content: QUESTION },
            anEcho(lead, [call]),
            userBlocks(anResult(ID1, '18°C, sunny')),
          ]);
          assert.deepEqual(second.tools.map((t) => t.name), ['get_weather']);
          assert.equal(second.stream, stream ? true : undefined);
        }
        checkWarnings([]);  // (the runner's answers are not collected: its deferred checks)
      });

      // A 429 whose retry-after is past the gateway's own retry budget comes
      // back at once (the transport retries 429/5xx otherwise) as the
      // gateway's failure, 503 with the upstream's retry-after (a 429 would
      // tell the SDK that its own key is rate-limited); a 400 about the
      // request's content is the client's and never retried. Both in the
      // client's error shape and SDK class.
      test('upstream errors reach the SDK as its own error classes, in its shape', async () => {
        const c = client();
        const p = base([sys, user], stream);
        const send = () => (stream
          ? c.chat.completions.stream({ ...p, stream_options: { include_usage: true } })
            .finalChatCompletion()
          : c.chat.completions.create(p));
        ctx.mock.enqueue({ error: { status: 429, message: 'Rate limit reached for requests',
          headers: { 'retry-after': '120' } } });
        await assert.rejects(send(), (e) => {
          assert.ok(e instanceof OpenAI.InternalServerError,
            `got ${e?.constructor?.name} ${e?.message}`);
          assert.equal(e.status, 503);
          assert.equal(e.headers?.get?.('retry-after') ?? e.headers?.['retry-after'], '120');
          assert.notEqual(e.error.type, 'rate_limit_error');
          assert.match(e.message, /upstream .* answered 429/);
          assert.match(e.message, /Rate limit reached for requests/);
          assertNoKeyIn(e.error);
          return true;
        });
        assert.equal(ctx.mock.modelRequests().length, 1);
        ctx.mock.enqueue({ error: { status: 400, message: 'messages: bad thing at index 1' } });
        await assert.rejects(send(), (e) => {
          assert.ok(e instanceof OpenAI.BadRequestError,
            `got ${e?.constructor?.name} ${e?.message}`);
          assert.equal(e.status, 400);
          assert.equal(e.error.type, 'invalid_request_error');
          assert.match(e.message, /bad thing at index 1/);
          return true;
        });
        assert.equal(ctx.mock.modelRequests().length, 2);
      });

      // Anthropic reports cache reads and writes apart from input_tokens;
      // OpenAI's prompt_tokens include both, cached_tokens counts the reads,
      // and a write count has no field: dropped with a warning (whole answers
      // only: a stream's headers leave before its usage).
      if (upstream === 'anthropic') {
        test('cache token counts', async () => {
          ctx.mock.enqueue({
            text: 'Cached.', usage: { input: 10, output: 3, cacheRead: 100, cacheWrite: 20 },
          });
          const r = await ask(base([sys, user], stream), stream);
          assert.equal(r.choice.message.content, 'Cached.');
          expectUsage(r.completion, 130, 3);
          assert.equal(r.completion.usage.prompt_tokens_details?.cached_tokens, 100);
          checkWarnings(stream
            ? expectedWarnings(stream)
            : ['dropped_cache_write_tokens ($.usage)', ...expectedWarnings(stream)].sort());
        });
      }

      if (stream) {
        // OpenAI streams a turn that opens with a call as
        // {"role":"assistant","content":null,"tool_calls":[...]}: the SDK's
        // accumulated message then has content null, as in a whole response.
        test('a streamed tool-only turn accumulates content null, as from OpenAI', async () => {
          const call = { id: ID1, name: 'get_weather', arguments: '{"city":"Paris"}' };
          ctx.mock.enqueue({ toolCalls: [call], usage: { input: 5, output: 5 } });
          const r = await ask(base([sys, user], stream), stream);
          expectCalls(r.choice, [call]);
          assert.equal(r.choice.message.content, null);
        });
      }
    });
  }

  test('GET /v1/models and /health', async () => {
    const models = await client().models.list();
    assert.ok(Array.isArray(models.data), JSON.stringify(models));
    const health = await fetch(`${ctx.gw.url}/health`);
    assert.equal(health.status, 200);
    assert.deepEqual(await health.json(), { status: 'ok' });
  });

  // A gateway of its own: --upstream-model renames the model on the way up.
  test('--upstream-model is the model the upstream gets', async () => {
    const mock = await startMockUpstream();
    const gw = await startGateway({
      mock, upstream, profile: upstream === 'anthropic' ? 'anthropic' : 'openai', upstreamModel: 'upstream-model-x',
      keyEnv: 'TOOLWIRE_TEST_UPSTREAM_KEY', env: { TOOLWIRE_TEST_UPSTREAM_KEY: 'k-2' },
    });
    try {
      mock.enqueue({ text: 'ok', usage: { input: 1, output: 1 } });
      const rec = recordingFetch();
      const r = await openaiClient(gw.openaiBase, { fetch: rec.fetch }).chat.completions.create({
        model: MODEL, messages: [{ role: 'user', content: 'hi' }], max_completion_tokens: 16,
      });
      assert.equal(r.choices[0].message.content, 'ok');
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
