// The console (GET /ui) in headless Chromium (Debian's `chromium`, driven by
// playwright-core from tests/npm): `toolwire serve` with gateway keys in
// front of the scripted upstream; a request whose model calls two of the
// gateway's server tools (read, grep; content captured) makes a trace, a
// device's conductor session waits on a call. The page loads with no
// console error but the 401 that asks for the key; with the admin key typed
// in, the trace is listed, its timeline shows both tool calls as bars, a
// bar shows its arguments and result, and the session's pending call is
// listed; the filters work; another key sees its own traces and is told the
// sessions need an admin key; a model name made of HTML shows as text. Screenshots go to TOOLWIRE_CONSOLE_SHOTS (docs/images/ when
// refreshing the docs) or a temporary folder.
//
// Run directly (`node console_chromium.test.mjs`): without Chromium it exits
// 77, which CTest reports as skipped; scripts/setup.sh installs it.
import assert from 'node:assert/strict';
import { createHash } from 'node:crypto';
import { existsSync, mkdirSync, mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { after, before, test } from 'node:test';

import { startMockUpstream } from '../sdk_support/mock_upstream.mjs';
import { importSdk } from '../sdk_support/sdk.mjs';
import { cleanEnv, startServe } from '../sdk_support/serve.mjs';

const CHROMIUM = process.env.TOOLWIRE_CHROMIUM ?? '/usr/bin/chromium';
if (!existsSync(CHROMIUM)) {
  console.log(`SKIP: no Chromium at ${CHROMIUM} (scripts/setup.sh installs Debian's chromium)`);
  process.exit(77);
}
const { chromium } = await importSdk('playwright-core');

const ADMIN = 'tw-console-admin-key-1234';
const APP = 'tw-console-app-key-5678';
const WAIT_MS = 15000;

let mock;
let serve;
let dir;
let browser;

function config(mockRoot) {
  const sha = (k) => createHash('sha256').update(k).digest('hex');
  return [
    'listen: 127.0.0.1:0',
    'telemetry:',
    '  traces: true',
    `  data_dir: ${join(dir, 'data')}`,
    'keys:',
    `  - {name: ops, admin: true, sha256: "sha256:${sha(ADMIN)}"}`,
    `  - {name: app, sha256: "sha256:${sha(APP)}"}`,
    'upstreams:',
    `  mock: {profile: openai_compatible, base_url: "${mockRoot}/v1"}`,
    'routes:',
    '  - model: "*"',
    '    upstreams: [mock]',
    '    capture_content: true',
    `    tools: {mode: server, workspace: ${join(dir, 'ws')}, builtins: [read, grep]}`,
    '',
  ].join('\n');
}

before(async () => {
  dir = mkdtempSync(join(tmpdir(), 'toolwire-console-'));
  mkdirSync(join(dir, 'ws'));
  writeFileSync(join(dir, 'ws', 'notes.txt'), 'Lisbon: sunny, 24 C\nPorto: rain\n');
  mock = await startMockUpstream();
  writeFileSync(join(dir, 'gateway.yaml'), config(mock.root));
  serve = await startServe(['--config', join(dir, 'gateway.yaml')], { env: cleanEnv() });
  browser = await chromium.launch({
    executablePath: CHROMIUM,
    headless: true,
    args: ['--no-sandbox', '--disable-dev-shm-usage'],
    timeout: WAIT_MS,
  });
});

after(async () => {
  await browser?.close();
  await serve?.stop();
  await mock?.close();
  if (dir) rmSync(dir, { recursive: true, force: true });
});

async function getJson(path, key) {
  const r = await fetch(`${serve.url}${path}`, { headers: { authorization: `Bearer ${key}` } });
  assert.equal(r.status, 200, `${path}: ${await r.clone().text()}`);
  return r.json();
}

// The trace store writes off the request path (a batch every 250 ms): poll,
// bounded, until the request's trace is there.
async function waitTrace(predicate) {
  const deadline = Date.now() + WAIT_MS;
  for (;;) {
    const { traces } = await getJson('/v1/traces?limit=20', ADMIN);
    const t = traces.find(predicate);
    if (t) return t;
    assert.ok(Date.now() < deadline, `no such trace in ${WAIT_MS} ms: ${JSON.stringify(traces)}`);
    await new Promise((resolve) => { setTimeout(resolve, 100); });
  }
}

test('the console lists a trace, shows its tool calls as a timeline, and live sessions', async () => {
  // A request whose model asks for two server tools, then answers.
  mock.enqueue({
    toolCalls: [
      { id: 'call_r1', name: 'read', arguments: { path: 'notes.txt' } },
      { id: 'call_g1', name: 'grep', arguments: { pattern: 'Lisbon' } },
    ],
    usage: { input: 42, output: 17 },
  }, { text: 'Lisbon is sunny, 24 C.', usage: { input: 120, output: 9 } });
  const r = await fetch(`${serve.url}/v1/chat/completions`, {
    method: 'POST',
    headers: { authorization: `Bearer ${APP}`, 'content-type': 'application/json' },
    body: JSON.stringify({
      model: 'gpt-console',
      messages: [{ role: 'user', content: 'What do my notes say about Lisbon?' }],
    }),
  });
  assert.equal(r.status, 200, await r.clone().text());
  const answer = await r.json();
  assert.equal(answer.choices[0].message.content, 'Lisbon is sunny, 24 C.');
  const trace = await waitTrace((t) => t.model === 'gpt-console' && t.spans === 4);
  assert.equal(trace.key, 'app');

  const context = await browser.newContext({ viewport: { width: 1360, height: 980 } });
  const page = await context.newPage();
  const errors = [];
  page.on('console', (m) => {
    if (m.type() === 'error') errors.push(m.text());
  });
  page.on('pageerror', (e) => errors.push(`page error: ${e.message}`));

  // A device on the conductor (from a page on the gateway's origin, which
  // the conductor allows): its model asks for get_battery, the device does
  // not answer, so the call stays pending.
  mock.enqueue({ toolCalls: [{ id: 'call_b1', name: 'get_battery', arguments: {} }] });
  const device = await context.newPage();
  await device.goto(`${serve.url}/health`, { timeout: WAIT_MS });
  const callName = await device.evaluate(({ key }) => new Promise((resolve, reject) => {
    const ws = new WebSocket(`ws://${location.host}/v1/conductor`);
    const timer = setTimeout(() => reject(new Error('no tool.call in 15 s')), 15000);
    ws.onerror = () => reject(new Error('WebSocket error'));
    ws.onopen = () => ws.send(JSON.stringify({
      type: 'session.start',
      payload: {
        apiKey: key,
        model: 'gpt-device',
        tools: [{ name: 'get_battery', description: 'Battery level', parameters: { type: 'object' } }],
      },
    }));
    ws.onmessage = (e) => {
      const f = JSON.parse(e.data);
      if (f.type === 'session.ready')
        ws.send(JSON.stringify({ type: 'transcript.final', payload: { text: 'battery?' } }));
      if (f.type === 'tool.call') {
        clearTimeout(timer);
        window.deviceSocket = ws;  // kept open: the call stays pending
        resolve(f.payload.name);
      }
    };
  }), { key: APP });
  assert.equal(callName, 'get_battery');

  // The page loads; without a key its first reads are refused and it asks.
  await page.goto(`${serve.url}/ui`, { timeout: WAIT_MS });
  await page.waitForFunction(
    () => document.getElementById('status').textContent.includes('admin key'), null,
    { timeout: WAIT_MS });
  await page.fill('#admin-key', ADMIN);
  await page.click('#key-form button[type=submit]');

  // The trace is listed; a click shows its timeline with both tool calls.
  const row = `#traces tbody tr[data-trace-id="${trace.trace_id}"]`;
  await page.waitForSelector(row, { timeout: WAIT_MS });
  await page.click(row);
  await page.waitForSelector('#timeline g.span.tool_call', { timeout: WAIT_MS });
  const bars = await page.$$eval('#timeline g.span', (gs) => gs.map((g) => ({
    name: g.getAttribute('data-name'),
    kind: g.classList.contains('tool_call') ? 'tool_call' : 'model_call',
    label: g.querySelector('text').textContent,
    width: Number(g.querySelector('rect.bar').getAttribute('width')),
  })));
  const tools = bars.filter((b) => b.kind === 'tool_call').map((b) => b.name).sort();
  assert.deepEqual(tools, ['execute_tool grep', 'execute_tool read'], JSON.stringify(bars));
  assert.equal(bars.filter((b) => b.kind === 'model_call').length, 2);
  for (const b of bars) assert.ok(b.width > 0, JSON.stringify(b));
  assert.ok(bars.every((b) => b.kind !== 'tool_call' || b.label.endsWith('· server')),
    JSON.stringify(bars));

  // A tool bar shows its captured arguments and result.
  await page.click('#timeline g.span[data-name="execute_tool read"]');
  await page.waitForSelector('#span-detail tr[data-attr="gen_ai.tool.call.arguments"]',
    { timeout: WAIT_MS });
  const args = await page.textContent('#span-detail tr[data-attr="gen_ai.tool.call.arguments"] td');
  assert.deepEqual(JSON.parse(args), { path: 'notes.txt' });
  const result = await page.textContent('#span-detail tr[data-attr="gen_ai.tool.call.result"] td');
  assert.match(result, /Lisbon: sunny/);

  // The live session and its pending call (the panel refreshes every 5 s).
  await page.waitForSelector('#sessions tbody tr[data-session-id] .pending', { timeout: WAIT_MS });
  const pending = await page.textContent('#sessions tbody tr[data-session-id] .pending');
  assert.match(pending, /^get_battery \(call_b1\) waiting/);

  // The charts have drawn the request.
  await page.waitForSelector('#chart-requests svg rect.s-requests', { timeout: WAIT_MS });

  const shots = process.env.TOOLWIRE_CONSOLE_SHOTS ?? dir;
  await page.screenshot({ path: join(shots, 'console-overview.png'), fullPage: true });
  await page.locator('#trace-section').screenshot({ path: join(shots, 'console-trace.png') });

  // The filters: errors only hides it (it succeeded); its model finds it.
  await page.check('#f-errors');
  await page.waitForSelector('#traces-empty', { state: 'visible', timeout: WAIT_MS });
  await page.uncheck('#f-errors');
  await page.fill('#f-model', 'gpt-console');
  await page.click('#filters button[type=submit]');
  await page.waitForSelector(row, { timeout: WAIT_MS });
  assert.equal(await page.locator('#traces tbody tr').count(), 1);

  // Only the refusals before the key was typed.
  const unexpected = errors.filter((e) => !/status of 401 \(Unauthorized\)/.test(e));
  assert.deepEqual(unexpected, []);

  // Another key: its own traces still, the sessions refused (one 403, then
  // not asked again).
  await page.fill('#admin-key', APP);
  await page.click('#key-form button[type=submit]');
  await page.waitForFunction(
    () => document.querySelector('#sessions tbody').textContent.includes('Sessions need an admin key'),
    null, { timeout: WAIT_MS });
  assert.equal(await page.locator(row).count(), 1);
  // Data is shown as text, never as markup: a model name that is HTML.
  const evil = '<img src=x onerror="window.pwned=1">';
  mock.enqueue({ text: 'ok' });
  const r2 = await fetch(`${serve.url}/v1/chat/completions`, {
    method: 'POST',
    headers: { authorization: `Bearer ${APP}`, 'content-type': 'application/json' },
    body: JSON.stringify({ model: evil, messages: [{ role: 'user', content: 'hi' }] }),
  });
  assert.equal(r2.status, 200, await r2.clone().text());
  await waitTrace((t) => t.model === evil);
  await page.fill('#f-model', '');
  await page.click('#filters button[type=submit]');
  await page.waitForFunction((m) => [...document.querySelectorAll('#traces td')]
    .some((td) => td.textContent === m), evil, { timeout: WAIT_MS });
  assert.equal(await page.locator('#traces img').count(), 0);
  assert.equal(await page.evaluate(() => window.pwned), undefined);

  const forbidden = errors.filter((e) => /status of 403 \(Forbidden\)/.test(e));
  assert.equal(forbidden.length, 1, JSON.stringify(errors));
  assert.deepEqual(errors.filter((e) => !/status of 40[13] /.test(e)), []);
  await context.close();
});
