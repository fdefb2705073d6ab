// The official @modelcontextprotocol/sdk client (tests/npm/node_modules) over
// Streamable HTTP against POST /mcp of `toolwire serve` (the offline default:
// read-only built-ins of --workspace and the demo's to-do tools).
import { test, before, after } from "node:test";
import assert from "node:assert/strict";
import { mkdtempSync, writeFileSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join, dirname } from "node:path";
import { createRequire } from "node:module";
import { fileURLToPath } from "node:url";
import { startServe } from "../sdk_support/serve.mjs";

const here = dirname(fileURLToPath(import.meta.url));
const require = createRequire(join(here, "..", "npm", "package.json"));
const { Client } = await import(require.resolve("@modelcontextprotocol/sdk/client/index.js"));
const { StreamableHTTPClientTransport } = await import(
  require.resolve("@modelcontextprotocol/sdk/client/streamableHttp.js"));

let gateway, base, dir;

before(async () => {
  dir = mkdtempSync(join(tmpdir(), "tw-mcp-gw-sdk-"));
  writeFileSync(join(dir, "notes.txt"), "alpha\nbeta\n");
  gateway = await startServe(["--listen", "127.0.0.1:0", "--workspace", dir, "--data-dir", dir,
                              "--quiet"], { startTimeoutMs: 20000 });
  base = gateway.url;
});

after(async () => {
  try {
    await gateway?.stop();
  } finally {
    if (dir) rmSync(dir, { recursive: true, force: true });
  }
});

async function connect() {
  const transport = new StreamableHTTPClientTransport(new URL(base + "/mcp"));
  const client = new Client({ name: "sdk-http-peer", version: "1.0.0" });
  await client.connect(transport);
  return { client, transport };
}

test("the SDK client lists and calls the gateway's tools over /mcp", async () => {
  const { client, transport } = await connect();
  try {
    assert.equal(client.getServerVersion().name, "toolwire-gateway");
    assert.ok(transport.sessionId, "a session id was issued");
    const { tools } = await client.listTools();
    const names = tools.map((t) => t.name);
    for (const n of ["read", "list", "glob", "grep"]) assert.ok(names.includes(n), names.join());

    const read = await client.callTool({ name: "read", arguments: { path: "notes.txt" } });
    assert.equal(read.isError, false);
    assert.match(read.content[0].text, /beta/);

    const bad = await client.callTool({ name: "read", arguments: { path: 3 } });
    assert.equal(bad.isError, true);

    await assert.rejects(client.callTool({ name: "no_such_tool", arguments: {} }),
                         /Unknown tool/);
    await client.ping();
  } finally {
    await client.close();
  }
});

test("a terminated session is gone; a new one works", async () => {
  const { client, transport } = await connect();
  const old = transport.sessionId;
  await transport.terminateSession();  // DELETE /mcp
  await client.close();
  const r = await fetch(base + "/mcp", {
    method: "POST",
    headers: { "content-type": "application/json", accept: "application/json, text/event-stream",
               "mcp-session-id": old },
    body: JSON.stringify({ jsonrpc: "2.0", id: 9, method: "ping" }),
  });
  assert.equal(r.status, 404);
  const again = await connect();
  try {
    assert.notEqual(again.transport.sessionId, old);
    await again.client.ping();
  } finally {
    await again.client.close();
  }
});

// `toolwire serve --config` with mcp_servers: the SDK client calls, through
// /mcp, a tool of @modelcontextprotocol/server-everything that the gateway
// spawned at start (proxied: toolwire validates, then forwards over stdio).
test("through /mcp to an MCP server the gateway config names", async () => {
  const cfgDir = mkdtempSync(join(tmpdir(), "tw-mcp-gw-cfg-"));
  const everything = require.resolve("@modelcontextprotocol/server-everything/dist/index.js");
  writeFileSync(join(cfgDir, "gw.yaml"), [
    "listen: 127.0.0.1:0",
    "log_requests: false",
    "mcp_servers:",
    "  ev:",
    "    command: node",
    `    args: [${JSON.stringify(everything)}, stdio]`,
    "    allow: [echo, get-sum]",
    "mcp_endpoint:",
    "  tools: {builtins: [], mcp: [ev]}",
    "upstreams: {local: {profile: scripted}}",
    "routes: [{model: m, upstreams: [local], tools: {mode: server, builtins: [], mcp: [ev]}}]",
    "",
  ].join("\n"));
  let gw;
  try {
    gw = await startServe(["--config", join(cfgDir, "gw.yaml")], { startTimeoutMs: 30000 });
    const transport = new StreamableHTTPClientTransport(new URL(gw.url + "/mcp"));
    const client = new Client({ name: "sdk-http-peer", version: "1.0.0" });
    await client.connect(transport);
    try {
      const { tools } = await client.listTools();
      assert.deepEqual(tools.map((t) => t.name).sort(), ["ev__echo", "ev__get-sum"]);
      const r = await client.callTool({ name: "ev__echo", arguments: { message: "via gateway" } });
      assert.equal(r.isError, false);
      assert.equal(r.content[0].text, "Echo: via gateway");
      const sum = await client.callTool({ name: "ev__get-sum", arguments: { a: 2, b: 3 } });
      assert.match(sum.content[0].text, /5/);
      // Refused by toolwire's schema check before it travels.
      const bad = await client.callTool({ name: "ev__echo", arguments: { message: 1 } });
      assert.equal(bad.isError, true);
    } finally {
      await client.close();
    }
  } finally {
    try {
      await gw?.stop();
    } finally {
      rmSync(cfgDir, { recursive: true, force: true });
    }
  }
});
