// The Vercel AI SDK against toolwire serve and a scripted upstream.
// Its default OpenAI provider (`openai(model)`: the Responses API with `store`
// on), to Anthropic and OpenAI Chat upstreams: multi-turn chats re-send every
// earlier assistant message as an `item_reference` to the id the gateway
// issued; the upstream must get those turns back, in order, whole and
// streamed, with a tool loop between. `@ai-sdk/anthropic`, whose base URL
// ends in /v1, at the gateway's bare address and at /v1.
import assert from 'node:assert/strict';
import { after, before, describe, test } from 'node:test';

import { startGateway } from '../sdk_support/harness.mjs';
import { importSdk } from '../sdk_support/sdk.mjs';
import { scriptedCall, WEATHER_DESC, WEATHER_SCHEMA } from './common.mjs';

const { createAnthropic } = await importSdk('@ai-sdk/anthropic');
const { createOpenAI } = await importSdk('@ai-sdk/openai');
const { generateText, jsonSchema, stepCountIs, streamText, tool } = await importSdk('ai');

const MODEL = 'gpt-4.1-mini';  // not a reasoning model: assistant text goes by reference

// The text of an upstream message's content in either dialect.
function textOf(content) {
  if (typeof content === 'string') return content;
  return content.filter((b) => b.type === 'text').map((b) => b.text).join('');
}

// An upstream request's conversation as [role, text | {call} | {result}] in
// order, whatever its dialect (OpenAI Chat or Anthropic Messages).
function conversation(body) {
  const out = [];
  for (const m of body.messages) {
    if (m.role === 'system') continue;
    if (m.role === 'tool') {
      out.push(['tool', { result: m.tool_call_id, content: textOf(m.content) }]);
      continue;
    }
    const text = textOf(m.content ?? '');
    if (text) out.push([m.role, text]);
    for (const c of m.tool_calls ?? []) out.push([m.role, { call: c.id, name: c.function.name }]);
    if (Array.isArray(m.content)) {
      for (const b of m.content) {
        if (b.type === 'tool_use') out.push([m.role, { call: b.id, name: b.name }]);
        if (b.type === 'tool_result') {
          out.push(['tool', { result: b.tool_use_id, content: textOf(
            typeof b.content === 'string' ? b.content : b.content ?? []) }]);
        }
      }
    }
  }
  return out;
}

