// The official `@anthropic-ai/sdk` client against `toolwire serve`, routed to
// a scripted upstream of either dialect. Every scenario runs non-streamed and
// streamed (messages.create / messages.stream + finalMessage) and asserts what
// the SDK reports and the exact body the upstream received.
import assert from 'node:assert/strict';
import { after, before, describe, test } from 'node:test';
import { betaTool } from '../sdk_support/clients.mjs';
import { startGateway } from '../sdk_support/harness.mjs';
import {
  ANTHROPIC_TOOLS, anResult, anUse, OPENAI_TOOLS, oaCall, oaToolMsg, PNG_B64, scriptedCall,
  streamFields, upstreamBodies, WEATHER_SCHEMA,
} from './common.mjs';

const MODEL = 'claude-gateway-test';
const SYSTEM = 'You are terse.';
const MAX_TOKENS = 256;

// One message through the SDK: { message, response } either way (the HTTP
// response gives the toolwire-warnings header).
async function send(client, body, stream) {
  if (!stream) {
    const { data, response } = await client.messages.create(body).withResponse();
    return { message: data, response };
  }
  const s = client.messages.stream(body);
  const events = [];
  s.on('streamEvent', (e) => events.push(e.type));
  const { response } = await s.withResponse();
  const message = await s.finalMessage();
  assert.equal(events[0], 'message_start');
  assert.equal(events.at(-1), 'message_stop');
  return { message, response };
}

function assertUsage(message, input, output) {
  assert.equal(message.usage?.input_tokens, input, `usage ${JSON.stringify(message.usage)}`);
  assert.equal(message.usage?.output_tokens, output);
}

// The SDK's content blocks as plain data (only the fields the API defines for
// text and tool_use blocks; a text block's citations must be absent or null).
function blocks(message) {
  return message.content.map((b) => {
    if (b.type === 'text') {
      assert.ok(b.citations === undefined || b.citations === null,
        `citations ${JSON.stringify(b.citations)}`);
      return { type: 'text', text: b.text };
    }
    if (b.type === 'tool_use') return { type: 'tool_use', id: b.id, name: b.name, input: b.input };
    return b;
  });
}

// The OpenAI-dialect request the gateway must send for `messages` (already in
// OpenAI shape).
function openaiBody(messages, extra = {}, stream = false) {
  return {
    model: MODEL, messages: [{ role: 'system', content: SYSTEM }, ...messages], tools: OPENAI_TOOLS,
    max_completion_tokens: MAX_TOKENS, ...extra, ...streamFields('openai', stream),
  };
}

function anthropicBody(messages, extra = {}, stream = false) {
  return {
    ...request(messages, extra), ...streamFields('anthropic', stream),
  };
}

function request(messages, extra = {}) {
  return {
    model: MODEL, max_tokens: MAX_TOKENS, system: SYSTEM, messages, tools: ANTHROPIC_TOOLS,
    ...extra,
  };
}

