// Starts a scripted upstream (mock_upstream.mjs) and `toolwire serve` routed
// to it, gives the official SDK clients pointed at the gateway, and stops the
// gateway by PID with SIGTERM (it must exit 0). The binary comes from
// TOOLWIRE_BINARY (set by CTest); the SDKs from tests/npm/node_modules
// (scripts/setup.sh installs them; a missing one fails, never skips).
import assert from 'node:assert/strict';
import { spawn } from 'node:child_process';
import { createHash } from 'node:crypto';
import { existsSync, mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { GEMINI_UPSTREAM_KEY } from './common.mjs';
import { TEST_AWS } from './mock_bedrock.mjs';
import { startMockUpstream } from './mock_upstream.mjs';
import { importSdk } from './sdk.mjs';

const START_TIMEOUT_MS = 15000;
const STOP_TIMEOUT_MS = 15000;

export const { default: OpenAI } = await importSdk('openai');
export const { default: Anthropic } = await importSdk('@anthropic-ai/sdk');
export const { betaTool } = await importSdk('@anthropic-ai/sdk/helpers/beta/json-schema');
export const { GoogleGenAI } = await importSdk('@google/genai');
export const bedrockSdk = await importSdk('@aws-sdk/client-bedrock-runtime');
const { NodeHttpHandler } = await importSdk('@smithy/node-http-handler');

// What the Bedrock SDK client signs with: not the gateway's upstream
// credentials (TEST_AWS), which the mock checks.
export const CLIENT_AWS = {
  accessKeyId: 'AKIDCLIENTTEST', secretAccessKey: 'client/test/secret', region: 'us-west-2',
};

function binary() {
  const b = process.env.TOOLWIRE_BINARY;
  if (!b || !existsSync(b))
    throw new Error(`TOOLWIRE_BINARY must name the toolwire binary (got ${b})`);
  return b;
}

// Resolves with the port from the listening line; rejects if the process
// exits first or the line does not come within START_TIMEOUT_MS.
function waitListening(proc, stderr) {
  return new Promise((resolve, reject) => {
    let out = '';
    const timer = setTimeout(() => done(new Error(
      `toolwire serve printed no listening line in ${START_TIMEOUT_MS} ms; ` +
      `stdout: ${out}; stderr: ${stderr()}`)), START_TIMEOUT_MS);
    const onData = (d) => {
      out += d;
      const m = /^toolwire serve: listening on http:\/\/127\.0\.0\.1:(\d+)$/m.exec(out);
      if (m) done(null, Number(m[1]));
    };
    const onExit = (code, signal) => done(new Error(
      `toolwire serve exited (${code ?? signal}) before listening; stderr: ${stderr()}`));
    function done(err, port) {
      clearTimeout(timer);
      proc.stdout.off('data', onData);
      proc.off('exit', onExit);
      if (err) reject(err);
      else resolve(port);
    }
    proc.stdout.setEncoding('utf8');
    proc.stdout.on('data', onData);
    proc.on('exit', onExit);
  });
}

// upstream: 'openai' (openai_compatible=<mock>/v1), 'anthropic' (<mock> root),
// 'responses' (<mock>/v1), 'gemini' (<mock> root, key GEMINI_UPSTREAM_KEY) or
// 'bedrock' (<mock> root, signing with TEST_AWS from the AWS_* variables).
// keys: serve from a YAML config (a temporary file) that routes every model
// to an OpenAI-compatible upstream and requires a gateway key: the keys the
// clients of this harness present (`sk-test-gateway`, `gemini-client-key`,
// and CLIENT_AWS.accessKeyId inside the Bedrock client's SigV4 signature).
export const GATEWAY_KEYS = ['sk-test-gateway', 'gemini-client-key', 'AKIDCLIENTTEST'];

function keysConfig(mock) {
  const dir = mkdtempSync(join(tmpdir(), 'toolwire-sdk-'));
  const file = join(dir, 'gateway.yaml');
  const sha = (k) => createHash('sha256').update(k).digest('hex');
  writeFileSync(file, [
    'listen: 127.0.0.1:0',
    'keys:',
    ...GATEWAY_KEYS.map((k, i) => `  - {name: k${i}, sha256: "sha256:${sha(k)}"}`),
    'upstreams:',
    `  mock: {profile: openai_compatible, base_url: "${mock.root}/v1"}`,
    'routes:',
    '  - {model: "*", upstreams: [mock]}',
    '',
  ].join('\n'));
  return { file, remove: () => rmSync(dir, { recursive: true, force: true }) };
}

export async function startGateway({ upstream, upstreamModel, keys = false } = {}) {
  const mock = await startMockUpstream();
  if (keys) upstream = 'openai';
  const spec = {
    openai: `openai_compatible=${mock.root}/v1`, anthropic: `anthropic=${mock.root}`,
    responses: `responses=${mock.root}/v1`, gemini: `gemini=${mock.root}`,
    bedrock: `bedrock=${mock.root}`,
  }[upstream];
  if (!spec) throw new Error(`unknown upstream dialect ${upstream}`);
  const config = keys ? keysConfig(mock) : null;
  const args = config ? ['serve', '--config', config.file, '--quiet']
    : ['serve', '--listen', '127.0.0.1:0', '--upstream', spec, '--quiet'];
  if (upstreamModel) args.push('--upstream-model', upstreamModel);
  // No API keys or AWS settings of the environment reach the gateway.
  const env = { ...process.env };
  for (const k of Object.keys(env))
    if (k.startsWith('AWS_') || k.endsWith('_API_KEY')) delete env[k];
  if (upstream === 'gemini') {
    env.TOOLWIRE_TEST_GEMINI_KEY = GEMINI_UPSTREAM_KEY;
    args.push('--upstream-key-env', 'TOOLWIRE_TEST_GEMINI_KEY');
  }
  if (upstream === 'bedrock') {
    env.AWS_ACCESS_KEY_ID = TEST_AWS.accessKeyId;
    env.AWS_SECRET_ACCESS_KEY = TEST_AWS.secretAccessKey;
    env.AWS_SESSION_TOKEN = TEST_AWS.sessionToken;
    env.AWS_REGION = TEST_AWS.region;
  }
  const proc = spawn(binary(), args, { stdio: ['ignore', 'pipe', 'pipe'], env });
  let err = '';
  proc.stderr.setEncoding('utf8');
  proc.stderr.on('data', (d) => { err += d; });
  const exited = new Promise((resolve) =>
    proc.on('exit', (code, signal) => resolve({ code, signal })));
  let port;
  try {
    port = await waitListening(proc, () => err);
  } catch (e) {
    proc.kill('SIGKILL');
    await mock.close();
    config?.remove();
    throw e;
  }
  const url = `http://127.0.0.1:${port}`;
  // The AWS SDK speaks HTTP/2 by default; NodeHttpHandler makes it HTTP/1.1.
  const bedrock = new bedrockSdk.BedrockRuntimeClient({
    region: CLIENT_AWS.region, endpoint: url, credentials: CLIENT_AWS, maxAttempts: 1,
    requestHandler: new NodeHttpHandler({ requestTimeout: 20000 }),
  });
  return {
    mock,
    url,
    stderr: () => err,
    openai: new OpenAI(
      { apiKey: 'sk-test-gateway', baseURL: `${url}/v1`, maxRetries: 0, timeout: 20000 }),
    anthropic: new Anthropic(
      { apiKey: 'sk-ant-test-gateway', baseURL: url, maxRetries: 0, timeout: 20000 }),
    // The SDK's default API version is v1 (3.x); `apiVersion: 'v1beta'` for the other path.
    gemini: (apiVersion) => new GoogleGenAI({ apiKey: 'gemini-client-key',
      httpOptions: { baseUrl: url, ...(apiVersion ? { apiVersion } : {}) } }),
    bedrock,
    // SIGTERM by PID; the gateway must drain and exit 0 within STOP_TIMEOUT_MS.
    async stop() {
      try {
        process.kill(proc.pid, 'SIGTERM');
        let timer;
        const res = await Promise.race([exited, new Promise((resolve) => {
          timer = setTimeout(() => resolve(null), STOP_TIMEOUT_MS);
        })]);
        clearTimeout(timer);
        if (res === null) {
          proc.kill('SIGKILL');
          assert.fail(`toolwire serve did not exit within ${STOP_TIMEOUT_MS} ms of SIGTERM`);
        }
        assert.deepStrictEqual(res, { code: 0, signal: null },
          `toolwire serve exit; stderr: ${err}`);
      } finally {
        bedrock.destroy();
        config?.remove();
        await mock.close();
      }
    },
  };
}
