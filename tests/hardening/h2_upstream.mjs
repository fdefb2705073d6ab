// An OpenAI-compatible upstream that speaks HTTP/2 over TLS (ALPN h2, and
// HTTP/1.1 for clients that do not offer h2), for upstream_h2_test.py.
//
//   node h2_upstream.mjs CERT.pem KEY.pem
//   → prints "listening on https://127.0.0.1:PORT", then serves
//     POST /v1/chat/completions   a completion, whole or streamed (SSE)
//     GET  /seen                  {"requests": [{"version", "session", "model"}]}
//
// A request whose model is "barrier-N" is held until N such requests are in
// flight at once (at most 10 s), then all are answered: N requests that
// share one session were multiplexed onto one connection.
import http2 from "node:http2";
import fs from "node:fs";

const [cert, key] = process.argv.slice(2);
const seen = [];
const sessionIds = new WeakMap();
let nextSession = 1;
const held = new Map();  // "barrier-N" → release functions waiting

function sessionOf(req) {
  // HTTP/1.1 requests have no session: their socket stands for it.
  const owner = req.stream?.session ?? req.socket;
  if (!sessionIds.has(owner)) sessionIds.set(owner, nextSession++);
  return sessionIds.get(owner);
}

function completion(model) {
  return {
    id: "chatcmpl-h2", object: "chat.completion", created: 1, model,
    choices: [{index: 0, message: {role: "assistant", content: "hello over h2"},
               finish_reason: "stop"}],
    usage: {prompt_tokens: 3, completion_tokens: 3, total_tokens: 6},
  };
}

function chunk(model, delta, finish) {
  return {id: "chatcmpl-h2", object: "chat.completion.chunk", created: 1, model,
          choices: [{index: 0, delta, finish_reason: finish}]};
}

function answer(res, body) {
  const model = body.model ?? "mock";
  if (!body.stream) {
    res.writeHead(200, {"content-type": "application/json"});
    res.end(JSON.stringify(completion(model)));
    return;
  }
  res.writeHead(200, {"content-type": "text/event-stream"});
  for (const [delta, finish] of [[{role: "assistant", content: "hel"}, null],
                                 [{content: "lo"}, null], [{}, "stop"]])
    res.write(`data: ${JSON.stringify(chunk(model, delta, finish))}\n\n`);
  res.end("data: [DONE]\n\n");
}

function hold(model, go) {
  const n = Number(model.slice("barrier-".length));
  const waiting = held.get(model) ?? [];
  waiting.push(go);
  held.set(model, waiting);
  const release = () => {
    held.delete(model);
    for (const f of waiting) f();
  };
  if (waiting.length >= n) return release();
  if (waiting.length === 1) setTimeout(() => held.get(model) === waiting && release(), 10000);
}

const server = http2.createSecureServer(
    {cert: fs.readFileSync(cert), key: fs.readFileSync(key), allowHTTP1: true}, (req, res) => {
      if (req.method === "GET" && req.url === "/seen") {
        res.writeHead(200, {"content-type": "application/json"});
        res.end(JSON.stringify({requests: seen}));
        return;
      }
      const parts = [];
      req.on("data", (c) => parts.push(c));
      req.on("end", () => {
        let body;
        try {
          body = JSON.parse(Buffer.concat(parts).toString());
        } catch {
          res.writeHead(400, {"content-type": "application/json"});
          res.end(JSON.stringify({error: {message: "bad JSON", type: "invalid_request_error"}}));
          return;
        }
        const model = String(body.model ?? "mock");
        seen.push({version: req.httpVersion, session: sessionOf(req), model});
        if (model.startsWith("barrier-")) hold(model, () => answer(res, body));
        else answer(res, body);
      });
    });
server.listen(0, "127.0.0.1", () => {
  console.log(`listening on https://127.0.0.1:${server.address().port}`);
});
process.on("SIGTERM", () => process.exit(0));