export function anthropicClientSuite(upstream) {
  describe(`anthropic SDK -> toolwire serve -> ${upstream} upstream`, () => {
    let gw;
    before(async () => { gw = await startGateway({ upstream }); });
    after(async () => { await gw?.stop(); });

    for (const stream of [false, true]) {
      const mode = stream ? 'stream' : 'non-stream';

      test(`two-round tool conversation (${mode})`, async () => {
        gw.mock.script(
          { text: 'Checking.',
            toolCalls: [scriptedCall('toolu_w1', 'get_weather', '{"city":"Paris"}')],
            usage: { input: 31, output: 12 } },
          { text: 'It is 18C and sunny in Paris.', usage: { input: 57, output: 9 } },
        );
        const user = { role: 'user', content: 'Weather in Paris?' };
        const { message: m1 } = await send(gw.anthropic, request([user]), stream);
        assert.equal(m1.role, 'assistant');
        assert.equal(m1.stop_reason, 'tool_use');
        const assistant = [
          { type: 'text', text: 'Checking.' },
          anUse('toolu_w1', 'get_weather', { city: 'Paris' }),
        ];
        assert.deepStrictEqual(blocks(m1), assistant);
        assertUsage(m1, 31, 12);

        const result = { role: 'user', content: [anResult('toolu_w1', '18C, sunny')] };
        const history = [user, { role: 'assistant', content: assistant }, result];
        const { message: m2 } = await send(gw.anthropic, request(history), stream);
        assert.equal(m2.stop_reason, 'end_turn');
        assert.deepStrictEqual(blocks(m2),
          [{ type: 'text', text: 'It is 18C and sunny in Paris.' }]);
        assertUsage(m2, 57, 9);

        const [b1, b2] = upstreamBodies(gw.mock, upstream, 2);
        if (upstream === 'anthropic') {
          assert.deepStrictEqual(b1, anthropicBody([user], {}, stream));
          assert.deepStrictEqual(b2, anthropicBody(history, {}, stream));
        } else {
          assert.deepStrictEqual(b1, openaiBody([user], {}, stream));
          assert.deepStrictEqual(b2, openaiBody([
            user,
            { role: 'assistant', content: 'Checking.',
              tool_calls: [oaCall('toolu_w1', 'get_weather', '{"city":"Paris"}')] },
            oaToolMsg('toolu_w1', '18C, sunny'),
          ], {}, stream));
        }
      });

      test(`two parallel calls, both answered (${mode})`, async () => {
        const scripted = [
          scriptedCall('toolu_p1', 'get_weather', '{"city":"Oslo"}'),
          scriptedCall('toolu_p2', 'get_time', '{"tz":"Europe/Oslo"}'),
        ];
        gw.mock.script(
          { toolCalls: scripted, usage: { input: 40, output: 22 } },
          { text: 'Oslo: 3C, 14:05.', usage: { input: 80, output: 7 } },
        );
        const user = { role: 'user', content: 'Oslo weather and time?' };
        const { message: m1 } = await send(gw.anthropic, request([user]), stream);
        assert.equal(m1.stop_reason, 'tool_use');
        const uses = [
          anUse('toolu_p1', 'get_weather', { city: 'Oslo' }),
          anUse('toolu_p2', 'get_time', { tz: 'Europe/Oslo' }),
        ];
        assert.deepStrictEqual(blocks(m1), uses);
        assertUsage(m1, 40, 22);

        const results = {
          role: 'user', content: [anResult('toolu_p1', '3C'), anResult('toolu_p2', '14:05')],
        };
        const history = [user, { role: 'assistant', content: uses }, results];
        const { message: m2 } = await send(gw.anthropic, request(history), stream);
        assert.equal(m2.stop_reason, 'end_turn');
        assert.deepStrictEqual(blocks(m2), [{ type: 'text', text: 'Oslo: 3C, 14:05.' }]);
        assertUsage(m2, 80, 7);

        const [b1, b2] = upstreamBodies(gw.mock, upstream, 2);
        if (upstream === 'anthropic') {
          assert.deepStrictEqual(b1, anthropicBody([user], {}, stream));
          assert.deepStrictEqual(b2, anthropicBody(history, {}, stream));
        } else {
          assert.deepStrictEqual(b1, openaiBody([user], {}, stream));
          assert.deepStrictEqual(b2, openaiBody([
            user,
            { role: 'assistant', content: null,
              tool_calls: scripted.map((c) => oaCall(c.id, c.name, c.arguments)) },
            oaToolMsg('toolu_p1', '3C'),
            oaToolMsg('toolu_p2', '14:05'),
          ], {}, stream));
        }
      });

      // OpenAI has no error flag: the codec's convention is a leading
      // "Error: " on the tool message (src/dialects/openai_chat/README.md).
      test(`an is_error tool result (${mode})`, async () => {
        gw.mock.script({ text: 'No such city.', usage: { input: 44, output: 4 } });
        const user = { role: 'user', content: 'Weather in Atlantis?' };
        const use = anUse('toolu_e1', 'get_weather', { city: 'Atlantis' });
        const history = [
          user,
          { role: 'assistant', content: [use] },
          { role: 'user', content: [anResult('toolu_e1', 'unknown city', { is_error: true })] },
        ];
        const { message } = await send(gw.anthropic, request(history), stream);
        assert.equal(message.stop_reason, 'end_turn');
        assert.deepStrictEqual(blocks(message), [{ type: 'text', text: 'No such city.' }]);
        assertUsage(message, 44, 4);
        const [b] = upstreamBodies(gw.mock, upstream, 1);
        if (upstream === 'anthropic') {
          assert.deepStrictEqual(b, anthropicBody(history, {}, stream));
        } else {
          assert.deepStrictEqual(b, openaiBody([
            user,
            { role: 'assistant', content: null,
              tool_calls: [oaCall('toolu_e1', 'get_weather', '{"city":"Atlantis"}')] },
            oaToolMsg('toolu_e1', 'Error: unknown city'),
          ], {}, stream));
        }
      });

      // OpenAI tool messages cannot hold images: the text stays in the tool
      // message, the image follows in a user message, and the response says so
      // in toolwire-warnings.
      test(`an image in a tool result (${mode})`, async () => {
        gw.mock.script({ text: 'A sunny chart.', usage: { input: 90, output: 4 } });
        const user = { role: 'user', content: 'Show the weather chart.' };
        const use = anUse('toolu_i1', 'get_weather', { city: 'Nice' });
        const image = {
          type: 'image', source: { type: 'base64', media_type: 'image/png', data: PNG_B64 },
        };
        const history = [
          user,
          { role: 'assistant', content: [use] },
          { role: 'user', content: [
            anResult('toolu_i1', [{ type: 'text', text: 'chart attached' }, image]),
          ] },
        ];
        const { message, response } = await send(gw.anthropic, request(history), stream);
        assert.equal(message.stop_reason, 'end_turn');
        assert.deepStrictEqual(blocks(message), [{ type: 'text', text: 'A sunny chart.' }]);
        assertUsage(message, 90, 4);
        const warnings = response.headers.get('toolwire-warnings') ?? '';
        const [b] = upstreamBodies(gw.mock, upstream, 1);
        if (upstream === 'anthropic') {
          assert.deepStrictEqual(b, anthropicBody(history, {}, stream));
          assert.equal(warnings, '');
        } else {
          assert.deepStrictEqual(b, openaiBody([
            user,
            { role: 'assistant', content: null,
              tool_calls: [oaCall('toolu_i1', 'get_weather', '{"city":"Nice"}')] },
            oaToolMsg('toolu_i1', 'chart attached'),
            { role: 'user', content: [
              { type: 'text', text: 'Image returned by tool call toolu_i1:' },
              { type: 'image_url', image_url: { url: `data:image/png;base64,${PNG_B64}` } },
            ] },
          ], {}, stream));
          assert.match(warnings, /(^|; )tool_result_image_moved( \(|;|$)/,
            `toolwire-warnings: ${warnings}`);
        }
      });

      test(`tool_choice forces a named tool (${mode})`, async () => {
        gw.mock.script({ toolCalls: [scriptedCall('toolu_t1', 'get_time', '{"tz":"UTC"}')],
          usage: { input: 20, output: 6 } });
        const user = { role: 'user', content: 'Time?' };
        const tool_choice = { type: 'tool', name: 'get_time' };
        const { message } = await send(gw.anthropic, request([user], { tool_choice }), stream);
        assert.equal(message.stop_reason, 'tool_use');
        assert.deepStrictEqual(blocks(message),
          [anUse('toolu_t1', 'get_time', { tz: 'UTC' })]);
        assertUsage(message, 20, 6);
        const [b] = upstreamBodies(gw.mock, upstream, 1);
        if (upstream === 'anthropic') {
          assert.deepStrictEqual(b, anthropicBody([user], { tool_choice }, stream));
        } else {
          assert.deepStrictEqual(b, openaiBody([user],
            { tool_choice: { type: 'function', function: { name: 'get_time' } } }, stream));
        }
      });

      test(`tool_choice none (${mode})`, async () => {
        gw.mock.script({ text: 'I will not call tools.', usage: { input: 18, output: 5 } });
        const user = { role: 'user', content: 'Just talk.' };
        const none = { tool_choice: { type: 'none' } };
        const { message } = await send(gw.anthropic, request([user], none), stream);
        assert.equal(message.stop_reason, 'end_turn');
        assert.deepStrictEqual(blocks(message), [{ type: 'text', text: 'I will not call tools.' }]);
        assertUsage(message, 18, 5);
        const [b] = upstreamBodies(gw.mock, upstream, 1);
        if (upstream === 'anthropic') {
          assert.deepStrictEqual(b, anthropicBody([user], none, stream));
        } else {
          assert.deepStrictEqual(b, openaiBody([user], { tool_choice: 'none' }, stream));
        }
      });

      // The SDK's own tool loop (beta toolRunner, full history every turn).
      test(`beta.messages.toolRunner runs a two-round conversation (${mode})`, async () => {
        gw.mock.script(
          { text: 'Let me look.',
            toolCalls: [scriptedCall('toolu_r1', 'get_weather', '{"city":"Rome"}')],
            usage: { input: 25, output: 11 } },
          { text: 'Rome: 24C.', usage: { input: 49, output: 5 } },
        );
        const seen = [];
        const user = { role: 'user', content: 'Weather in Rome?' };
        const runner = gw.anthropic.beta.messages.toolRunner({
          model: MODEL, max_tokens: MAX_TOKENS, system: SYSTEM, messages: [user],
          tools: [betaTool({
            name: 'get_weather', description: ANTHROPIC_TOOLS[0].description,
            inputSchema: WEATHER_SCHEMA,
            run: (args) => { seen.push(args); return '24C'; },
          })],
          ...(stream ? { stream: true } : {}),
        });
        const final = await runner.runUntilDone();
        assert.deepStrictEqual(seen, [{ city: 'Rome' }]);
        assert.equal(final.stop_reason, 'end_turn');
        assert.deepStrictEqual(blocks(final), [{ type: 'text', text: 'Rome: 24C.' }]);
        assertUsage(final, 49, 5);

        const [b1, b2] = upstreamBodies(gw.mock, upstream, 2);
        const assistant = [
          { type: 'text', text: 'Let me look.' },
          anUse('toolu_r1', 'get_weather', { city: 'Rome' }),
        ];
        if (upstream === 'anthropic') {
          // betaTool declares its tool with `type: "custom"`, the API's default
          // for a client tool; the codec writes client tools without it.
          const tools = [ANTHROPIC_TOOLS[0]];
          assert.deepStrictEqual(b1, { ...anthropicBody([user], {}, stream), tools });
          assert.deepStrictEqual(b2, { ...anthropicBody([
            user,
            { role: 'assistant', content: assistant },
            { role: 'user', content: [anResult('toolu_r1', '24C')] },
          ], {}, stream), tools });
        } else {
          const tools = [OPENAI_TOOLS[0]];
          assert.deepStrictEqual(b1, { ...openaiBody([user], {}, stream), tools });
          assert.deepStrictEqual(b2, { ...openaiBody([
            user,
            { role: 'assistant', content: 'Let me look.',
              tool_calls: [oaCall('toolu_r1', 'get_weather', '{"city":"Rome"}')] },
            oaToolMsg('toolu_r1', '24C'),
          ], {}, stream), tools });
        }
      });
    }
  });
}
