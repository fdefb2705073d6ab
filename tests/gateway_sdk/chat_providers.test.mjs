// `toolwire chat --provider gemini|responses|bedrock` against the scripted
// upstream (../sdk_support/mock_upstream.mjs): each dialect's profile reaches its endpoint
// (the model in the path for Gemini and Bedrock, URL-encoded), with its key
// (x-goog-api-key, Bearer) or a SigV4 signature the mock verifies, and the
// answer is printed.
import assert from 'node:assert/strict';
import { spawn } from 'node:child_process';
import { existsSync } from 'node:fs';
import { after, before, test } from 'node:test';
import { cleanEnv } from '../sdk_support/serve.mjs';
import { startMockUpstream } from '../sdk_support/mock_upstream.mjs';
import { TEST_AWS } from '../sdk_support/upstream/bedrock_converse.mjs';

const bin = process.env.TOOLWIRE_BINARY;

function chat(args, env) {
  return new Promise((resolve, reject) => {
    const c = spawn(bin, ['chat', ...args], { env, stdio: ['ignore', 'pipe', 'pipe'] });
    let out = '';
    let err = '';
    c.stdout.on('data', (d) => { out += d; });
    c.stderr.on('data', (d) => { err += d; });
    const timer = setTimeout(() => { c.kill('SIGKILL'); reject(new Error('chat hung')); }, 20000);
    c.on('exit', (code) => { clearTimeout(timer); resolve({ code, out, err }); });
  });
}

let mock;
before(async () => {
  assert.ok(bin && existsSync(bin), `TOOLWIRE_BINARY must name the toolwire binary (got ${bin})`);
  mock = await startMockUpstream();
});
after(async () => { await mock?.close(); });

const cases = [
  { provider: 'gemini', base: () => mock.root, model: 'gemini-2.5-flash',
    env: { GEMINI_API_KEY: 'gemini-chat-key' },
    path: '/v1beta/models/gemini-2.5-flash:streamGenerateContent?alt=sse',
    check: (r) => assert.equal(r.headers['x-goog-api-key'], 'gemini-chat-key') },
  { provider: 'responses', base: () => `${mock.root}/v1`, model: 'gpt-4.1-mini',
    env: { OPENAI_API_KEY: 'sk-chat-key' }, path: '/v1/responses',
    check: (r) => assert.equal(r.headers.authorization, 'Bearer sk-chat-key') },
  { provider: 'bedrock', base: () => mock.root, model: 'amazon.nova-lite-v1:0',
    env: { AWS_ACCESS_KEY_ID: TEST_AWS.accessKeyId, AWS_SECRET_ACCESS_KEY: TEST_AWS.secretAccessKey,
      AWS_SESSION_TOKEN: TEST_AWS.sessionToken, AWS_REGION: TEST_AWS.region },
    path: '/model/amazon.nova-lite-v1%3A0/converse-stream',
    check: (r) => assert.equal(r.sigv4, 'ok') },
];

for (const c of cases) {
  test(`toolwire chat --provider ${c.provider}`, async () => {
    mock.script({ text: `hello from the ${c.provider} mock`, usage: { input: 3, output: 4 } });
    const r = await chat(['--provider', c.provider, '--base-url', c.base(), '--model', c.model,
      '--once', 'hi'], { ...cleanEnv(), ...c.env });
    assert.equal(r.code, 0, r.err);
    assert.match(r.out, new RegExp(`hello from the ${c.provider} mock`));
    assert.equal(mock.requests.length, 1);
    assert.equal(mock.requests[0].path, c.path);
    c.check(mock.requests[0]);
    assert.equal(mock.pending(), 0);
  });
}
