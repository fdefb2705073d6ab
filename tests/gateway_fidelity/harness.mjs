// Test harness for the gateway's SDK tests: loads the official SDKs from
// tests/npm/node_modules, starts `toolwire serve` in front of a mock upstream
// (mock_upstream.mjs) and stops it with SIGTERM, checking it exits 0.
//
// TOOLWIRE_BINARY names the toolwire executable (CTest sets it). Every wait is
// bounded; nothing sleeps to synchronise.
import assert from 'node:assert/strict';
import { spawn } from 'node:child_process';
import { existsSync } from 'node:fs';
import { createRequire } from 'node:module';
import { dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';

const here = dirname(fileURLToPath(import.meta.url));
const npm = join(here, '..', 'npm');
if (!existsSync(join(npm, 'node_modules', 'openai')) ||
    !existsSync(join(npm, 'node_modules', '@anthropic-ai', 'sdk'))) {
  throw new Error(
    `${join(npm, 'node_modules')} lacks openai / @anthropic-ai/sdk: run scripts/setup.sh`);
}
const require = createRequire(join(npm, 'package.json'));
export const OpenAI = require('openai').default;
export const Anthropic = require('@anthropic-ai/sdk').default;
export const { betaTool } = require('@anthropic-ai/sdk/helpers/beta/json-schema');

const START_TIMEOUT_MS = 15000;
const STOP_TIMEOUT_MS = 15000;

export function toolwireBinary() {
  const bin = process.env.TOOLWIRE_BINARY;
  if (!bin || !existsSync(bin)) {
    throw new Error(`TOOLWIRE_BINARY must name the toolwire executable (got ${bin})`);
  }
  return bin;
}

// A fetch that records every response's status and headers, for the SDKs'
// `fetch` option: the `toolwire-warnings` header is read from here.
export function recordingFetch() {
  const responses = [];
  const fetchFn = async (url, init) => {
    const res = await fetch(url, init);
    responses.push({ url: String(url), status: res.status, headers: res.headers });
    return res;
  };
  return { fetch: fetchFn, responses };
}

export function openaiClient(baseURL, fetchFn) {
  return new OpenAI({
    apiKey: 'sk-client-dummy', baseURL, maxRetries: 0, timeout: 20000, fetch: fetchFn,
  });
}

export function anthropicClient(baseURL, fetchFn) {
  return new Anthropic({
    apiKey: 'sk-ant-client-dummy', baseURL, maxRetries: 0, timeout: 20000, fetch: fetchFn,
  });
}

// Starts `toolwire serve --upstream KIND=BASE` in front of `mock`.
// upstream: 'openai' | 'openai_compatible' | 'anthropic'.
export async function startGateway(mock, { upstream, upstreamModel, keyEnv, env = {}, args = [] }) {
  const base = upstream === 'anthropic' ? mock.anthropicBase : mock.openaiBase;
  const argv = ['serve', '--listen', '127.0.0.1:0', '--upstream', `${upstream}=${base}`, ...args];
  if (upstreamModel) argv.push('--upstream-model', upstreamModel);
  if (keyEnv) argv.push('--upstream-key-env', keyEnv);
  const proc = spawn(toolwireBinary(), argv, {
    env: { ...process.env, ...env }, stdio: ['ignore', 'pipe', 'pipe'],
  });
  let stdout = '';
  let stderr = '';
  proc.stderr.setEncoding('utf8');
  proc.stderr.on('data', (d) => { stderr += d; });
  const exited = new Promise((resolve) => {
    proc.once('exit', (code, signal) => resolve({ code, signal }));
  });

  const url = await new Promise((resolve, reject) => {
    const timer = setTimeout(() => {
      reject(new Error(`toolwire serve printed no listening line in ${START_TIMEOUT_MS} ms; ` +
                       `stdout: ${JSON.stringify(stdout)} stderr: ${stderr}`));
    }, START_TIMEOUT_MS);
    proc.stdout.setEncoding('utf8');
    proc.stdout.on('data', (d) => {
      stdout += d;
      const nl = stdout.indexOf('\n');
      if (nl < 0) return;
      clearTimeout(timer);
      const line = stdout.slice(0, nl);
      const m = /^toolwire serve: listening on (http:\/\/127\.0\.0\.1:\d+)$/.exec(line);
      if (m) resolve(m[1]);
      else reject(new Error(`unexpected first stdout line: ${JSON.stringify(line)}`));
    });
    proc.once('error', (e) => { clearTimeout(timer); reject(e); });
    exited.then(({ code, signal }) => {
      clearTimeout(timer);
      reject(new Error(`toolwire serve exited (${code ?? signal}) before listening: ${stderr}`));
    });
  });

  let stopped = null;
  return {
    url,
    openaiBase: `${url}/v1`,
    anthropicBase: url,
    pid: proc.pid,
    stderr: () => stderr,
    stdout: () => stdout,
    // SIGTERM to our own child by its PID; it must drain and exit 0.
    async stop() {
      if (stopped) return stopped;
      stopped = (async () => {
        process.kill(proc.pid, 'SIGTERM');
        let timer;
        const result = await Promise.race([
          exited,
          new Promise((resolve) => { timer = setTimeout(() => resolve(null), STOP_TIMEOUT_MS); }),
        ]);
        clearTimeout(timer);
        if (result === null) {
          process.kill(proc.pid, 'SIGKILL');
          await exited;
          assert.fail(`toolwire serve did not exit within ${STOP_TIMEOUT_MS} ms of SIGTERM`);
        }
        assert.deepEqual(result, { code: 0, signal: null },
          `toolwire serve exit after SIGTERM; stderr:\n${stderr}`);
        // Only the listening line on stdout: logs go to stderr.
        assert.equal(stdout.split('\n').filter((l) => l !== '').length, 1, `stdout: ${stdout}`);
      })();
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
