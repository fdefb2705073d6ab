// The official `openai` client's Responses API (responses.create /
// responses.stream + finalResponse) against `toolwire serve` on POST
// /v1/responses, routed to a scripted upstream; plus previous_response_id
// served from the gateway's response store.
import assert from 'node:assert/strict';
import { test } from 'node:test';
import { scriptedCall, upstreamRequests } from './common.mjs';
import { responsesInput, responsesTools, upstreamBody } from './dialect_bodies.mjs';
import { clientSuite, SYSTEM, TOOL_NAMES } from './scenarios.mjs';

const MODEL = 'gpt-4.1-mini';

function normalize(r) {
  return {
    text: r.output_text,
    calls: r.output.filter((o) => o.type === 'function_call')
      .map((o) => ({ id: o.call_id, name: o.name, arguments: o.arguments })),
    finish: r.status,
    usage: { input: r.usage?.input_tokens, output: r.usage?.output_tokens,
      total: r.usage?.total_tokens },
  };
}

async function send(gw, body, stream) {
  if (!stream) return gw.openai.responses.create(body);
  const s = gw.openai.responses.stream(body);
  const types = [];
  s.on('event', (e) => types.push(e.type));
  const final = await s.finalResponse();
  assert.equal(types[0], 'response.created', types.join(' '));
  assert.equal(types.at(-1), 'response.completed', types.join(' '));
  if (final.output.some((o) => o.type === 'function_call'))
    assert.ok(types.includes('response.function_call_arguments.delta'), types.join(' '));
  return final;
}

function request(c, extra = {}) {
  return { model: MODEL, instructions: c.system, input: responsesInput(c),
    tools: responsesTools(c.tools), ...extra };
}

async function ask(gw, c, stream) {
  return normalize(await send(gw, request(c), stream));
}

// previous_response_id: the gateway keeps each answer and puts the stored
// conversation in front of the next request's input; the upstream gets the
// whole conversation, as if the client had sent it.
function previousResponseTests(getGateway, upstream) {
  for (const stream of [false, true]) {
    const mode = stream ? 'stream' : 'non-stream';
    test(`previous_response_id continues a stored conversation (${mode})`, async () => {
      const gw = getGateway();
      const call = scriptedCall('call_s1', 'get_weather', '{"city":"Lima"}');
      gw.mock.script(
        { text: 'Looking.', toolCalls: [call], usage: { input: 30, output: 10 } },
        { text: 'Lima: 19C.', usage: { input: 50, output: 5 } },
      );
      const c1 = { system: SYSTEM, tools: TOOL_NAMES, turns: [{ user: 'Weather in Lima?' }] };
      const r1 = await send(gw, request(c1), stream);
      assert.match(r1.id, /^resp_[0-9a-f]{48}$/);
      const r2 = await send(gw, { model: MODEL, instructions: SYSTEM,
        tools: responsesTools(TOOL_NAMES), previous_response_id: r1.id,
        input: [{ type: 'function_call_output', call_id: 'call_s1', output: '19C' }] }, stream);
      assert.equal(r2.output_text, 'Lima: 19C.');
      assert.notEqual(r2.id, r1.id);
      const c2 = { ...c1, turns: [...c1.turns, { assistant: { text: 'Looking.', calls: [call] } },
        { results: [{ id: 'call_s1', name: 'get_weather', content: '19C' }] }] };
      const [b1, b2] = upstreamRequests(gw.mock, upstream, 2, { model: MODEL, stream });
      assert.deepStrictEqual(b1, upstreamBody(upstream, MODEL, c1, stream, 'responses'));
      assert.deepStrictEqual(b2, upstreamBody(upstream, MODEL, c2, stream, 'responses'));
    });
  }

  test('previous_response_id of a response sent with store: false is not found', async () => {
    const gw = getGateway();
    gw.mock.script({ text: 'Hi.', usage: { input: 3, output: 1 } });
    const c = { system: SYSTEM, tools: TOOL_NAMES, turns: [{ user: 'Hello' }] };
    const r1 = await gw.openai.responses.create(request(c, { store: false }));
    assert.equal(r1.output_text, 'Hi.');
    await assert.rejects(
      gw.openai.responses.create({ model: MODEL, previous_response_id: r1.id, input: 'again' }),
      (e) => {
        assert.equal(e.status, 400);
        assert.equal(e.code, 'previous_response_not_found');
        assert.equal(e.param, 'previous_response_id');
        return true;
      });
    await assert.rejects(
      gw.openai.responses.create(
        { model: MODEL, previous_response_id: 'resp_unknown', input: 'x' }),
      (e) => e.status === 400 && e.code === 'previous_response_not_found');
    const [b] = upstreamRequests(gw.mock, upstream, 1, { model: MODEL, stream: false });
    if (upstream === 'responses') assert.equal(b.store, false, 'store: false reaches the upstream');
  });
}

export function responsesClientSuite(upstream) {
  clientSuite({
    failure: (e) => ({ status: e.status, type: e.type }),
    client: 'openai (Responses)', dialect: 'responses', upstream, model: MODEL, ask,
    finish: () => 'completed',
    extra: (getGateway) => previousResponseTests(getGateway, upstream),
  });
}
