// AWS Bedrock's Converse API for the scripted upstream (mock_upstream.mjs):
//   POST /model/{modelId}/converse         (JSON)
//   POST /model/{modelId}/converse-stream  (application/vnd.amazon.eventstream frames,
//                                           encoded with @smithy/eventstream-codec)
// Every request's SigV4 signature is checked with @smithy/signature-v4 against
// the test credentials (TEST_AWS): the request is signed again as received
// and the two Authorization headers must be equal; the payload hash is
// checked against the body.
import { createHash } from 'node:crypto';
import { importSdk } from '../sdk.mjs';
import { argsText, finishOf, fragments, usageOf } from './fragments.mjs';

const { SignatureV4 } = await importSdk('@smithy/signature-v4');
const { EventStreamCodec } = await importSdk('@smithy/eventstream-codec');
const { Hash } = await importSdk('@smithy/hash-node');
const { fromUtf8, toUtf8 } = await importSdk('@smithy/util-utf8');

// What the gateway (and the AWS SDK clients of the ingress tests) sign with.
export const TEST_AWS = {
  accessKeyId: 'AKIDTOOLWIRETEST',
  secretAccessKey: 'toolwire/test/secret/key/0123456789abcdefghij',
  sessionToken: 'toolwire-test-session-token',
  region: 'us-east-1',
};

export function matchBedrock(url) {
  const m = /^\/model\/([^/]+)\/(converse|converse-stream)$/.exec(url);
  return m ? { model: decodeURIComponent(m[1]), stream: m[2] === 'converse-stream' } : null;
}

// 'ok', or why the signature does not verify.
export async function checkSigV4(req, raw) {
  const auth = req.headers.authorization ?? '';
  const m = new RegExp('^AWS4-HMAC-SHA256 '
    + 'Credential=([^/]+)/(\\d{8})/([^/]+)/([^/]+)/aws4_request, ?'
    + 'SignedHeaders=([^,]+), ?Signature=([0-9a-f]{64})$').exec(auth);
  if (!m) return `no SigV4 Authorization header (${auth ? 'malformed' : 'missing'})`;
  const [, akid, , region, service, signed] = m;
  if (akid !== TEST_AWS.accessKeyId) return `unknown access key id ${akid}`;
  if (region !== TEST_AWS.region) return `region ${region}`;
  if (service !== 'bedrock') return `service ${service}`;
  const sha = createHash('sha256').update(raw).digest('hex');
  const claimed = req.headers['x-amz-content-sha256'];
  if (claimed !== undefined && claimed !== sha) return 'x-amz-content-sha256 is not the body hash';
  if (req.headers['x-amz-security-token'] !== TEST_AWS.sessionToken)
    return 'x-amz-security-token missing or wrong';
  const amzDate = req.headers['x-amz-date'] ?? '';
  const d = /^(\d{4})(\d{2})(\d{2})T(\d{2})(\d{2})(\d{2})Z$/.exec(amzDate);
  if (!d) return `x-amz-date ${amzDate}`;
  const signingDate = new Date(Date.UTC(d[1], d[2] - 1, d[3], d[4], d[5], d[6]));
  const headers = {};
  for (const h of signed.split(';')) {
    if (req.headers[h] === undefined) return `signed header ${h} missing`;
    headers[h] = req.headers[h];
  }
  for (const h of ['host', 'x-amz-date', 'x-amz-security-token'])
    if (!headers[h]) return `header ${h} is not signed`;
  const q = req.url.indexOf('?');
  const query = q < 0 ? {} : Object.fromEntries(new URLSearchParams(req.url.slice(q + 1)));
  const signer = new SignatureV4({
    credentials: TEST_AWS, region: TEST_AWS.region, service: 'bedrock',
    sha256: Hash.bind(null, 'sha256'),
  });
  const [hostname, port] = headers.host.split(':');
  const resigned = await signer.sign({
    method: req.method, protocol: 'http:', hostname, port: Number(port),
    path: q < 0 ? req.url : req.url.slice(0, q), query, headers, body: raw,
  }, { signingDate });
  const expected = resigned.headers.authorization;
  return expected === auth ? 'ok' : `signature mismatch: expected ${expected}`;
}

function usage(turn) {
  const u = usageOf(turn);
  return { inputTokens: u.input, outputTokens: u.output, totalTokens: u.input + u.output };
}

const STOP = { stop: 'end_turn', tool_calls: 'tool_use', length: 'max_tokens' };
const stopReason = (turn) => STOP[finishOf(turn)];

export function bedrockResponse(turn) {
  const content = [];
  if (turn.text !== undefined) content.push({ text: turn.text });
  for (const c of turn.toolCalls ?? [])
    content.push({ toolUse: { toolUseId: c.id, name: c.name, input: JSON.parse(argsText(c)) } });
  return { output: { message: { role: 'assistant', content } }, stopReason: stopReason(turn),
    usage: usage(turn), metrics: { latencyMs: 12 } };
}

const codec = new EventStreamCodec(toUtf8, fromUtf8);

function frame(eventType, payload) {
  return Buffer.from(codec.encode({
    headers: {
      ':event-type': { type: 'string', value: eventType },
      ':content-type': { type: 'string', value: 'application/json' },
      ':message-type': { type: 'string', value: 'event' },
    },
    body: fromUtf8(JSON.stringify(payload)),
  }));
}

// The event-stream frames, one Buffer each.
export function bedrockStream(turn) {
  const out = [frame('messageStart', { role: 'assistant' })];
  let index = 0;
  if (turn.text !== undefined) {
    for (const p of fragments(turn.text)) out.push(frame('contentBlockDelta',
      { contentBlockIndex: index, delta: { text: p } }));
    if (turn.streamError) {
      out.push(Buffer.from(codec.encode({
        headers: {
          ':exception-type': { type: 'string', value: 'internalServerException' },
          ':content-type': { type: 'string', value: 'application/json' },
          ':message-type': { type: 'string', value: 'exception' },
        },
        body: fromUtf8(JSON.stringify({ message: turn.streamError })),
      })));
      return out;
    }
    out.push(frame('contentBlockStop', { contentBlockIndex: index }));
    index++;
  }
  for (const c of turn.toolCalls ?? []) {
    out.push(frame('contentBlockStart',
      { contentBlockIndex: index, start: { toolUse: { toolUseId: c.id, name: c.name } } }));
    for (const p of fragments(JSON.stringify(JSON.parse(argsText(c)))))
      out.push(frame('contentBlockDelta',
        { contentBlockIndex: index, delta: { toolUse: { input: p } } }));
    out.push(frame('contentBlockStop', { contentBlockIndex: index }));
    index++;
  }
  out.push(frame('messageStop', { stopReason: stopReason(turn) }));
  out.push(frame('metadata', { usage: usage(turn), metrics: { latencyMs: 12 } }));
  return out;
}

// Bedrock's errors: {"message"} with the type in x-amzn-errortype.
export function bedrockError(status, message) {
  const type = status === 403 ? 'InvalidSignatureException' : status === 404
    ? 'ResourceNotFoundException' : status >= 500 ? 'InternalServerException'
      : 'ValidationException';
  const errortype = `${type}:http://internal.amazon.com/coral/com.amazon.bedrock/`;
  return { headers: { 'x-amzn-errortype': errortype }, body: { message } };
}
