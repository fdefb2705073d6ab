// The mock upstream checked against the real SDKs, with no gateway between:
// each SDK must parse the mock's responses and streams in its own dialect
// (ids, names, arguments, text, finish reasons, usage) and its errors, so
// that the gateway tests rest on a faithful upstream.
import assert from 'node:assert/strict';
import { after, before, describe, test } from 'node:test';

import { anthropicClient, betaTool, openaiClient, OpenAI, Anthropic } from './clients.mjs';
import { startMockUpstream } from './mock_upstream.mjs';

const hi = [{ role: 'user', content: 'hi' }];
let mock;
before(async () => { mock = await startMockUpstream(); });
after(async () => { await mock.close(); });

const weather = {
  type: 'function',
  function: {
    name: 'get_weather', description: 'Current weather for a city',
    parameters: { type: 'object', properties: { city: { type: 'string' } }, required: ['city'] },
  },
};
const two = [
  { id: 'call_Aa1', name: 'get_weather', arguments: '{"city":"Paris"}' },
  {
    id: 'call_Bb2', name: 'get_time',
    arguments: { tz: 'Europe/Paris', nested: [1, 2.5, null, 'é"\\'] },
  },
];

describe('openai SDK -> mock (openai dialect)', () => {
  test('whole response with two tool calls', async () => {
    const client = openaiClient(mock.openaiBase);
    mock.enqueue({ text: 'Checking.', toolCalls: two, usage: { input: 20, output: 9 } });
    const r = await client.chat.completions.create({
      model: 'gpt-4o', messages: [{ role: 'user', content: 'hi' }], tools: [weather],
    });
    const m = r.choices[0].message;
    assert.equal(m.content, 'Checking.');
    const calls = m.tool_calls.map((c) =>
      [c.id, c.type, c.function.name, JSON.parse(c.function.arguments)]);
    assert.deepEqual(calls, [['call_Aa1', 'function', 'get_weather', { city: 'Paris' }],
        ['call_Bb2', 'function', 'get_time', two[1].arguments]]);
    assert.equal(r.choices[0].finish_reason, 'tool_calls');
    assert.equal(r.usage.prompt_tokens, 20);
    assert.equal(r.usage.completion_tokens, 9);
    assert.equal(r.usage.total_tokens, 29);
    const got = mock.requests.at(-1);
    assert.equal(got.path, '/v1/chat/completions');
    assert.equal(got.headers.authorization, 'Bearer sk-client-dummy');
    assert.deepEqual(got.body, { model: 'gpt-4o', messages: hi, tools: [weather] });
  });

  test('stream with tool calls and include_usage', async () => {
    const client = openaiClient(mock.openaiBase);
    mock.enqueue({ toolCalls: two, usage: { input: 11, output: 7 } });
    const s = client.chat.completions.stream({
      model: 'gpt-4o', messages: [{ role: 'user', content: 'hi' }], tools: [weather],
      stream_options: { include_usage: true },
    });
    const r = await s.finalChatCompletion();
    const m = r.choices[0].message;
    assert.equal(m.content, null);
    const calls = m.tool_calls.map((c) =>
      [c.id, c.function.name, JSON.parse(c.function.arguments)]);
    assert.deepEqual(calls, [['call_Aa1', 'get_weather', { city: 'Paris' }],
      ['call_Bb2', 'get_time', two[1].arguments]]);
    assert.equal(r.choices[0].finish_reason, 'tool_calls');
    assert.equal(r.usage.prompt_tokens, 11);
    assert.equal(r.usage.completion_tokens, 7);
    assert.equal(mock.requests.at(-1).body.stream, true);
  });

  test('stream of text without include_usage has no usage', async () => {
    const client = openaiClient(mock.openaiBase);
    mock.enqueue({ text: 'Hello there, world.', usage: { input: 3, output: 4 } });
    const r = await client.chat.completions.stream({
      model: 'gpt-4o', messages: [{ role: 'user', content: 'hi' }],
    }).finalChatCompletion();
    assert.equal(r.choices[0].message.content, 'Hello there, world.');
    assert.equal(r.choices[0].finish_reason, 'stop');
    assert.equal(r.usage, undefined);
  });

  test('errors in the OpenAI shape', async () => {
    const client = openaiClient(mock.openaiBase);
    mock.enqueue({ error: { status: 429, message: 'slow down' } });
    await assert.rejects(client.chat.completions.create({ model: 'gpt-4o', messages: hi }),
      (e) => e instanceof OpenAI.RateLimitError && e.status === 429 &&
        e.error.type === 'rate_limit_error' &&
        /slow down/.test(e.message));
  });

  test('runTools helper runs a call and answers', async () => {
    const client = openaiClient(mock.openaiBase);
    mock.enqueue({ toolCalls: [two[0]], usage: { input: 5, output: 5 } },
      { text: 'It is sunny.', usage: { input: 9, output: 4 } });
    const seen = [];
    const runner = client.chat.completions.runTools({
      model: 'gpt-4o', messages: [{ role: 'user', content: 'weather?' }],
      tools: [{
        type: 'function',
        function: {
          ...weather.function, parse: JSON.parse,
          function: (a) => { seen.push(a); return 'sunny'; },
        },
      }],
    });
    assert.equal(await runner.finalContent(), 'It is sunny.');
    assert.deepEqual(seen, [{ city: 'Paris' }]);
    const last = mock.requests.at(-1).body.messages;
    assert.deepEqual(last.at(-1), { role: 'tool', tool_call_id: 'call_Aa1', content: 'sunny' });
  });

  test('a stream stalled mid-way delivers its start, then holds', async () => {
    const client = openaiClient(mock.openaiBase);
    mock.enqueue({ stall: 'mid_stream' });
    const controller = new AbortController();
    // Bounded: gives up (and fails below) if the first text never comes.
    const guard = setTimeout(() => controller.abort(), 5000);
    const stream = await client.chat.completions.create(
      { model: 'gpt-4o', messages: hi, stream: true }, { signal: controller.signal });
    let text = '';
    let stalled = -1;
    try {
      for await (const chunk of stream) {
        text += chunk.choices[0]?.delta?.content ?? '';
        if (text) {
          stalled = mock.stalledCount();
          controller.abort();
        }
      }
    } catch (e) {
      if (!(e instanceof OpenAI.APIUserAbortError || e.name === 'AbortError')) throw e;
    } finally {
      clearTimeout(guard);
    }
    assert.equal(text, 'part');  // the first fragment of "partial"
    assert.equal(stalled, 1);
  });

  test('a stalled upstream times the SDK out', async () => {
    const client = new OpenAI({
      apiKey: 'k', baseURL: mock.openaiBase, maxRetries: 0, timeout: 300,
    });
    mock.enqueue({ stall: 'before_head' });
    await assert.rejects(client.chat.completions.create({ model: 'gpt-4o', messages: hi }),
      (e) => e instanceof OpenAI.APIConnectionTimeoutError);
  });
});

