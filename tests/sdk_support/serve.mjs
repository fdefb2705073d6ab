// `toolwire serve` as a child process of a test: started on 127.0.0.1 port 0,
// its URL read from the listening line, stopped by PID with SIGTERM (it must
// drain and exit 0, with nothing but the listening line on stdout). Every
// wait is bounded; nothing sleeps to synchronise. TOOLWIRE_BINARY names the
// executable (CTest sets it).
import assert from 'node:assert/strict';
import { spawn } from 'node:child_process';
import { existsSync } from 'node:fs';

const START_TIMEOUT_MS = 15000;
const STOP_TIMEOUT_MS = 15000;

export function toolwireBinary() {
  const bin = process.env.TOOLWIRE_BINARY;
  if (!bin || !existsSync(bin)) {
    throw new Error(`TOOLWIRE_BINARY must name the toolwire executable (got ${bin})`);
  }
  return bin;
}

// The environment without API keys or AWS settings, so that none of the
// machine's reach a toolwire under test.
export function cleanEnv() {
  const env = { ...process.env };
  for (const k of Object.keys(env)) {
    if (k.startsWith('AWS_') || k.endsWith('_API_KEY')) delete env[k];
  }
  return env;
}

// Resolves with the URL of the listening line; rejects if the process exits
// first or the line does not come within `ms`.
function waitListening(proc, out, ms) {
  return new Promise((resolve, reject) => {
    const timer = setTimeout(() => done(new Error(
      `toolwire serve printed no listening line in ${ms} ms; ` +
      `stdout: ${JSON.stringify(out.stdout)} stderr: ${out.stderr}`)), ms);
    const onData = () => {
      const nl = out.stdout.indexOf('\n');
      if (nl < 0) return;
      const line = out.stdout.slice(0, nl);
      const m = /^toolwire serve: listening on (http:\/\/127\.0\.0\.1:\d+)$/.exec(line);
      if (m) done(null, m[1]);
      else done(new Error(`unexpected first stdout line: ${JSON.stringify(line)}`));
    };
    const onExit = (code, signal) => done(new Error(
      `toolwire serve exited (${code ?? signal}) before listening: ${out.stderr}`));
    const onError = (e) => done(e);
    function done(err, url) {
      clearTimeout(timer);
      proc.stdout.off('data', onData);
      proc.off('exit', onExit);
      proc.off('error', onError);
      if (err) reject(err);
      else resolve(url);
    }
    proc.stdout.on('data', onData);
    proc.once('exit', onExit);
    proc.once('error', onError);
    onData();
  });
}

// Starts `toolwire serve ARGS` (ARGS must make it listen on 127.0.0.1 port 0)
// with `env` as its whole environment; `startTimeoutMs` bounds the wait for
// the listening line. Returns its URL, PID and output so far, and stop():
// SIGTERM by PID, then exit 0 within STOP_TIMEOUT_MS and nothing on stdout
// but the listening line (logs go to stderr).
export async function startServe(args,
  { env = cleanEnv(), startTimeoutMs = START_TIMEOUT_MS } = {}) {
  const proc = spawn(toolwireBinary(), ['serve', ...args],
    { env, stdio: ['ignore', 'pipe', 'pipe'] });
  const out = { stdout: '', stderr: '' };
  proc.stdout.setEncoding('utf8');
  proc.stderr.setEncoding('utf8');
  proc.stdout.on('data', (d) => { out.stdout += d; });
  proc.stderr.on('data', (d) => { out.stderr += d; });
  const exited = new Promise((resolve) => {
    proc.once('exit', (code, signal) => resolve({ code, signal }));
  });
  let url;
  try {
    url = await waitListening(proc, out, startTimeoutMs);
  } catch (e) {
    if (proc.exitCode === null && proc.signalCode === null) {
      process.kill(proc.pid, 'SIGKILL');
      await exited;
    }
    throw e;
  }
  let stopped = null;
  return {
    url,
    pid: proc.pid,
    stdout: () => out.stdout,
    stderr: () => out.stderr,
    stop() {
      stopped ??= (async () => {
        process.kill(proc.pid, 'SIGTERM');
        let timer;
        const result = await Promise.race([exited, new Promise((resolve) => {
          timer = setTimeout(() => resolve(null), STOP_TIMEOUT_MS);
        })]);
        clearTimeout(timer);
        if (result === null) {
          process.kill(proc.pid, 'SIGKILL');
          await exited;
          assert.fail(`toolwire serve did not exit within ${STOP_TIMEOUT_MS} ms of SIGTERM`);
        }
        assert.deepEqual(result, { code: 0, signal: null },
          `toolwire serve exit after SIGTERM; stderr:\n${out.stderr}`);
        assert.equal(out.stdout.split('\n').filter((l) => l !== '').length, 1,
          `stdout: ${out.stdout}`);
      })();
      return stopped;
    },
  };
}

