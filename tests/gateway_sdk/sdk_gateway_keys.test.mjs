// Gateway keys as each new client presents them, through the real SDKs:
// @google/genai's x-goog-api-key, and the access key id of the AWS SDK's
// SigV4 signature (the signature itself is not checked: docs/gateway.md).
// A wrong key is refused in the client's dialect before any upstream call.
import assert from 'node:assert/strict';
import { after, before, describe, test } from 'node:test';
import { bedrockClient, bedrockSdk, CLIENT_AWS, geminiClient } from '../sdk_support/clients.mjs';
import { startGateway } from '../sdk_support/harness.mjs';
import { upstreamRequests } from './common.mjs';

const { ConverseCommand } = bedrockSdk;

describe('gateway keys from the Gemini and Bedrock SDKs', () => {
  let gw;
  before(async () => { gw = await startGateway({ keys: true }); });
  after(async () => { await gw?.stop(); });

  const ask = { model: 'gemini-2.5-flash', contents: 'Hello' };

  test('@google/genai: x-goog-api-key is the gateway key', async () => {
    gw.mock.script({ text: 'Hi there.', usage: { input: 2, output: 3 } });
    const r = await gw.gemini().models.generateContent(ask);
    assert.equal(r.text, 'Hi there.');
    const wrong = geminiClient(gw.url, undefined, 'not-a-gateway-key');
    await assert.rejects(wrong.models.generateContent(ask), (e) => {
      assert.equal(e.status, 401);
      assert.match(e.message, /UNAUTHENTICATED/);
      assert.match(e.message, /invalid gateway key/);
      return true;
    });
    const [b] = upstreamRequests(gw.mock, 'openai', 1,
      { model: 'gemini-2.5-flash', stream: false });
    assert.equal(b.model, 'gemini-2.5-flash');
  });

  test('AWS SDK: the SigV4 access key id is the gateway key', async () => {
    gw.mock.script({ text: 'Hello from the mock.', usage: { input: 4, output: 5 } });
    const input = { modelId: 'amazon.nova-lite-v1:0',
      messages: [{ role: 'user', content: [{ text: 'Hello' }] }] };
    const r = await gw.bedrock.send(new ConverseCommand(input));
    assert.equal(r.output.message.content[0].text, 'Hello from the mock.');
    assert.equal(r.stopReason, 'end_turn');
    const wrong = bedrockClient(gw.url,
      { accessKeyId: 'AKIDNOTAGATEWAYKEY', secretAccessKey: CLIENT_AWS.secretAccessKey });
    try {
      await assert.rejects(wrong.send(new ConverseCommand(input)), (e) => {
        assert.equal(e.$metadata?.httpStatusCode, 401);
        assert.match(e.message, /invalid gateway key/);
        return true;
      });
    } finally {
      wrong.destroy();
    }
    upstreamRequests(gw.mock, 'openai', 1, { model: 'amazon.nova-lite-v1:0', stream: false });
  });
});
