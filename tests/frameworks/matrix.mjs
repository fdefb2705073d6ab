// The framework matrix (issue 23): each agent framework as a new user points
// it at `toolwire serve`, with a scripted upstream of the other dialect
// (tests/sdk_support: harness.mjs, mock_upstream.mjs). Every framework runs
// the same cells:
//   plain             one answer, not streamed
//   stream            one answer, streamed
//   tool_loop         a two-round loop with two parallel calls, which the
//                     framework itself executes (its tool API), not streamed
//   stream_tool_loop  the same, streamed
//   structured        an answer held to a JSON schema, parsed by the framework
//   history           two turns, the second carrying the framework's own first
//                     answer back
// Each cell asserts what the framework returned (text, the tools it ran with
// their arguments, the parsed object) and what the upstream received, in its
// own dialect's spelling (Anthropic `tools` / `tool_use` / `tool_result`
// blocks and `output_config`, OpenAI `tools` / `tool_calls` / `tool` messages
// and `response_format`), including every earlier turn.
//
// The cells of a framework share one gateway per upstream dialect and one
// mock, and run concurrently: each cell's prompt carries its mock lane's tag
// (mock_upstream.mjs), so each is answered from its own script. Every wait is
// bounded (the gateway's start and stop, each cell's TIMEOUT); nothing sleeps.
import assert from 'node:assert/strict';
import { after, before, describe, test } from 'node:test';

import { startGateway } from '../sdk_support/harness.mjs';

export const MODELS = {
  openai: 'gpt-4.1-mini', anthropic: 'claude-sonnet-4-5', gemini: 'gemini-2.5-flash',
};
export const SYSTEM = 'You are terse.';
export const API_KEY = 'sk-framework-client';
const TIMEOUT = 30000;

// The two tools of the loops, as JSON Schema (frameworks that want zod build it
// from zodShapes()).
export const TOOLS = {
  get_weather: {
    description: 'Current weather in a city',
    parameters: {
      type: 'object', properties: { city: { type: 'string', description: 'City name' } },
      required: ['city'], additionalProperties: false,
    },
  },
  get_time: {
    description: 'Current local time in a time zone',
    parameters: {
      type: 'object', properties: { tz: { type: 'string', description: 'IANA time zone' } },
      required: ['tz'], additionalProperties: false,
    },
  },
};
// What the tools return, by name.
const TOOL_RESULTS = { get_weather: '3C, overcast', get_time: '14:05' };

// The structured-output cell's schema and the object the upstream answers.
export const SCHEMA = {
  type: 'object',
  properties: { city: { type: 'string' }, temp_c: { type: 'number' } },
  required: ['city', 'temp_c'],
  additionalProperties: false,
};
export const WEATHER = { city: 'Paris', temp_c: 18 };

// zod versions of TOOLS' parameters and of SCHEMA, for frameworks that take zod.
export function zodShapes(z) {
  return {
    get_weather: z.object({ city: z.string().describe('City name') }),
    get_time: z.object({ tz: z.string().describe('IANA time zone') }),
    schema: z.object({ city: z.string(), temp_c: z.number() }),
  };
}

export const CELLS = ['plain', 'stream', 'tool_loop', 'stream_tool_loop', 'structured', 'history'];

// ---- what the upstream received, read in its dialect ----

function textOf(content) {
  if (content === null || content === undefined) return '';
  if (typeof content === 'string') return content;
  return content.filter((b) => b.type === 'text').map((b) => b.text).join('');
}

// A tool result's text: frameworks send a tool's string output as it is or as
// a JSON string.
function resultText(content) {
  const t = textOf(content);
  try {
    const v = JSON.parse(t);
    if (typeof v === 'string') return v;
  } catch { /* not JSON: as it is */ }
  return t;
}

// The system prompt of an upstream request.
export function systemOf(body, dialect) {
  if (dialect === 'anthropic') return textOf(body.system);
  return body.messages.filter((m) => m.role === 'system' || m.role === 'developer')
    .map((m) => textOf(m.content)).join('\n');
}

