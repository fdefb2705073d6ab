// The official `openai` client against `toolwire serve`, routed to a scripted
// upstream of either dialect. Every scenario runs non-streamed and streamed
// (chat.completions.create / chat.completions.stream + finalChatCompletion)
// and asserts what the SDK reports and the exact body the upstream received.
import assert from 'node:assert/strict';
import { after, before, describe, test } from 'node:test';
import { startGateway } from '../sdk_support/harness.mjs';
import {
  ANTHROPIC_DEFAULT_MAX_TOKENS, ANTHROPIC_TOOLS, anResult, anUse, OPENAI_TOOLS, oaCall, oaToolMsg,
  scriptedCall, streamFields, upstreamBodies,
} from './common.mjs';

const MODEL = 'gpt-4o-mini';
const SYSTEM = 'You are terse.';

// One completion through the SDK: the final ChatCompletion either way.
async function complete(client, body, stream) {
  if (!stream) return client.chat.completions.create(body);
  const s = client.chat.completions.stream(body);
  const chunks = [];
  s.on('chunk', (c) => chunks.push(c));
  const final = await s.finalChatCompletion();
  assert.ok(chunks.length > 1, 'a stream of several chunks');
  return final;
}

function assertUsage(res, input, output) {
  assert.equal(res.usage?.prompt_tokens, input, `usage ${JSON.stringify(res.usage)}`);
  assert.equal(res.usage?.completion_tokens, output);
  assert.equal(res.usage?.total_tokens, input + output);
}

// The SDK's assembled calls as plain data.
function calls(message) {
  return (message.tool_calls ?? []).map((c) => ({
    id: c.id, type: c.type, name: c.function.name, arguments: c.function.arguments,
  }));
}

// The Anthropic-dialect request the gateway must send for `messages`
// (already in Anthropic shape) and the tools.
function anthropicBody(messages, extra = {}, stream = false) {
  return {
    model: MODEL, max_tokens: ANTHROPIC_DEFAULT_MAX_TOKENS, system: SYSTEM, messages,
    tools: ANTHROPIC_TOOLS, ...extra, ...streamFields('anthropic', stream),
  };
}

// The OpenAI request body with the two tools.
function ask(messages, extra = {}) {
  return { model: MODEL, messages, tools: OPENAI_TOOLS, ...extra };
}

