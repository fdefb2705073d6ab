// An OTLP/HTTP trace receiver for tests: decodes each POST /v1/traces with
// the official opentelemetry-proto definitions (the generated protobufjs
// root that @opentelemetry/otlp-transformer ships), never with toolwire's
// own code. Listens on 127.0.0.1 port 0.
//
//   import { startReceiver } from './otlp_receiver.mjs';
//   const rx = await startReceiver();            // rx.url, rx.requests, rx.spans()
//   await rx.waitForSpans((spans) => spans.length >= 3, 10000);
//   await rx.close();
//
// Run as a script it prints its port on stdout and one JSON line per
// decoded request after it.
import { createServer } from 'node:http';
import { createRequire } from 'node:module';
import { fileURLToPath } from 'node:url';

const require = createRequire(import.meta.url);
const { opentelemetry } = require(
  '../npm/node_modules/@opentelemetry/otlp-transformer/build/src/generated/root.js');
const { ExportTraceServiceRequest, ExportTraceServiceResponse } =
  opentelemetry.proto.collector.trace.v1;

function hex(b64) {
  return b64 ? Buffer.from(b64, 'base64').toString('hex') : '';
}

// The decoded message as plain JSON: ids in hex, 64-bit numbers as strings,
// enums by name.
export function decodeExport(body) {
  const msg = ExportTraceServiceRequest.decode(body);
  const obj = ExportTraceServiceRequest.toObject(msg,
    { longs: String, enums: String, bytes: String, defaults: false, arrays: true });
  for (const rs of obj.resourceSpans ?? []) {
    for (const ss of rs.scopeSpans ?? []) {
      for (const s of ss.spans ?? []) {
        s.traceId = hex(s.traceId);
        s.spanId = hex(s.spanId);
        s.parentSpanId = hex(s.parentSpanId);
      }
    }
  }
  return obj;
}

// A KeyValue list as {key: value}: AnyValue's one set member.
export function attrs(list) {
  const out = {};
  for (const kv of list ?? []) {
    const v = kv.value ?? {};
    if ('stringValue' in v) out[kv.key] = v.stringValue;
    else if ('intValue' in v) out[kv.key] = Number(v.intValue);
    else if ('doubleValue' in v) out[kv.key] = v.doubleValue;
    else if ('boolValue' in v) out[kv.key] = v.boolValue;
    else if ('arrayValue' in v) out[kv.key] = (v.arrayValue.values ?? []).map((e) => e.stringValue);
    else out[kv.key] = null;
  }
  return out;
}

export function startReceiver({ status = 200 } = {}) {
  const requests = [];  // {headers, raw: Buffer, decoded}
  const waiters = [];
  const spans = () => requests.flatMap((r) => (r.decoded.resourceSpans ?? []).flatMap(
    (rs) => (rs.scopeSpans ?? []).flatMap((ss) => (ss.spans ?? []).map(
      (s) => ({ ...s, attrs: attrs(s.attributes), resource: attrs(rs.resource?.attributes) })))));
  const check = () => {
    for (let i = waiters.length - 1; i >= 0; --i) {
      if (waiters[i].pred(spans())) {
        waiters[i].resolve(spans());
        waiters.splice(i, 1);
      }
    }
  };
  const server = createServer((req, res) => {
    const chunks = [];
    req.on('data', (c) => chunks.push(c));
    req.on('end', () => {
      const raw = Buffer.concat(chunks);
      if (req.method !== 'POST' || req.url !== '/v1/traces' ||
          req.headers['content-type'] !== 'application/x-protobuf') {
        res.writeHead(400).end();
        requests.push({ headers: req.headers, url: req.url, raw, decoded: {}, rejected: true });
        return;
      }
      let decoded;
      try {
        decoded = decodeExport(raw);
      } catch (e) {
        res.writeHead(400).end(String(e));
        requests.push({ headers: req.headers, url: req.url, raw, decoded: {}, error: String(e) });
        return;
      }
      requests.push({ headers: req.headers, url: req.url, raw, decoded });
      const reply = ExportTraceServiceResponse.encode({}).finish();
      res.writeHead(status, { 'content-type': 'application/x-protobuf' }).end(Buffer.from(reply));
      if (process.env.OTLP_RECEIVER_PRINT) console.log(JSON.stringify(decoded));
      check();
    });
  });
  return new Promise((resolve, reject) => {
    server.once('error', reject);
    server.listen(0, '127.0.0.1', () => {
      const { port } = server.address();
      resolve({
        port,
        url: `http://127.0.0.1:${port}`,
        requests,
        spans,
        // Resolves with the spans once `pred(spans)` holds; rejects after `ms`.
        waitForSpans(pred, ms) {
          if (pred(spans())) return Promise.resolve(spans());
          return new Promise((res, rej) => {
            const w = { pred, resolve: (v) => { clearTimeout(w.timer); res(v); } };
            w.timer = setTimeout(() => {
              waiters.splice(waiters.indexOf(w), 1);
              rej(new Error(`no matching spans within ${ms} ms; got ${JSON.stringify(spans())}`));
            }, ms);
            waiters.push(w);
          });
        },
        close() {
          server.closeAllConnections?.();
          return new Promise((r) => server.close(() => r()));
        },
      });
    });
  });
}

if (process.argv[1] === fileURLToPath(import.meta.url)) {
  process.env.OTLP_RECEIVER_PRINT = '1';
  const rx = await startReceiver();
  console.log(rx.port);
}