describe('anthropic SDK -> mock (anthropic dialect)', () => {
  const tool = { name: 'get_weather', description: 'Current weather for a city',
    input_schema: weather.function.parameters };

  test('whole response with two tool calls', async () => {
    const client = anthropicClient(mock.anthropicBase);
    mock.enqueue({ text: 'Checking.', toolCalls: two, usage: { input: 20, output: 9 } });
    const m = await client.messages.create({
      model: 'claude-haiku-4-5', max_tokens: 100, messages: hi, tools: [tool],
    });
    assert.deepEqual(m.content, [{ type: 'text', text: 'Checking.' },
      { type: 'tool_use', id: 'call_Aa1', name: 'get_weather', input: { city: 'Paris' } },
      { type: 'tool_use', id: 'call_Bb2', name: 'get_time', input: two[1].arguments }]);
    assert.equal(m.stop_reason, 'tool_use');
    assert.equal(m.usage.input_tokens, 20);
    assert.equal(m.usage.output_tokens, 9);
    const got = mock.requests.at(-1);
    assert.equal(got.path, '/v1/messages');
    assert.equal(got.headers.authorization, 'Bearer sk-ant-client-dummy');
    assert.match(got.headers['anthropic-version'], /^\d{4}-\d{2}-\d{2}$/);
  });

  test('stream with text and tool calls', async () => {
    const client = anthropicClient(mock.anthropicBase);
    mock.enqueue({ text: 'Two calls:', toolCalls: two, usage: { input: 12, output: 40 } });
    const m = await client.messages.stream({
      model: 'claude-haiku-4-5', max_tokens: 100, messages: hi, tools: [tool],
    }).finalMessage();
    assert.deepEqual(m.content.map((b) => (b.type === 'text' ? b.text : [b.id, b.name, b.input])),
      ['Two calls:', ['call_Aa1', 'get_weather', { city: 'Paris' }],
        ['call_Bb2', 'get_time', two[1].arguments]]);
    assert.equal(m.stop_reason, 'tool_use');
    assert.equal(m.usage.input_tokens, 12);
    assert.equal(m.usage.output_tokens, 40);
    assert.equal(mock.requests.at(-1).body.stream, true);
  });

  test('errors in the Anthropic shape', async () => {
    const client = anthropicClient(mock.anthropicBase);
    mock.enqueue({ error: { status: 529, message: 'Overloaded' } });
    const create = client.messages.create({
      model: 'claude-haiku-4-5', max_tokens: 5, messages: hi,
    });
    await assert.rejects(create,
      (e) => e instanceof Anthropic.APIError && e.status === 529 &&
        e.error.error.type === 'overloaded_error');
  });

  for (const stream of [false, true]) {
    test(`beta toolRunner (thread: false, stream: ${stream})`, async () => {
      const client = anthropicClient(mock.anthropicBase);
      const call = { id: 'toolu_01X', name: 'get_weather', arguments: { city: 'Oslo' } };
      mock.enqueue({ toolCalls: [call], usage: { input: 5, output: 5 } },
        { text: 'Cold.', usage: { input: 9, output: 2 } });
      const seen = [];
      const runner = client.beta.messages.toolRunner({
        model: 'claude-haiku-4-5', max_tokens: 100, thread: false, stream,
        messages: [{ role: 'user', content: 'weather?' }],
        tools: [betaTool({ name: 'get_weather', description: 'w', inputSchema: tool.input_schema,
          run: (a) => { seen.push(a); return '-3C'; } })],
      });
      const final = await runner.runUntilDone();
      assert.deepEqual(final.content, [{ type: 'text', text: 'Cold.' }]);
      assert.deepEqual(seen, [{ city: 'Oslo' }]);
      const last = mock.requests.at(-1).body.messages.at(-1);
      assert.deepEqual(last, {
        role: 'user', content: [{ type: 'tool_result', tool_use_id: 'toolu_01X', content: '-3C' }],
      });
    });
  }
});

