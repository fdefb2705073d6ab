// The official @modelcontextprotocol/sdk client (tests/npm/node_modules)
// against `toolwire mcp serve` over stdio: handshake, paginated tools/list,
// tools/call results and errors, ping, cancellation of a request.
import { test } from "node:test";
import assert from "node:assert/strict";
import { mkdtempSync, writeFileSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join, dirname } from "node:path";
import { createRequire } from "node:module";
import { fileURLToPath } from "node:url";

const here = dirname(fileURLToPath(import.meta.url));
const require = createRequire(join(here, "..", "npm", "package.json"));
const { Client } = await import(require.resolve("@modelcontextprotocol/sdk/client/index.js"));
const { StdioClientTransport } = await import(
  require.resolve("@modelcontextprotocol/sdk/client/stdio.js"));
const { CallToolResultSchema } = await import(require.resolve("@modelcontextprotocol/sdk/types.js"));

const binary = process.env.TOOLWIRE_BINARY;
assert.ok(binary, "TOOLWIRE_BINARY must name the toolwire executable");

async function connect(dir, extra = []) {
  const transport = new StdioClientTransport({
    command: binary,
    args: ["mcp", "serve", "--workspace", dir, ...extra],
    stderr: "pipe",
  });
  const client = new Client({ name: "sdk-peer", version: "1.0.0" });
  await client.connect(transport);
  return client;
}

test("the SDK client lists and calls toolwire's tools", async () => {
  const dir = mkdtempSync(join(tmpdir(), "tw-mcp-sdk-"));
  writeFileSync(join(dir, "notes.txt"), "first line\nsecond line\n");
  const client = await connect(dir, ["--page-size", "1"]);
  try {
    assert.equal(client.getServerVersion().name, "toolwire");
    // One tool per page: the SDK follows the cursors when asked.
    const names = [];
    let cursor;
    do {
      const page = await client.listTools(cursor ? { cursor } : {});
      assert.equal(page.tools.length, 1);
      names.push(page.tools[0].name);
      cursor = page.nextCursor;
    } while (cursor);
    assert.deepEqual(names, ["read", "list", "glob", "grep"]);

    const read = await client.callTool({ name: "read", arguments: { path: "notes.txt" } });
    assert.equal(read.isError, false);
    assert.match(read.content[0].text, /second line/);

    const grep = await client.callTool({ name: "grep", arguments: { pattern: "second" } });
    assert.match(grep.content[0].text, /notes\.txt/);

    // Bad arguments: a tool error the model can read, not a protocol error.
    const bad = await client.callTool({ name: "read", arguments: { path: 12 } });
    assert.equal(bad.isError, true);
    assert.match(bad.content[0].text, /invalid arguments/);

    // Unknown tool: a JSON-RPC error (-32602).
    await assert.rejects(client.callTool({ name: "nope", arguments: {} }), (e) => {
      assert.equal(e.code, -32602);
      return true;
    });
    await client.ping();

    // A request the SDK aborts is cancelled on the wire; the session goes on.
    const ac = new AbortController();
    const pending = client.request(
      { method: "tools/call", params: { name: "glob", arguments: { pattern: "**/*" } } },
      CallToolResultSchema, { signal: ac.signal });
    ac.abort("test aborts");
    await assert.rejects(pending);
    const again = await client.callTool({ name: "list", arguments: {} });
    assert.match(again.content[0].text, /notes\.txt/);
  } finally {
    await client.close();
    rmSync(dir, { recursive: true, force: true });
  }
});

test("every listed tool has an object input schema (SDK at protocol 2025-11-25)", async () => {
  const dir = mkdtempSync(join(tmpdir(), "tw-mcp-sdk-"));
  const { LATEST_PROTOCOL_VERSION } = await import(
    require.resolve("@modelcontextprotocol/sdk/types.js"));
  const client = await connect(dir);
  try {
    assert.equal(LATEST_PROTOCOL_VERSION, "2025-11-25");
    const { tools } = await client.listTools();
    assert.equal(tools.length, 4);
    for (const t of tools) assert.equal(t.inputSchema.type, "object");
  } finally {
    await client.close();
    rmSync(dir, { recursive: true, force: true });
  }
});
