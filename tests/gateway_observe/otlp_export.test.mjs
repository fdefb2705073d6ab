// OTLP export end to end: `toolwire serve --config FILE --otlp-endpoint URL`
// (a gateway key, the offline scripted model, server tools) in front of a
// receiver that decodes with the official opentelemetry-proto definitions
// (otlp_receiver.mjs). A request that runs a server tool becomes a SERVER
// root, two CLIENT model spans and one INTERNAL tool span with the GenAI
// attributes, one trace id, the root as parent; neither key reaches the
// collector, and the --otlp-header does. With the collector down, requests
// still answer at once and the failure and drop counters move.
// Every wait is bounded; servers listen on 127.0.0.1 port 0 and stop by PID.
import assert from 'node:assert/strict';
import { createHash } from 'node:crypto';
import { createServer } from 'node:net';
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { after, before, test } from 'node:test';

import { cleanEnv, startServe } from '../sdk_support/serve.mjs';
import { startReceiver } from './otlp_receiver.mjs';

const GATEWAY_KEY = 'sk-gateway-otlp-SECRET-4242';
const UPSTREAM_KEY = 'sk-upstream-otlp-SECRET-9999';
const COLLECTOR_TOKEN = 'collector-token-1';

const dir = mkdtempSync(join(tmpdir(), 'toolwire-otlp-'));
after(() => rmSync(dir, { recursive: true, force: true }));

function config({ flushMs = 50 } = {}) {
  const sha = createHash('sha256').update(GATEWAY_KEY).digest('hex');
  const file = join(dir, `gateway-${flushMs}.yaml`);
  writeFileSync(file, [
    'listen: 127.0.0.1:0',
    'keys:',
    `  - {name: ci, sha256: "sha256:${sha}"}`,
    'telemetry:',
    '  traces: false',
    '  otlp:',
    '    endpoint: http://127.0.0.1:1/ignored',  // the flag's URL wins
    '    service_name: toolwire-test',
    `    flush_ms: ${flushMs}`,
    '    timeout_ms: 2000',
    'upstreams:',
    '  demo: {profile: scripted}',
    'routes:',
    '  - model: "*"',
    '    upstreams: [demo]',
    '    tools:',
    '      mode: server',
    '      demo_todo: true',
    `      data_dir: ${join(dir, 'todo')}`,
    '',
  ].join('\n'));
  return file;
}

async function chat(url, content) {
  const started = Date.now();
  const r = await fetch(`${url}/v1/chat/completions`, {
    method: 'POST',
    headers: { 'content-type': 'application/json', authorization: `Bearer ${GATEWAY_KEY}` },
    body: JSON.stringify({ model: 'demo', messages: [{ role: 'user', content }] }),
    signal: AbortSignal.timeout(10000),
  });
  const body = await r.text();
  assert.equal(r.status, 200, body);
  return { body, ms: Date.now() - started };
}

async function metric(url, name) {
  const text = await (await fetch(`${url}/metrics`, { signal: AbortSignal.timeout(5000) })).text();
  const line = text.split('\n').find((l) => l.startsWith(name + ' '));
  return line ? Number(line.split(' ')[1]) : NaN;
}

// Polls /metrics until `name` passes `pred`, within `ms` (the counters move
// on the sender's thread, after the collector's answer).
async function waitMetric(url, name, pred, ms = 15000) {
  const deadline = Date.now() + ms;
  let v = await metric(url, name);
  while (!pred(v) && Date.now() < deadline) {
    await new Promise((r) => setTimeout(r, 50));
    v = await metric(url, name);
  }
  return v;
}

let rx;
before(async () => { rx = await startReceiver(); });
after(async () => { await rx?.close(); });

