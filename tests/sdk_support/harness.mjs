// `toolwire serve` (serve.mjs) in front of the scripted upstream
// (mock_upstream.mjs), with the official SDK clients (clients.mjs) pointed at
// it: what the gateway SDK suites start once per file.
import { createHash } from 'node:crypto';
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';

import { sdkClients } from './clients.mjs';
import { startMockUpstream } from './mock_upstream.mjs';
import { cleanEnv, startServe } from './serve.mjs';
import { TEST_AWS } from './upstream/bedrock_converse.mjs';

// The key the gateway sends a Gemini upstream (x-goog-api-key) unless a test
// names its own with `keyEnv`.
export const GEMINI_UPSTREAM_KEY = 'gemini-upstream-test-key';

// The gateway keys of `keys: true`: the ones the clients of sdkClients()
// present (`sk-test-gateway`, `gemini-client-key`, and CLIENT_AWS.accessKeyId
// inside the Bedrock client's SigV4 signature).
export const GATEWAY_KEYS = ['sk-test-gateway', 'gemini-client-key', 'AKIDCLIENTTEST'];

// A YAML config that routes every model to the mock as an OpenAI-compatible
// upstream and requires one of GATEWAY_KEYS.
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

// `--upstream PROFILE=BASE` for the mock as an upstream of each dialect: the
// profile (unless the test names another) and the base URL's path.
const UPSTREAM = {
  openai: ['openai_compatible', '/v1'], anthropic: ['anthropic', ''],
  responses: ['responses', '/v1'], gemini: ['gemini', ''], bedrock: ['bedrock', ''],
};

// Starts `toolwire serve` routed to a scripted upstream of dialect `upstream`
// ('openai' | 'anthropic' | 'responses' | 'gemini' | 'bedrock'; `profile`
// names a built-in profile of that dialect other than UPSTREAM's), or with
// `keys: true` from a config that requires GATEWAY_KEYS (any model to an
// OpenAI-compatible upstream). `mock`: a running mock upstream (the caller
// closes it); else one is started and closed by stop(). `keyEnv` names the
// variable with the upstream key (`env` gives it), `args` are more flags.
// Returns startServe's, the mock, the base URLs, and the SDK clients of
// sdkClients() pointed at the gateway.
export async function startGateway({
  mock = null, upstream = 'openai', profile, upstreamModel, keyEnv, env = {}, args = [],
  keys = false,
} = {}) {
  const ownMock = mock === null;
  if (ownMock) mock = await startMockUpstream();
  const config = keys ? keysConfig(mock) : null;
  const argv = config ? ['--config', config.file]
    : ['--listen', '127.0.0.1:0',
      '--upstream', `${profile ?? UPSTREAM[upstream][0]}=${mock.root}${UPSTREAM[upstream][1]}`];
  if (upstreamModel) argv.push('--upstream-model', upstreamModel);
  const fullEnv = { ...cleanEnv(), ...env };
  if (!keyEnv && upstream === 'gemini' && !keys) {
    keyEnv = 'TOOLWIRE_TEST_GEMINI_KEY';
    fullEnv[keyEnv] = GEMINI_UPSTREAM_KEY;
  }
  if (keyEnv) argv.push('--upstream-key-env', keyEnv);
  if (upstream === 'bedrock') {
    Object.assign(fullEnv, {
      AWS_ACCESS_KEY_ID: TEST_AWS.accessKeyId, AWS_SECRET_ACCESS_KEY: TEST_AWS.secretAccessKey,
      AWS_SESSION_TOKEN: TEST_AWS.sessionToken, AWS_REGION: TEST_AWS.region,
    });
  }
  argv.push(...args);
  const release = async () => {
    config?.remove();
    if (ownMock) await mock.close();
  };

  let serve;
  try {
    serve = await startServe(argv, { env: fullEnv });
  } catch (e) {
    await release();
    throw e;
  }
  const { url } = serve;
  const clients = sdkClients(url);
  let stopped = null;
  return {
    mock,
    url,
    openaiBase: `${url}/v1`,
    anthropicBase: url,
    pid: serve.pid,
    stdout: serve.stdout,
    stderr: serve.stderr,
    get openai() { return clients.openai; },
    get anthropic() { return clients.anthropic; },
    gemini: (apiVersion) => clients.gemini(apiVersion),
    get bedrock() { return clients.bedrock; },
    stop() {
      stopped ??= serve.stop().finally(async () => {
        clients.destroy();
        await release();
      });
      return stopped;
    },
  };
}

// `toolwire-warnings` as a sorted list of "code (path)" items ([] when absent).
export function warningsOf(headers) {
  const v = headers.get('toolwire-warnings');
  if (v === null) return [];
  return v.split('; ').sort();
}
