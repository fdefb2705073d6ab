// Runs @modelcontextprotocol/conformance (tests/npm/node_modules, offline)
// against toolwire: its server scenarios against POST/GET/DELETE /mcp of
// `toolwire serve` (the offline default: read-only built-ins of a temporary
// workspace and the demo's to-do tools), its client scenarios with
// tests/mcp/conformance/client.cc.
//
//   node run.mjs          the scenarios toolwire passes (CTest mcp_conformance):
//                         fails when one of them fails
//   node run.mjs --all    every scenario but the OAuth ones, one line each
//
// Environment: TOOLWIRE_BINARY (toolwire), TOOLWIRE_MCP_CONFORMANCE_CLIENT
// (mcp_conformance_client). On Node 20 the suite needs node20.mjs (it imports
// fs.globSync, Node 22+); it is loaded on every Node.
import { spawn } from "node:child_process";
import { mkdtempSync, rmSync, writeFileSync } from "node:fs";
import { createRequire } from "node:module";
import { tmpdir } from "node:os";
import { dirname, join } from "node:path";
import { fileURLToPath } from "node:url";

const here = dirname(fileURLToPath(import.meta.url));
const require = createRequire(join(here, "..", "..", "npm", "package.json"));
const cli = join(dirname(require.resolve("@modelcontextprotocol/conformance/package.json")),
                 "dist", "index.js");
const binary = process.env.TOOLWIRE_BINARY;
const client = process.env.TOOLWIRE_MCP_CONFORMANCE_CLIENT;
if (!binary || !client) {
  console.error("TOOLWIRE_BINARY and TOOLWIRE_MCP_CONFORMANCE_CLIENT must be set");
  process.exit(2);
}
const all = process.argv.includes("--all");

// What toolwire passes. The other server scenarios need tools, resources,
// prompts, logging, completion, sampling or elicitation that toolwire's
// server does not offer (docs/mcp.md, "Conformance").
const passingServer = ["server-initialize", "ping", "tools-list", "server-sse-multiple-streams",
                       "dns-rebinding-protection"];
const passingClient = ["initialize", "tools_call", "sse-retry"];

function run(args, cwd, limitMs = 60000) {
  return new Promise((resolve) => {
    const p = spawn(process.execPath, ["--import", join(here, "node20.mjs"), cli, ...args],
                    { cwd, stdio: ["ignore", "pipe", "pipe"] });
    let out = "";
    p.stdout.on("data", (d) => { out += d; });
    p.stderr.on("data", (d) => { out += d; });
    const timer = setTimeout(() => p.kill("SIGKILL"), limitMs);
    p.on("exit", (code) => {
      clearTimeout(timer);
      resolve({ code, out });
    });
  });
}

// Exit 0 and at least one check passed: a scenario whose checks never ran
// (a client that did not connect gets "Passed: 0/0") is no pass.
function passed(r) {
  const m = r.out.match(/Passed: (\d+)\/(\d+), (\d+) failed/);
  return r.code === 0 && m && Number(m[1]) >= 1 && Number(m[3]) === 0;
}

async function scenarios(kind) {
  const { out } = await run(["list"], tmpdir());
  const names = [];
  let section = "";
  for (const line of out.split("\n")) {
    if (line.startsWith("Server scenarios")) section = "server";
    else if (line.startsWith("Client scenarios")) section = "client";
    const m = line.match(/^\s+- (\S+)/);
    if (m && section === kind && !m[1].startsWith("auth/")) names.push(m[1]);
  }
  return names;
}

const work = mkdtempSync(join(tmpdir(), "tw-mcp-conformance-"));
writeFileSync(join(work, "notes.txt"), "alpha\n");
const gateway = spawn(binary, ["serve", "--listen", "127.0.0.1:0", "--workspace", work,
                               "--data-dir", work, "--quiet"],
                      { stdio: ["ignore", "pipe", "pipe"] });
let failed = 0;
try {
  const base = await new Promise((resolve, reject) => {
    let out = "", err = "";
    const timer = setTimeout(() => reject(new Error("no listening line: " + err)), 20000);
    gateway.stderr.on("data", (d) => { err += d; });
    gateway.stdout.on("data", (d) => {
      out += d;
      const m = out.match(/listening on (http:\/\/\S+)/);
      if (m) { clearTimeout(timer); resolve(m[1]); }
    });
    gateway.on("exit", (code) => reject(new Error(`toolwire serve exited ${code}: ${err}`)));
  });
  const server = all ? await scenarios("server") : passingServer;
  const clients = all ? await scenarios("client") : passingClient;
  for (const s of server) {
    const r = await run(["server", "--url", base + "/mcp", "--scenario", s], work);
    const line = (r.out.match(/Passed: .*/) || ["(no summary)"])[0];
    const ok = passed(r);
    console.log(`${ok ? "PASS" : "FAIL"} server ${s}: ${line}`);
    if (!ok) {
      failed++;
      if (!all) console.log(r.out);
    }
  }
  for (const s of clients) {
    const r = await run(["client", "--command", client, "--scenario", s], work);
    const line = (r.out.match(/Passed: .*/) || ["(no summary)"])[0];
    const ok = passed(r);
    console.log(`${ok ? "PASS" : "FAIL"} client ${s}: ${line}`);
    if (!ok) {
      failed++;
      if (!all) console.log(r.out);
    }
  }
} finally {
  gateway.kill("SIGTERM");
  rmSync(work, { recursive: true, force: true });
}
process.exit(all || failed === 0 ? 0 : 1);
