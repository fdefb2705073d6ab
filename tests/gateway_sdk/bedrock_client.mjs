// The AWS SDK's `@aws-sdk/client-bedrock-runtime` (ConverseCommand,
// ConverseStreamCommand) with its endpoint pointed at `toolwire serve`,
// routed to a scripted upstream. It signs with SigV4 (test credentials, not
// the gateway's) and, with `requestHandler: new NodeHttpHandler()`, speaks
// HTTP/1.1 (../sdk_support/clients.mjs; TOOLWIRE_AWS_DEFAULT_HANDLER=1 keeps
// the SDK's default, HTTP/2); the model id goes into the path URL-encoded.
import assert from 'node:assert/strict';
import { bedrockMessages, bedrockToolConfig } from './dialect_bodies.mjs';
import { bedrockSdk } from '../sdk_support/clients.mjs';
import { clientSuite } from './scenarios.mjs';

const MODEL = 'amazon.nova-lite-v1:0';
const { ConverseCommand, ConverseStreamCommand } = bedrockSdk;

function request(c) {
  return { modelId: MODEL, system: [{ text: c.system }], messages: bedrockMessages(c),
    toolConfig: bedrockToolConfig(c.tools) };
}

const usageOf = (u) => ({ input: u?.inputTokens, output: u?.outputTokens, total: u?.totalTokens });

async function ask(gw, c, stream) {
  if (!stream) {
    const r = await gw.bedrock.send(new ConverseCommand(request(c)));
    const content = r.output.message.content;
    assert.equal(r.output.message.role, 'assistant');
    return {
      text: content.filter((b) => b.text !== undefined).map((b) => b.text).join(''),
      calls: content.filter((b) => b.toolUse).map(({ toolUse: t }) =>
        ({ id: t.toolUseId, name: t.name, arguments: JSON.stringify(t.input) })),
      finish: r.stopReason, usage: usageOf(r.usage),
    };
  }
  const r = await gw.bedrock.send(new ConverseStreamCommand(request(c)));
  let text = '';
  const blocks = new Map();  // contentBlockIndex → call
  let finish;
  let usage;
  const kinds = [];
  for await (const ev of r.stream) {
    const [kind, v] = Object.entries(ev)[0];
    kinds.push(kind);
    if (kind === 'contentBlockStart' && v.start?.toolUse)
      blocks.set(v.contentBlockIndex,
        { id: v.start.toolUse.toolUseId, name: v.start.toolUse.name, arguments: '' });
    if (kind === 'contentBlockDelta') {
      if (v.delta.text !== undefined) text += v.delta.text;
      if (v.delta.toolUse) blocks.get(v.contentBlockIndex).arguments += v.delta.toolUse.input;
    }
    if (kind === 'messageStop') finish = v.stopReason;
    if (kind === 'metadata') usage = usageOf(v.usage);
  }
  assert.equal(kinds[0], 'messageStart', kinds.join(' '));
  assert.equal(kinds.at(-1), 'metadata', kinds.join(' '));
  const calls = [...blocks.entries()].sort((a, b) => a[0] - b[0]).map(([, call]) =>
    ({ ...call, arguments: JSON.stringify(JSON.parse(call.arguments)) }));
  return { text, calls, finish, usage };
}

export function bedrockClientSuite(upstream) {
  clientSuite({ dialect: 'bedrock', client: '@aws-sdk/client-bedrock-runtime', upstream,
    failure: (e) => ({ status: e.$metadata?.httpStatusCode, type: e.name }),
    model: MODEL, ask,
    finish: (calls) => (calls ? 'tool_use' : 'end_turn') });
}