describe('lanes', () => {
  // Two lanes asked at once, in the opposite order of their scripts, and a
  // request without a tag: each gets its own lane's turn, the untagged one the
  // shared queue's, and each lane records only its own requests.
  test('tagged requests are answered from their own lane', async () => {
    const client = openaiClient(mock.openaiBase);
    const a = mock.lane('a').script({ text: 'from a' });
    const b = mock.lane('b').script({ text: 'from b 1' }, { text: 'from b 2' });
    mock.script({ text: 'shared' });
    const ask = (content) => client.chat.completions.create({
      model: 'gpt-4o', messages: [{ role: 'user', content }],
    }).then((r) => r.choices[0].message.content);
    const got = await Promise.all([
      ask(`second ${b.tag}`), ask(`first ${a.tag}`), ask('no tag'), ask(`third ${b.tag}`),
    ]);
    assert.deepEqual(got.slice(1, 3), ['from a', 'shared']);
    assert.deepEqual([got[0], got[3]].sort(), ['from b 1', 'from b 2']);
    assert.deepEqual(a.requests().map((r) => r.body.messages[0].content), [`first ${a.tag}`]);
    assert.deepEqual(b.requests().map((r) => r.body.messages[0].content).sort(),
      [`second ${b.tag}`, `third ${b.tag}`]);
    assert.equal(a.pending() + b.pending() + mock.pending(), 0);
    // An exhausted lane answers 500, like the shared queue.
    await assert.rejects(ask(`again ${a.tag}`), (e) => e.status === 500 && /lane a/.test(e.message));
  });
});