// The conversation of an upstream request, in order, whatever its dialect:
// [role, text] | [role, {call, name, input}] | ['tool', {result, content}].
export function conversationOf(body, dialect) {
  const out = [];
  for (const m of body.messages) {
    if (m.role === 'system' || m.role === 'developer') continue;
    if (dialect === 'openai') {
      if (m.role === 'tool') {
        out.push(['tool', { result: m.tool_call_id, content: resultText(m.content) }]);
        continue;
      }
      const text = textOf(m.content);
      if (text) out.push([m.role, text]);
      for (const c of m.tool_calls ?? []) {
        out.push([m.role, { call: c.id, name: c.function.name,
          input: JSON.parse(c.function.arguments) }]);
      }
      continue;
    }
    if (typeof m.content === 'string') {
      out.push([m.role, m.content]);
      continue;
    }
    let text = '';
    const flush = () => {
      if (text) out.push([m.role, text]);
      text = '';
    };
    for (const b of m.content) {
      if (b.type === 'text') {
        text += b.text;
        continue;
      }
      flush();
      if (b.type === 'tool_use') out.push([m.role, { call: b.id, name: b.name, input: b.input }]);
      else if (b.type === 'tool_result') {
        out.push(['tool', { result: b.tool_use_id, content: resultText(b.content) }]);
      } else out.push([m.role, { block: b.type }]);
    }
    flush();
  }
  return out;
}

// The tools of an upstream request: name -> { description, properties, required }.
export function toolsOf(body, dialect) {
  const out = {};
  for (const t of body.tools ?? []) {
    const [name, description, schema] = dialect === 'anthropic'
      ? [t.name, t.description, t.input_schema]
      : [t.function.name, t.function.description, t.function.parameters];
    out[name] = { description, properties: schema.properties, required: schema.required };
  }
  return out;
}

// The JSON schema the upstream was asked to hold its answer to.
export function responseSchemaOf(body, dialect) {
  if (dialect === 'anthropic') {
    const f = body.output_config?.format ?? body.output_format;
    assert.equal(f?.type, 'json_schema',
      `Anthropic output_config.format: ${JSON.stringify(body.output_config)}`);
    return f.schema;
  }
  const f = body.response_format;
  assert.equal(f?.type, 'json_schema', `OpenAI response_format: ${JSON.stringify(f)}`);
  return f.json_schema.schema;
}

// Only the parts of a property schema that matter here (frameworks add
// descriptions, `$schema` and the like).
const typesOf = (properties) => Object.fromEntries(
  Object.entries(properties ?? {}).map(([k, v]) => [k, v.type]));

function expectStream(body, stream) {
  assert.equal(body.stream === true, stream, `upstream stream flag: ${JSON.stringify(body.stream)}`);
}

// ---- the cells ----

// Two parallel calls, then the answer.
const CALLS = [
  { id: 'call_w1', name: 'get_weather', arguments: { city: 'Oslo' } },
  { id: 'call_t1', name: 'get_time', arguments: { tz: 'Europe/Oslo' } },
];

async function within(ms, what, promise) {
  let timer;
  const timeout = new Promise((_, reject) => {
    timer = setTimeout(() => reject(new Error(`${what}: no answer within ${ms} ms`)), ms);
  });
  try {
    return await Promise.race([promise, timeout]);
  } finally {
    clearTimeout(timer);
  }
}

function checkTools(body, dialect) {
  const tools = toolsOf(body, dialect);
  assert.deepEqual(Object.keys(tools).sort(), ['get_time', 'get_weather']);
  for (const [name, spec] of Object.entries(TOOLS)) {
    assert.equal(tools[name].description, spec.description);
    assert.deepEqual(typesOf(tools[name].properties), typesOf(spec.parameters.properties));
    assert.deepEqual(tools[name].required, spec.parameters.required);
  }
}

const CELL_RUNS = {
  async plain(ctx) { await answerCell(ctx, false); },
  async stream(ctx) { await answerCell(ctx, true); },
  async tool_loop(ctx) { await toolCell(ctx, false); },
  async stream_tool_loop(ctx) { await toolCell(ctx, true); },

  async structured({ a, lane, dialect, prompt }) {
    lane.script({ text: JSON.stringify(WEATHER), usage: { input: 12, output: 9 } });
    const got = await within(TIMEOUT, 'structured', a.structured({ prompt }));
    assert.deepEqual(got, WEATHER);
    const reqs = lane.requests();
    assert.equal(reqs.length, 1);
    const { body } = reqs[0];
    assert.equal(systemOf(body, dialect), SYSTEM);
    assert.deepEqual(conversationOf(body, dialect), [['user', prompt]]);
    const schema = responseSchemaOf(body, dialect);
    assert.equal(schema.type, 'object');
    assert.deepEqual(typesOf(schema.properties), typesOf(SCHEMA.properties));
    assert.deepEqual([...schema.required].sort(), [...SCHEMA.required].sort());
  },

  async history({ a, lane, dialect, prompt }) {
    const prompts = [`My name is Ada. ${prompt}`, 'What is my name?'];
    lane.script({ text: 'Hello Ada.', usage: { input: 10, output: 3 } },
      { text: 'Your name is Ada.', usage: { input: 20, output: 5 } });
    const got = await within(TIMEOUT, 'history', a.history({ prompts }));
    assert.deepEqual(got, ['Hello Ada.', 'Your name is Ada.']);
    const reqs = lane.requests();
    assert.equal(reqs.length, 2);
    assert.deepEqual(conversationOf(reqs[0].body, dialect), [['user', prompts[0]]]);
    assert.deepEqual(conversationOf(reqs[1].body, dialect),
      [['user', prompts[0]], ['assistant', 'Hello Ada.'], ['user', prompts[1]]]);
    for (const r of reqs) assert.equal(systemOf(r.body, dialect), SYSTEM);
  },
};

