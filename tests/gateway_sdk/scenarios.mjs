// The tool conversations every new client runs against every upstream it is
// paired with: written once as canonical conversations (dialect_bodies.mjs);
// each client's `ask(gw, conversation, stream)` sends one in its own dialect
// through its SDK and returns what the SDK reported, normalised:
//   { text, calls: [{ id, name, arguments }], finish, usage: { input, output, total } }
// Each scenario checks that, and the exact body the upstream received.
import assert from 'node:assert/strict';
import { after, before, describe, test } from 'node:test';
import { upstreamBody } from './dialect_bodies.mjs';
import { scriptedCall, upstreamRequests } from './common.mjs';
import { startGateway } from '../sdk_support/harness.mjs';

export const SYSTEM = 'You are terse.';
export const TOOL_NAMES = ['get_weather', 'get_time'];

const usage = (input, output) => ({ input, output, total: input + output });

// The error type each client dialect gives a 400.
const REFUSED = {
  openai: 'invalid_request_error', responses: 'invalid_request_error',
  gemini: 'INVALID_ARGUMENT', bedrock: 'ValidationException',
};

// `dialect`: the client's ('openai', 'responses', 'gemini', 'bedrock').
// `finish(hasCalls)`: the client dialect's finish reason for a turn.
// `failure(error)`: what the SDK's error says, as { status, type }: the HTTP
// status and the dialect's error type where it has one.
// `extra(getGateway, model)`: more tests inside the suite (dialect-specific).
export function clientSuite({ client, dialect, upstream, model, ask, finish, failure, extra }) {
  describe(`${client} SDK -> toolwire serve -> ${upstream} upstream`, () => {
    let gw;
    before(async () => { gw = await startGateway({ upstream }); });
    after(async () => { await gw?.stop(); });

    for (const stream of [false, true]) {
      const mode = stream ? 'stream' : 'non-stream';

      test(`two-round tool conversation (${mode})`, async () => {
        const call = scriptedCall('call_w1', 'get_weather', '{"city":"Paris"}');
        gw.mock.script(
          { text: 'Checking.', toolCalls: [call], usage: { input: 31, output: 12 } },
          { text: 'It is 18C and sunny in Paris.', usage: { input: 57, output: 9 } },
        );
        const c1 = { system: SYSTEM, tools: TOOL_NAMES, turns: [{ user: 'Weather in Paris?' }] };
        const r1 = await ask(gw, c1, stream);
        assert.deepStrictEqual(r1, { text: 'Checking.', calls: [call], finish: finish(true),
          usage: usage(31, 12) });
        const c2 = { ...c1, turns: [...c1.turns,
          { assistant: { text: 'Checking.', calls: [call] } },
          { results: [{ id: 'call_w1', name: 'get_weather', content: '18C, sunny' }] }] };
        const r2 = await ask(gw, c2, stream);
        assert.deepStrictEqual(r2, { text: 'It is 18C and sunny in Paris.', calls: [],
          finish: finish(false), usage: usage(57, 9) });
        const [b1, b2] = upstreamRequests(gw.mock, upstream, 2, { model, stream });
        assert.deepStrictEqual(b1, upstreamBody(upstream, model, c1, stream, dialect));
        assert.deepStrictEqual(b2, upstreamBody(upstream, model, c2, stream, dialect));
      });

      test(`two parallel calls, both answered (${mode})`, async () => {
        const calls = [
          scriptedCall('call_p1', 'get_weather', '{"city":"Oslo"}'),
          scriptedCall('call_p2', 'get_time', '{"tz":"Europe/Oslo"}'),
        ];
        gw.mock.script(
          { toolCalls: calls, usage: { input: 40, output: 22 } },
          { text: 'Oslo: 3C, 14:05.', usage: { input: 80, output: 7 } },
        );
        const c1 = { system: SYSTEM, tools: TOOL_NAMES,
          turns: [{ user: 'Oslo weather and time?' }] };
        const r1 = await ask(gw, c1, stream);
        assert.deepStrictEqual(r1, { text: '', calls, finish: finish(true), usage: usage(40, 22) });
        const c2 = { ...c1, turns: [...c1.turns, { assistant: { calls } }, { results: [
          { id: 'call_p1', name: 'get_weather', content: '3C' },
          { id: 'call_p2', name: 'get_time', content: '14:05' }] }] };
        const r2 = await ask(gw, c2, stream);
        assert.deepStrictEqual(r2, { text: 'Oslo: 3C, 14:05.', calls: [], finish: finish(false),
          usage: usage(80, 7) });
        const [b1, b2] = upstreamRequests(gw.mock, upstream, 2, { model, stream });
        assert.deepStrictEqual(b1, upstreamBody(upstream, model, c1, stream, dialect));
        assert.deepStrictEqual(b2, upstreamBody(upstream, model, c2, stream, dialect));
      });
    }
    // The upstream refuses the request (a 400 in its dialect, not retried):
    // the client gets the status and message in its own dialect's error,
    // which its SDK raises.
    for (const stream of [false, true]) {
      test(`an upstream error reaches the client in its dialect (${stream ? 'stream' : 'whole'})`,
        async () => {
          gw.mock.script({ error: { status: 400, message: 'scripted refusal' } });
          const c = { system: SYSTEM, tools: TOOL_NAMES, turns: [{ user: 'Fail, please.' }] };
          await assert.rejects(ask(gw, c, stream), (e) => {
            assert.deepStrictEqual(failure(e), { status: 400, type: REFUSED[dialect] });
            assert.match(e.message, /scripted refusal/);
            return true;
          });
          upstreamRequests(gw.mock, upstream, 1, { model, stream });
        });
    }
    // The upstream's stream breaks after some text: the client's stream ends
    // with its dialect's error event, which its SDK raises with the message.
    test('an upstream stream that breaks ends the client stream with an error', async () => {
      gw.mock.script({ text: 'partial answer', streamError: 'upstream broke down',
        usage: { input: 5, output: 2 } });
      const c = { system: SYSTEM, tools: TOOL_NAMES, turns: [{ user: 'Go on.' }] };
      await assert.rejects(ask(gw, c, true), (e) => {
        assert.match(e.message, /upstream broke down/);
        return true;
      });
      upstreamRequests(gw.mock, upstream, 1, { model, stream: true });
    });
    extra?.(() => gw, model);
  });
}
