// SDK peer test: the official `openai` and `@anthropic-ai/sdk` clients consume
// streams that `toolwire convert --kind stream` translated from the OTHER
// dialect, served by a local HTTP server (127.0.0.1, port 0). Their stream
// helpers must accumulate exactly the expected text and tool calls (ids, names,
// arguments parsed as JSON), and the finish reason.
//
//   node tests/npm/sdk_stream_test.mjs build/src/cli/toolwire
//
// Fails (never skips) when tests/npm/node_modules is missing: scripts/setup.sh
// installs it. openai 7.55.0 declares node >= 22, but what this test uses
// (chat.completions.stream + finalChatCompletion) runs on Debian's node 20
// (checked with v20.20.2), so package.json keeps it unpinned to 6.x.
import assert from 'node:assert/strict';
import { spawnSync } from 'node:child_process';
import { existsSync, readFileSync } from 'node:fs';
import http from 'node:http';
import { dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';

const here = dirname(fileURLToPath(import.meta.url));
const wire = join(here, '..', 'data', 'wire');
const toolwire = process.argv[2];

function die(message) {
  console.error(`sdk_stream_test: FAIL: ${message}`);
  process.exit(1);
}

if (!toolwire || !existsSync(toolwire)) die(`usage: node sdk_stream_test.mjs <path to the toolwire binary> (got ${toolwire})`);
if (!existsSync(join(here, 'node_modules', 'openai')) || !existsSync(join(here, 'node_modules', '@anthropic-ai', 'sdk')))
  die(`${join(here, 'node_modules')} lacks openai / @anthropic-ai/sdk: run scripts/setup.sh`);

const { default: OpenAI } = await import('openai');
const { default: Anthropic } = await import('@anthropic-ai/sdk');

// ---- sources -----------------------------------------------------------------

function convert(from, to, input) {
  const r = spawnSync(toolwire, ['convert', '--from', from, '--to', to, '--kind', 'stream'], { input, encoding: 'utf8' });
  if (r.error) die(`running ${toolwire}: ${r.error.message}`);
  if (r.status !== 0) die(`toolwire convert --from ${from} --to ${to} exited ${r.status}: ${r.stderr}`);
  return r.stdout;
}

function openaiChunk(delta, finish = null) {
  return `data: ${JSON.stringify({
    id: 'chatcmpl-sdk', object: 'chat.completion.chunk', created: 1700000000, model: 'gpt-4o',
    choices: [{ index: 0, delta, logprobs: null, finish_reason: finish }],
  })}\n\n`;
}

// The documented delta.tool_calls listing as a real chunk stream.
function openaiFromDeltaFixture() {
  const lines = readFileSync(join(wire, 'openai-chat-stream-tool-calls.delta-tool_calls.jsonl'), 'utf8')
    .split('\n').filter((l) => l.trim() !== '');
  let sse = openaiChunk({ role: 'assistant', content: null });
  for (const line of lines) {
    const d = JSON.parse(line);
    sse += d === null ? openaiChunk({}, 'tool_calls') : openaiChunk({ tool_calls: d });
  }
  return sse + 'data: [DONE]\n\n';
}

// A generated (seeded) OpenAI stream: text, then three parallel calls whose
// argument fragments interleave, one with an id Anthropic rejects.
function openaiParallelStream(seed) {
  let s = seed;
  const rand = (n) => { s = (s * 1103515245 + 12345) % 2147483648; return s % n; };
  const calls = [
    { id: 'call_weather01', name: 'get_weather', args: { location: 'Paris, France', unit: 'celsius' } },
    { id: 'call.2:x', name: 'get_time', args: { tz: 'Europe/Paris', format: '24h "quoted" ünï' } },
    { id: 'call_search03', name: 'search_docs', args: { query: 'tool calling', limit: 3, filters: { section: 'api' } } },
  ];
  let sse = openaiChunk({ role: 'assistant', content: '' });
  for (const piece of ['Let me ', 'check ', 'three ', 'things.']) sse += openaiChunk({ content: piece });
  const pending = calls.map((c, i) => {
    const text = JSON.stringify(c.args);
    const frags = [];
    for (let p = 0; p < text.length;) { const n = 1 + rand(6); frags.push(text.slice(p, p + n)); p += n; }
    return { i, c, frags, started: false };
  });
  let started = 0;
  while (pending.some((p) => !p.started || p.frags.length)) {
    const p = pending[rand(Math.min(pending.length, started + 1))];
    if (!p.started) {
      sse += openaiChunk({ tool_calls: [{ index: p.i, id: p.c.id, type: 'function', function: { name: p.c.name, arguments: '' } }] });
      p.started = true; started++;
    } else if (p.frags.length) {
      sse += openaiChunk({ tool_calls: [{ index: p.i, function: { arguments: p.frags.shift() } }] });
    }
  }
  sse += openaiChunk({}, 'tool_calls');
  return { sse: sse + 'data: [DONE]\n\n', calls };
}

// A generated Anthropic stream with text and two tool_use blocks.
function anthropicTwoCalls() {
  const ev = (type, data) => `event: ${type}\ndata: ${JSON.stringify({ type, ...data })}\n\n`;
  const calls = [
    { id: 'toolu_01A', name: 'get_weather', args: { location: 'Oslo' } },
    { id: 'toolu_01B', name: 'get_time', args: { tz: 'CET', nested: { list: [1, 2.5, null, true] } } },
  ];
  let sse = ev('message_start', { message: { id: 'msg_sdk', type: 'message', role: 'assistant', model: 'claude-sonnet-4-5', content: [], stop_reason: null, stop_sequence: null, usage: { input_tokens: 12, output_tokens: 1 } } });
  sse += ev('content_block_start', { index: 0, content_block: { type: 'text', text: '' } });
  sse += ev('content_block_delta', { index: 0, delta: { type: 'text_delta', text: 'Two calls:' } });
  sse += ev('content_block_stop', { index: 0 });
  calls.forEach((c, k) => {
    const i = k + 1;
    sse += ev('content_block_start', { index: i, content_block: { type: 'tool_use', id: c.id, name: c.name, input: {} } });
    const text = JSON.stringify(c.args);
    for (let p = 0; p < text.length; p += 5) sse += ev('content_block_delta', { index: i, delta: { type: 'input_json_delta', partial_json: text.slice(p, p + 5) } });
    sse += ev('content_block_stop', { index: i });
  });
  sse += ev('message_delta', { delta: { stop_reason: 'tool_use', stop_sequence: null }, usage: { output_tokens: 40 } });
  sse += ev('message_stop', {});
  return { sse, calls };
}

// ---- the server ----------------------------------------------------------------

let body = '';
const requests = [];
const server = http.createServer((req, res) => {
  let received = '';
  req.on('data', (d) => { received += d; });
  req.on('end', () => {
    requests.push({ url: req.url, body: received });
    res.writeHead(200, { 'content-type': 'text/event-stream', 'cache-control': 'no-cache' });
    // Several writes, so the SDK's SSE parser sees events cut across chunks.
    const cut = Math.floor(body.length / 3);
    res.write(body.slice(0, cut));
    setTimeout(() => { res.write(body.slice(cut, 2 * cut)); res.end(body.slice(2 * cut)); }, 5);
  });
});
await new Promise((resolve) => server.listen(0, '127.0.0.1', resolve));
const base = `http://127.0.0.1:${server.address().port}`;
const openai = new OpenAI({ apiKey: 'sk-test-dummy', baseURL: `${base}/v1`, maxRetries: 0, timeout: 10000 });
const anthropic = new Anthropic({ apiKey: 'sk-ant-test-dummy', baseURL: base, maxRetries: 0, timeout: 10000 });

const tools = [{ type: 'function', function: { name: 'get_weather', parameters: { type: 'object', properties: {} } } }];

async function viaOpenAI(sse) {
  body = sse;
  const stream = openai.chat.completions.stream({ model: 'gpt-4o', messages: [{ role: 'user', content: 'hi' }], tools });
  const completion = await stream.finalChatCompletion();
  assert.equal(requests.at(-1).url, '/v1/chat/completions');
  return completion.choices[0];
}

async function viaAnthropic(sse) {
  body = sse;
  const msg = await anthropic.messages.stream({ model: 'toolwire-test-model', max_tokens: 100, messages: [{ role: 'user', content: 'hi' }] }).finalMessage();
  assert.equal(requests.at(-1).url, '/v1/messages');
  return msg;
}

function expectOpenAICalls(choice, calls) {
  const got = choice.message.tool_calls ?? [];
  assert.equal(got.length, calls.length, `tool calls: ${JSON.stringify(got)}`);
  calls.forEach((c, i) => {
    assert.equal(got[i].id, c.id);
    assert.equal(got[i].type, 'function');
    assert.equal(got[i].function.name, c.name);
    assert.deepEqual(JSON.parse(got[i].function.arguments), c.args);
  });
}

function expectAnthropicCalls(msg, calls) {
  const got = msg.content.filter((b) => b.type === 'tool_use');
  assert.equal(got.length, calls.length, `content: ${JSON.stringify(msg.content)}`);
  calls.forEach((c, i) => {
    assert.equal(got[i].id, c.id);
    assert.equal(got[i].name, c.name);
    assert.deepEqual(got[i].input, c.args);
  });
}

const cases = {
  'anthropic fixture tool-use stream -> openai SDK': async () => {
    const sse = convert('anthropic', 'openai', readFileSync(join(wire, 'anthropic-messages-stream-tool-use.sse'), 'utf8'));
    const choice = await viaOpenAI(sse);
    assert.equal(choice.message.content, "Okay, let's check the weather for San Francisco, CA:");
    expectOpenAICalls(choice, [{ id: 'toolu_01T1x1fJ34qAmk2tNTrN7Up6', name: 'get_weather', args: { location: 'San Francisco, CA', unit: 'fahrenheit' } }]);
    assert.equal(choice.finish_reason, 'tool_calls');
  },
  'anthropic fixture text stream -> openai SDK': async () => {
    const sse = convert('anthropic', 'openai', readFileSync(join(wire, 'anthropic-messages-stream-text.sse'), 'utf8'));
    const choice = await viaOpenAI(sse);
    assert.equal(choice.message.content, 'Hello!');
    assert.equal((choice.message.tool_calls ?? []).length, 0);
    assert.equal(choice.finish_reason, 'stop');
  },
  'generated anthropic two-call stream -> openai SDK': async () => {
    const { sse, calls } = anthropicTwoCalls();
    const choice = await viaOpenAI(convert('anthropic', 'openai', sse));
    assert.equal(choice.message.content, 'Two calls:');
    expectOpenAICalls(choice, calls);
    assert.equal(choice.finish_reason, 'tool_calls');
  },
  'openai fixture delta stream -> anthropic SDK': async () => {
    const msg = await viaAnthropic(convert('openai', 'anthropic', openaiFromDeltaFixture()));
    expectAnthropicCalls(msg, [{ id: 'call_DdmO9pD3xa9XTPNJ32zg2hcA', name: 'get_weather', args: { location: 'Paris, France' } }]);
    assert.equal(msg.content.filter((b) => b.type === 'text').length, 0, JSON.stringify(msg.content));
    assert.equal(msg.stop_reason, 'tool_use');
  },
};
for (const seed of [1, 7, 42]) {
  cases[`generated openai interleaved parallel stream (seed ${seed}) -> anthropic SDK`] = async () => {
    const { sse, calls } = openaiParallelStream(seed);
    const msg = await viaAnthropic(convert('openai', 'anthropic', sse));
    assert.equal(msg.content.filter((b) => b.type === 'text').map((b) => b.text).join(''), 'Let me check three things.');
    // "call.2:x" is not a valid Anthropic id: it arrives under its reversible mapping.
    expectAnthropicCalls(msg, calls.map((c) => (c.id === 'call.2:x' ? { ...c, id: 'tw-call-2e2-3ax' } : c)));
    assert.equal(msg.stop_reason, 'tool_use');
  };
}

let failed = 0;
for (const [name, fn] of Object.entries(cases)) {
  try {
    await fn();
    console.log(`ok - ${name}`);
  } catch (e) {
    failed++;
    console.log(`not ok - ${name}\n  ${String(e?.stack ?? e).split('\n').join('\n  ')}`);
  }
}
server.close();
console.log(failed ? `${failed} of ${Object.keys(cases).length} failed` : `all ${Object.keys(cases).length} passed`);
process.exit(failed ? 1 : 0);