for (const upstream of ['anthropic', 'openai']) {
  describe(`@ai-sdk/openai -> toolwire serve -> ${upstream} upstream`, () => {
    let gw;
    let sent;  // the bodies the SDK sent the gateway
    let openai;
    before(async () => {
      gw = await startGateway({ upstream });
      openai = createOpenAI({
        baseURL: gw.openaiBase,
        apiKey: 'sk-test',
        fetch: async (url, init) => {
          if (init?.body) sent.push(JSON.parse(init.body));
          return fetch(url, init);
        },
      });
    });
    after(async () => { await gw?.stop(); });

    for (const stream of [false, true]) {
      const mode = stream ? 'streamText' : 'generateText';
      test(`a multi-turn chat keeps its earlier assistant turns (${mode})`, async () => {
        sent = [];
        gw.mock.script(
          { text: 'Hello Ada.', usage: { input: 10, output: 3 } },
          { text: 'Your name is Ada.', usage: { input: 20, output: 5 } },
        );
        const ask = async (messages) => {
          if (!stream) return generateText({ model: openai(MODEL), messages });
          const s = streamText({ model: openai(MODEL), messages });
          return { text: await s.text, response: await s.response };
        };
        const history = [{ role: 'user', content: 'My name is Ada.' }];
        const r1 = await ask(history);
        assert.equal(r1.text, 'Hello Ada.');
        history.push(...r1.response.messages, { role: 'user', content: 'What is my name?' });
        const r2 = await ask(history);
        assert.equal(r2.text, 'Your name is Ada.');

        // The SDK did send the earlier turn by reference...
        assert.equal(sent.length, 2);
        const refs = sent[1].input.filter((i) => i.type === 'item_reference');
        assert.equal(refs.length, 1, JSON.stringify(sent[1].input));
        assert.match(refs[0].id, /^msg_[0-9a-f]{48}_0$/);
        // ...and the upstream got it in full, between the two user turns.
        const bodies = gw.mock.modelRequests().map((r) => r.body);
        assert.equal(bodies.length, 2);
        assert.deepStrictEqual(conversation(bodies[1]), [
          ['user', 'My name is Ada.'],
          ['assistant', 'Hello Ada.'],
          ['user', 'What is my name?'],
        ]);
      });
    }

    test('a tool loop: the referenced text, the call and its output reach the upstream in order',
      async () => {
        sent = [];
        gw.mock.script(
          { text: 'Looking it up.', toolCalls: [scriptedCall('call_w1', 'get_weather',
            '{"city":"Lima"}')], usage: { input: 30, output: 10 } },
          { text: 'Lima: 19C.', usage: { input: 50, output: 5 } },
        );
        const s = streamText({
          model: openai(MODEL),
          messages: [{ role: 'user', content: 'Weather in Lima?' }],
          tools: {
            get_weather: tool({ description: WEATHER_DESC, inputSchema: jsonSchema(WEATHER_SCHEMA),
              execute: async ({ city }) => `${city}: 19C` }),
          },
          stopWhen: stepCountIs(3),
        });
        assert.equal(await s.text, 'Lima: 19C.');
        assert.equal(sent.length, 2);
        assert.ok(sent[1].input.some((i) => i.type === 'item_reference'),
          JSON.stringify(sent[1].input));
        const bodies = gw.mock.modelRequests().map((r) => r.body);
        assert.equal(bodies.length, 2);
        assert.deepStrictEqual(conversation(bodies[1]), [
          ['user', 'Weather in Lima?'],
          ['assistant', 'Looking it up.'],
          ['assistant', { call: 'call_w1', name: 'get_weather' }],
          ['tool', { result: 'call_w1', content: 'Lima: 19C' }],
        ]);
      });

    test('an unknown reference is a 400 that names it', async () => {
      sent = [];
      gw.mock.script();
      const r = await fetch(`${gw.openaiBase}/responses`, {
        method: 'POST',
        headers: { 'content-type': 'application/json', authorization: 'Bearer sk-test' },
        body: JSON.stringify({ model: MODEL, input: [{ role: 'user', content: 'hi' },
          { type: 'item_reference', id: 'msg_never_issued' }] }),
      });
      assert.equal(r.status, 400);
      const body = await r.json();
      assert.equal(body.error.param, 'input[1]');
      assert.equal(body.error.code, 'item_reference_not_found');
      assert.match(body.error.message, /msg_never_issued/);
      assert.equal(gw.mock.modelRequests().length, 0);
    });
  });
}

describe('@ai-sdk/anthropic -> toolwire serve -> anthropic upstream', () => {
  let gw;
  before(async () => { gw = await startGateway({ upstream: 'anthropic' }); });
  after(async () => { await gw?.stop(); });

  // Its default base URL ends in /v1 and it appends /messages: given the
  // gateway's address with or without /v1, it must reach POST /v1/messages.
  for (const base of ['', '/v1']) {
    test(`baseURL ${base ? 'with' : 'without'} /v1`, async () => {
      gw.mock.script({ text: 'Hi from Claude.', usage: { input: 4, output: 3 } });
      const anthropic = createAnthropic({ baseURL: `${gw.url}${base}`, apiKey: 'sk-test' });
      const r = await generateText({ model: anthropic('claude-test'), prompt: 'Hi' });
      assert.equal(r.text, 'Hi from Claude.');
      assert.equal(r.usage.inputTokens, 4);
      assert.equal(gw.mock.modelRequests().length, 1);
    });
  }
});