export function openaiClientSuite(upstream) {
  describe(`openai SDK -> toolwire serve -> ${upstream} upstream`, () => {
    let gw;
    before(async () => { gw = await startGateway({ upstream }); });
    after(async () => { await gw?.stop(); });

    for (const stream of [false, true]) {
      const mode = stream ? 'stream' : 'non-stream';
      const sf = streamFields(upstream, stream);

      test(`two-round tool conversation (${mode})`, async () => {
        gw.mock.script(
          { text: 'Checking.',
            toolCalls: [scriptedCall('call_w1', 'get_weather', '{"city":"Paris"}')],
            usage: { input: 31, output: 12 } },
          { text: 'It is 18C and sunny in Paris.', usage: { input: 57, output: 9 } },
        );
        const messages = [
          { role: 'system', content: SYSTEM },
          { role: 'user', content: 'Weather in Paris?' },
        ];
        const r1 = await complete(gw.openai, ask(messages), stream);
        const m1 = r1.choices[0].message;
        assert.equal(r1.choices[0].finish_reason, 'tool_calls');
        assert.equal(m1.role, 'assistant');
        assert.equal(m1.content, 'Checking.');
        assert.deepStrictEqual(calls(m1),
          [{ id: 'call_w1', type: 'function', name: 'get_weather',
            arguments: '{"city":"Paris"}' }]);
        assertUsage(r1, 31, 12);

        const history = [
          ...messages,
          { role: 'assistant', content: m1.content, tool_calls: m1.tool_calls.map((c) =>
            oaCall(c.id, c.function.name, c.function.arguments)) },
          oaToolMsg('call_w1', '18C, sunny'),
        ];
        const r2 = await complete(gw.openai, ask(history), stream);
        assert.equal(r2.choices[0].finish_reason, 'stop');
        assert.equal(r2.choices[0].message.content, 'It is 18C and sunny in Paris.');
        assert.deepStrictEqual(r2.choices[0].message.tool_calls ?? [], []);
        assertUsage(r2, 57, 9);

        const [b1, b2] = upstreamBodies(gw.mock, upstream, 2);
        if (upstream === 'openai') {
          assert.deepStrictEqual(b1, { ...ask(messages), ...sf });
          assert.deepStrictEqual(b2, { ...ask(history), ...sf });
        } else {
          const user = { role: 'user', content: 'Weather in Paris?' };
          assert.deepStrictEqual(b1, anthropicBody([user], {}, stream));
          assert.deepStrictEqual(b2, anthropicBody([
            user,
            { role: 'assistant', content: [
              { type: 'text', text: 'Checking.' },
              anUse('call_w1', 'get_weather', { city: 'Paris' }),
            ] },
            { role: 'user', content: [anResult('call_w1', '18C, sunny')] },
          ], {}, stream));
        }
      });

      test(`two parallel calls, both answered (${mode})`, async () => {
        const scripted = [
          scriptedCall('call_p1', 'get_weather', '{"city":"Oslo"}'),
          scriptedCall('call_p2', 'get_time', '{"tz":"Europe/Oslo"}'),
        ];
        gw.mock.script(
          { toolCalls: scripted, usage: { input: 40, output: 22 } },
          { text: 'Oslo: 3C, 14:05.', usage: { input: 80, output: 7 } },
        );
        const messages = [
          { role: 'system', content: SYSTEM }, { role: 'user', content: 'Oslo weather and time?' },
        ];
        const r1 = await complete(gw.openai, ask(messages), stream);
        const m1 = r1.choices[0].message;
        assert.equal(r1.choices[0].finish_reason, 'tool_calls');
        assert.ok(m1.content === null || m1.content === '',
          `content ${JSON.stringify(m1.content)}`);
        assert.deepStrictEqual(calls(m1), scripted.map((c) => ({ ...c, type: 'function' })));
        assertUsage(r1, 40, 22);

        const history = [
          ...messages,
          { role: 'assistant', content: null,
            tool_calls: scripted.map((c) => oaCall(c.id, c.name, c.arguments)) },
          oaToolMsg('call_p1', '3C'),
          oaToolMsg('call_p2', '14:05'),
        ];
        const r2 = await complete(gw.openai, ask(history), stream);
        assert.equal(r2.choices[0].finish_reason, 'stop');
        assert.equal(r2.choices[0].message.content, 'Oslo: 3C, 14:05.');
        assertUsage(r2, 80, 7);

        const [b1, b2] = upstreamBodies(gw.mock, upstream, 2);
        if (upstream === 'openai') {
          assert.deepStrictEqual(b1, { ...ask(messages), ...sf });
          assert.deepStrictEqual(b2, { ...ask(history), ...sf });
        } else {
          const user = { role: 'user', content: 'Oslo weather and time?' };
          assert.deepStrictEqual(b1, anthropicBody([user], {}, stream));
          assert.deepStrictEqual(b2, anthropicBody([
            user,
            { role: 'assistant', content: [
              anUse('call_p1', 'get_weather', { city: 'Oslo' }),
              anUse('call_p2', 'get_time', { tz: 'Europe/Oslo' }),
            ] },
            { role: 'user', content: [anResult('call_p1', '3C'), anResult('call_p2', '14:05')] },
          ], {}, stream));
        }
      });

      // OpenAI tool messages have no error flag; the codec's convention is a
      // leading "Error: " (src/dialects/openai_chat/README.md), which becomes
      // Anthropic's is_error.
      test(`an error tool result (${mode})`, async () => {
        gw.mock.script({ text: 'No such city.', usage: { input: 44, output: 4 } });
        const history = [
          { role: 'system', content: SYSTEM },
          { role: 'user', content: 'Weather in Atlantis?' },
          { role: 'assistant', content: null,
            tool_calls: [oaCall('call_e1', 'get_weather', '{"city":"Atlantis"}')] },
          oaToolMsg('call_e1', 'Error: unknown city'),
        ];
        const r = await complete(gw.openai, ask(history), stream);
        assert.equal(r.choices[0].finish_reason, 'stop');
        assert.equal(r.choices[0].message.content, 'No such city.');
        assertUsage(r, 44, 4);
        const [b] = upstreamBodies(gw.mock, upstream, 1);
        if (upstream === 'openai') {
          assert.deepStrictEqual(b, { ...ask(history), ...sf });
        } else {
          assert.deepStrictEqual(b, anthropicBody([
            { role: 'user', content: 'Weather in Atlantis?' },
            { role: 'assistant', content: [
              anUse('call_e1', 'get_weather', { city: 'Atlantis' }),
            ] },
            { role: 'user', content: [anResult('call_e1', 'unknown city', { is_error: true })] },
          ], {}, stream));
        }
      });

      test(`tool_choice forces a named tool (${mode})`, async () => {
        gw.mock.script({ toolCalls: [scriptedCall('call_t1', 'get_time', '{"tz":"UTC"}')],
          usage: { input: 20, output: 6 } });
        const messages = [{ role: 'system', content: SYSTEM }, { role: 'user', content: 'Time?' }];
        const tool_choice = { type: 'function', function: { name: 'get_time' } };
        const r = await complete(gw.openai, ask(messages, { tool_choice }), stream);
        assert.equal(r.choices[0].finish_reason, 'tool_calls');
        assert.deepStrictEqual(calls(r.choices[0].message),
          [{ id: 'call_t1', type: 'function', name: 'get_time', arguments: '{"tz":"UTC"}' }]);
        assertUsage(r, 20, 6);
        const [b] = upstreamBodies(gw.mock, upstream, 1);
        if (upstream === 'openai') {
          assert.deepStrictEqual(b, { ...ask(messages, { tool_choice }), ...sf });
        } else {
          assert.deepStrictEqual(b, anthropicBody([{ role: 'user', content: 'Time?' }],
            { tool_choice: { type: 'tool', name: 'get_time' } }, stream));
        }
      });

      test(`tool_choice none (${mode})`, async () => {
        gw.mock.script({ text: 'I will not call tools.', usage: { input: 18, output: 5 } });
        const messages = [
          { role: 'system', content: SYSTEM }, { role: 'user', content: 'Just talk.' },
        ];
        const r = await complete(gw.openai, ask(messages, { tool_choice: 'none' }), stream);
        assert.equal(r.choices[0].finish_reason, 'stop');
        assert.equal(r.choices[0].message.content, 'I will not call tools.');
        assertUsage(r, 18, 5);
        const [b] = upstreamBodies(gw.mock, upstream, 1);
        if (upstream === 'openai') {
          assert.deepStrictEqual(b, { ...ask(messages, { tool_choice: 'none' }), ...sf });
        } else {
          assert.deepStrictEqual(b, anthropicBody([{ role: 'user', content: 'Just talk.' }],
            { tool_choice: { type: 'none' } }, stream));
        }
      });

      // Reasoning and sampling in the client's terms reach the upstream in its
      // own: Anthropic takes a thinking budget and no seed (common/reasoning.h).
      test(`reasoning_effort and seed reach the upstream in its terms (${mode})`, async () => {
        gw.mock.script({ text: 'Thought about it.', usage: { input: 12, output: 4 } });
        const messages = [{ role: 'system', content: SYSTEM }, { role: 'user', content: 'Think.' }];
        const extra = { reasoning_effort: 'low', seed: 3, max_completion_tokens: 4096 };
        const r = await complete(gw.openai, ask(messages, extra), stream);
        assert.equal(r.choices[0].message.content, 'Thought about it.');
        const [b] = upstreamBodies(gw.mock, upstream, 1);
        if (upstream === 'openai') {
          assert.deepStrictEqual(b, { ...ask(messages, extra), ...sf });
        } else {
          assert.deepStrictEqual(b, anthropicBody([{ role: 'user', content: 'Think.' }],
            { thinking: { type: 'enabled', budget_tokens: 1024 } }, stream));
        }
      });

      // The SDK's own tool loop: it runs the function, appends the assistant
      // message (as the SDK returned it) and the tool message, and calls again.
      test(`chat.completions.runTools runs a two-round conversation (${mode})`, async () => {
        gw.mock.script(
          { text: 'Let me look.',
            toolCalls: [scriptedCall('call_r1', 'get_weather', '{"city":"Rome"}')],
            usage: { input: 25, output: 11 } },
          { text: 'Rome: 24C.', usage: { input: 49, output: 5 } },
        );
        const seen = [];
        const first = [
          { role: 'system', content: SYSTEM }, { role: 'user', content: 'Weather in Rome?' },
        ];
        const runner = gw.openai.chat.completions.runTools({
          model: MODEL,
          messages: first,
          tools: [{ type: 'function', function: {
            name: 'get_weather', description: OPENAI_TOOLS[0].function.description,
            parameters: OPENAI_TOOLS[0].function.parameters, parse: JSON.parse,
            function: (args) => { seen.push(args); return '24C'; },
          } }],
          ...(stream ? { stream: true } : {}),
        });
        const content = await runner.finalContent();
        assert.equal(content, 'Rome: 24C.');
        assert.deepStrictEqual(seen, [{ city: 'Rome' }]);
        const final = await runner.finalChatCompletion();
        assert.equal(final.choices[0].finish_reason, 'stop');
        assertUsage({ usage: await runner.totalUsage() }, 25 + 49, 11 + 5);

        const [b1, b2] = upstreamBodies(gw.mock, upstream, 2);
        const tool = [OPENAI_TOOLS[0]];
        if (upstream === 'openai') {
          // The runner sends tool_choice "auto" itself.
          assert.deepStrictEqual(b1,
            { model: MODEL, messages: first, tools: tool, tool_choice: 'auto', ...sf });
          // Only the fields that matter of the SDK's echoed assistant message
          // (it also carries refusal / parsed / annotations as the SDK built it).
          assert.equal(b2.model, MODEL);
          assert.deepStrictEqual(b2.tools, tool);
          assert.equal(b2.tool_choice, 'auto');
          assert.deepStrictEqual(b2.messages.slice(0, 2), first);
          assert.equal(b2.messages.length, 4);
          const a = b2.messages[2];
          assert.equal(a.role, 'assistant');
          assert.equal(a.content, 'Let me look.');
          assert.deepStrictEqual(a.tool_calls,
            [oaCall('call_r1', 'get_weather', '{"city":"Rome"}')]);
          assert.deepStrictEqual(b2.messages[3], oaToolMsg('call_r1', '24C'));
          assert.equal(b2.stream, sf.stream);
          assert.deepStrictEqual(b2.stream_options, sf.stream_options);
        } else {
          const aTool = [ANTHROPIC_TOOLS[0]];
          const user = { role: 'user', content: 'Weather in Rome?' };
          const auto = { tool_choice: { type: 'auto' } };
          assert.deepStrictEqual(b1, { ...anthropicBody([user], auto, stream), tools: aTool });
          assert.deepStrictEqual(b2, { ...anthropicBody([
            user,
            { role: 'assistant', content: [
              { type: 'text', text: 'Let me look.' },
              anUse('call_r1', 'get_weather', { city: 'Rome' }),
            ] },
            { role: 'user', content: [anResult('call_r1', '24C')] },
          ], auto, stream), tools: aTool });
        }
      });
    }
  });
}