async function answerCell({ a, lane, dialect, prompt }, stream) {
  const answer = 'Hello from the upstream.';
  lane.script({ text: answer, usage: { input: 11, output: 5 } });
  const got = await within(TIMEOUT, 'answer', a.text({ prompt, stream }));
  assert.equal(got, answer);
  const reqs = lane.requests();
  assert.equal(reqs.length, 1);
  const { body } = reqs[0];
  expectStream(body, stream);
  assert.equal(systemOf(body, dialect), SYSTEM);
  assert.deepEqual(conversationOf(body, dialect), [['user', prompt]]);
}

async function toolCell({ a, lane, dialect, prompt }, stream) {
  const final = 'Oslo: 3C, overcast, 14:05.';
  lane.script({ toolCalls: CALLS, usage: { input: 40, output: 22 } },
    { text: final, usage: { input: 80, output: 9 } });
  const ran = [];
  const impl = Object.fromEntries(Object.keys(TOOLS).map((name) => [name, (args) => {
    ran.push({ name, args });
    return TOOL_RESULTS[name];
  }]));
  const got = await within(TIMEOUT, 'tool loop', a.toolLoop({ prompt, stream, impl }));
  assert.equal(got, final);
  const byName = (x, y) => x.name.localeCompare(y.name);
  assert.deepEqual(ran.sort(byName),
    CALLS.map((c) => ({ name: c.name, args: c.arguments })).sort(byName));
  const reqs = lane.requests();
  assert.equal(reqs.length, 2);
  for (const r of reqs) {
    expectStream(r.body, stream);
    checkTools(r.body, dialect);
    assert.equal(systemOf(r.body, dialect), SYSTEM);
  }
  assert.deepEqual(conversationOf(reqs[0].body, dialect), [['user', prompt]]);
  const second = conversationOf(reqs[1].body, dialect);
  assert.deepEqual(second, [
    ['user', prompt],
    ...CALLS.map((c) => ['assistant', { call: c.id, name: c.name, input: c.arguments }]),
    ...CALLS.map((c) => ['tool', { result: c.id,
      content: a.toolResultSent?.(c.name, TOOL_RESULTS[c.name]) ?? TOOL_RESULTS[c.name] }]),
  ]);
}

// Registers one framework's cells: a describe block per client, all blocks
// and all their cells concurrent. `clients`: [{ name, upstream: 'openai' |
// 'anthropic', make(gw) -> adapter }]. An adapter:
//   text({ prompt, stream }) -> the answer's text
//   toolLoop({ prompt, stream, impl }) -> the final text; impl[name](args)
//     is what each framework tool runs
//   structured({ prompt }) -> the parsed object
//   history({ prompts: [p1, p2] }) -> [answer1, answer2]
//   toolResultSent?(name, output): the tool result's text as the framework
//     sends it, when it wraps a tool's output (else the output itself)
// Every adapter uses SYSTEM as its system prompt. Every cell is expressed by
// every framework of the matrix: none is left out.
export function frameworkMatrix(framework, clients) {
  describe(framework, { concurrency: true }, () => {
    const gateways = {};
    before(async () => {
      for (const upstream of new Set(clients.map((c) => c.upstream))) {
        gateways[upstream] = await startGateway({ upstream });
      }
    });
    after(async () => {
      await Promise.all(Object.values(gateways).map((gw) => gw.stop()));
    });
    for (const client of clients) {
      describe(`${client.name} -> toolwire serve -> ${client.upstream} upstream`,
        { concurrency: true }, () => {
          let adapter;
          before(() => { adapter = client.make(gateways[client.upstream]); });
          for (const cell of CELLS) {
            test(cell, { timeout: TIMEOUT * 2 }, async () => {
              const gw = gateways[client.upstream];
              const lane = gw.mock.lane(`${client.name}.${cell}`.replace(/[^A-Za-z0-9_.-]/g, '_'));
              const prompt = `Weather in Oslo and the time there? ${lane.tag}`;
              await CELL_RUNS[cell]({ a: adapter, lane, dialect: client.upstream, prompt });
              assert.equal(lane.pending(), 0, 'every scripted upstream turn was asked for');
            });
          }
        });
    }
  });
}