test('a server-tool request reaches the collector as GenAI spans', async () => {
  const env = { ...cleanEnv(), OPENAI_API_KEY: UPSTREAM_KEY };
  const serve = await startServe(['--config', config(), '--otlp-endpoint', rx.url,
    '--otlp-header', `authorization=Bearer ${COLLECTOR_TOKEN}`], { env });
  try {
    await chat(serve.url, 'add a todo: buy milk');
    const spans = await rx.waitForSpans((s) => s.some((x) => x.kind === 'SPAN_KIND_SERVER'), 10000);
    const root = spans.find((s) => s.kind === 'SPAN_KIND_SERVER');
    assert.equal(root.name, 'POST /v1/chat/completions');
    assert.equal(root.parentSpanId, '');
    assert.equal(root.traceId.length, 32);
    assert.equal(root.spanId.length, 16);
    assert.equal(root.attrs['http.request.method'], 'POST');
    assert.equal(root.attrs['http.route'], '/v1/chat/completions');
    assert.equal(root.attrs['http.response.status_code'], 200);
    assert.equal(root.attrs['gen_ai.request.model'], 'demo');
    assert.equal(root.attrs['toolwire.key_name'], 'ci');
    assert.equal(root.resource['service.name'], 'toolwire-test');

    const mine = spans.filter((s) => s.traceId === root.traceId);
    const models = mine.filter((s) => s.kind === 'SPAN_KIND_CLIENT');
    const tools = mine.filter((s) => s.kind === 'SPAN_KIND_INTERNAL');
    assert.equal(models.length, 2, JSON.stringify(mine));
    assert.equal(tools.length, 1, JSON.stringify(mine));
    for (const s of [...models, ...tools]) {
      assert.equal(s.parentSpanId, root.spanId);
      assert.ok(BigInt(s.startTimeUnixNano) >= BigInt(root.startTimeUnixNano));
      assert.ok(BigInt(s.endTimeUnixNano) <= BigInt(root.endTimeUnixNano));
    }
    const m = models[0];
    assert.equal(m.name, 'chat demo');
    assert.equal(m.attrs['gen_ai.operation.name'], 'chat');
    assert.equal(m.attrs['gen_ai.request.model'], 'demo');
    assert.equal(m.attrs['gen_ai.provider.name'], 'scripted');
    assert.equal(m.attrs['gen_ai.response.model'], 'scripted-1');
    assert.ok(m.attrs['gen_ai.response.id']);
    assert.ok(m.attrs['gen_ai.usage.input_tokens'] > 0);
    assert.ok(m.attrs['gen_ai.usage.output_tokens'] > 0);
    assert.deepEqual(m.attrs['gen_ai.response.finish_reasons'], ['tool_calls']);
    assert.equal(m.attrs['toolwire.route'], '/v1/chat/completions');
    const t = tools[0];
    assert.match(t.name, /^execute_tool /);
    assert.equal(t.attrs['gen_ai.operation.name'], 'execute_tool');
    assert.equal(t.name, `execute_tool ${t.attrs['gen_ai.tool.name']}`);
    assert.ok(t.attrs['gen_ai.tool.call.id']);
    assert.equal(t.attrs['toolwire.tool.runner'], 'server');
    assert.equal(t.attrs['toolwire.tool.outcome'], 'ok');
    // Content capture is off: no arguments or results.
    assert.equal(t.attrs['gen_ai.tool.call.arguments'], undefined);

    // The collector's header arrived; no key is in any payload.
    assert.equal(rx.requests[0].headers.authorization, `Bearer ${COLLECTOR_TOKEN}`);
    for (const r of rx.requests) {
      assert.equal(r.raw.includes(GATEWAY_KEY), false);
      assert.equal(r.raw.includes(UPSTREAM_KEY), false);
      assert.equal(r.raw.includes(COLLECTOR_TOKEN), false);
    }
    const exported =
      await waitMetric(serve.url, 'toolwire_otlp_spans_exported_total', (v) => v >= 4);
    assert.ok(exported >= 4, `toolwire_otlp_spans_exported_total ${exported}`);
  } finally {
    await serve.stop();
  }
});

// A port nothing listens on: bound, then closed.
async function deadPort() {
  const s = createServer();
  await new Promise((r) => s.listen(0, '127.0.0.1', r));
  const { port } = s.address();
  await new Promise((r) => s.close(r));
  return port;
}

test('with the collector down, requests answer at once and failures are counted', async () => {
  const port = await deadPort();
  const serve = await startServe(['--config', config({ flushMs: 1 }),
    '--otlp-endpoint', `http://127.0.0.1:${port}`]);
  try {
    for (let i = 0; i < 3; ++i) {
      const { ms } = await chat(serve.url, 'list my todos');
      assert.ok(ms < 2000, `a request took ${ms} ms with the collector down`);
    }
    // The sender retries with backoff off the request path; poll the
    // counters within a bound (the export timeout is 2 s).
    const deadline = Date.now() + 15000;
    let failures = 0;
    let dropped = 0;
    while (Date.now() < deadline) {
      failures = await metric(serve.url, 'toolwire_otlp_export_failures_total');
      const text = await (await fetch(`${serve.url}/metrics`)).text();
      const m = /toolwire_otlp_spans_dropped_total\{reason="export_failed"\} (\d+)/.exec(text);
      dropped = m ? Number(m[1]) : 0;
      if (failures > 0 && dropped > 0) break;
      await new Promise((r) => setTimeout(r, 100));
    }
    assert.ok(failures > 0, 'toolwire_otlp_export_failures_total stayed 0');
    assert.ok(dropped > 0, 'no span counted as dropped');
    assert.equal(await metric(serve.url, 'toolwire_otlp_spans_exported_total'), 0);
  } finally {
    await serve.stop();
  }
});

test('a bad --otlp-endpoint is a usage error', async () => {
  const { spawnSync } = await import('node:child_process');
  const { toolwireBinary } = await import('../sdk_support/serve.mjs');
  for (const [url, why] of [['collector:4318', 'http:// or https://'],
    ['http://:4318', 'no host'], ['http://h:99999', 'port'], ['http://u:p@h', 'header']]) {
    const r = spawnSync(toolwireBinary(), ['serve', '--listen', '127.0.0.1:0', '--otlp-endpoint', url],
      { env: cleanEnv(), encoding: 'utf8', timeout: 10000 });
    assert.equal(r.status, 2, `${url}: ${r.stderr}`);
    assert.match(r.stderr, new RegExp(`--otlp-endpoint: .*${why.replace(/[/:]/g, '.')}`), url);
  }
  const r = spawnSync(toolwireBinary(), ['serve', '--listen', '127.0.0.1:0', '--otlp-header', 'a=b'],
    { env: cleanEnv(), encoding: 'utf8', timeout: 10000 });
  assert.equal(r.status, 2, r.stderr);
  assert.match(r.stderr, /--otlp-header needs --otlp-endpoint/);
});
