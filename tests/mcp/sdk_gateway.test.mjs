// The official @modelcontextprotocol/sdk client (tests/npm/node_modules) over
// Streamable HTTP against POST /mcp of `toolwire serve` (the offline default:
// read-only built-ins of --workspace and the demo's to-do tools).
import { test, before, after } from "node:test";
import assert from "node:assert/strict";
import { spawn } from "node:child_process";
import { mkdtempSync, writeFileSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join, dirname } from "node:path";
import { createRequire } from "node:module";
import { fileURLToPath } from "node:url";

const here = dirname(fileURLToPath(import.meta.url));
const require = createRequire(join(here, "..", "npm", "package.json"));
const { Client } = await import(require.resolve("@modelcontextprotocol/sdk/client/index.js"));
const { StreamableHTTPClientTransport } = await import(
  require.resolve("@modelcontextprotocol/sdk/client/streamableHttp.js"));

const binary = process.env.TOOLWIRE_BINARY;
assert.ok(binary, "TOOLWIRE_BINARY must name the toolwire executable");

let gateway, base, dir;

before(async () => {
  dir = mkdtempSync(join(tmpdir(), "tw-mcp-gw-sdk-"));
  writeFileSync(join(dir, "notes.txt"), "alpha\nbeta\n");
  gateway = spawn(binary, ["serve", "--listen", "127.0.0.1:0", "--workspace", dir,
                           "--data-dir", dir, "--quiet"],
                  { stdio: ["ignore", "pipe", "pipe"] });
  let err = "";
  gateway.stderr.on("data", (d) => { err += d; });
  base = await new Promise((resolve, reject) => {
    const timer = setTimeout(() => reject(new Error("no listening line; stderr: " + err)), 20000);
    let out = "";
    gateway.stdout.on("data", (d) => {
      out += d;
      const m = out.match(/listening on (http:\/\/\S+)/);
      if (m) { clearTimeout(timer); resolve(m[1]); }
    });
    gateway.on("exit", (code) => reject(new Error(`toolwire serve exited ${code}: ${err}`)));
  });
});

after(() => {
  gateway?.kill("SIGTERM");
  if (dir) rmSync(dir, { recursive: true, force: true });
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
