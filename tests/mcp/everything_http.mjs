// Starts @modelcontextprotocol/server-everything's Streamable HTTP transport
// on 127.0.0.1 with a port the kernel picks (the package listens on $PORT on
// every interface), and prints "LISTENING <port>" on stderr once it listens.
import http from "node:http";
import { createRequire } from "node:module";
import { dirname, join } from "node:path";
import { fileURLToPath } from "node:url";

const here = dirname(fileURLToPath(import.meta.url));
const require = createRequire(join(here, "..", "npm", "package.json"));
const main = join(dirname(require.resolve("@modelcontextprotocol/server-everything/package.json")),
                  "dist", "index.js");

const listen = http.Server.prototype.listen;
http.Server.prototype.listen = function (...args) {
  const cb = args.find((a) => typeof a === "function");
  return listen.call(this, 0, "127.0.0.1", () => {
    process.stderr.write(`LISTENING ${this.address().port}\n`);
    if (cb) cb();
  });
};
process.argv[2] = "streamableHttp";
await import(main);
