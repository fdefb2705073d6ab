// Writes SigV4 test vectors signed by @smithy/signature-v4 (the AWS SDK's
// signer) with fixed credentials and times, as JSON on stdout. The committed
// sigv4_vectors.json is this script's output; CTest `bedrock_sigv4_vectors`
// runs it again and compares, and sigv4_test.cc holds toolwire's signer to
// every vector.
//   node tests/dialect_bedrock_converse/sigv4_vectors.mjs > tests/dialect_bedrock_converse/sigv4_vectors.json
import { createRequire } from 'node:module';
import path from 'node:path';
import { fileURLToPath } from 'node:url';

const here = path.dirname(fileURLToPath(import.meta.url));
const require = createRequire(path.join(here, '../npm/package.json'));
const { SignatureV4 } = require('@smithy/signature-v4');
const { Hash } = require('@smithy/hash-node');
const Sha256 = Hash.bind(null, 'sha256');

const cases = [
  {
    name: 'converse, model id with a colon, long-term credentials',
    url: 'https://bedrock-runtime.us-east-1.amazonaws.com/model/amazon.nova-lite-v1%3A0/converse',
    headers: { 'content-type': 'application/json', accept: 'application/json' },
    body: '{"messages":[{"role":"user","content":[{"text":"Hello"}]}]}',
    region: 'us-east-1',
    time: 1767225600,  // 2026-01-01T00:00:00Z
    credentials: { accessKeyId: 'AKIDEXAMPLE', secretAccessKey: 'wJalrXUtnFEMI/K7MDENG+bPxRfiCYEXAMPLEKEY' },
    applyChecksum: true,
  },
  {
    name: 'converse-stream, session token, inference profile id, extra header',
    url: 'https://bedrock-runtime.eu-west-3.amazonaws.com/model/eu.anthropic.claude-3-7-sonnet-20250219-v1%3A0/converse-stream',
    headers: {
      'content-type': 'application/json',
      accept: 'application/vnd.amazon.eventstream',
      'x-custom':  '  spaced   value  ',
      'user-agent': 'toolwire-test',
    },
    body: '{"messages":[{"role":"user","content":[{"text":"Weather in Paris?"}]}],"inferenceConfig":{"maxTokens":512}}',
    region: 'eu-west-3',
    time: 1785000000,
    credentials: {
      accessKeyId: 'ASIAEXAMPLE0000000',
      secretAccessKey: 'secret/with+chars=',
      sessionToken: 'IQoJb3JpZ2luX2VjEXAMPLE//TOKEN+value==',
    },
    applyChecksum: true,
  },
  {
    name: 'local endpoint with a port, no payload hash header, ARN model id',
    url: 'http://127.0.0.1:8123/model/arn%3Aaws%3Abedrock%3Aus-west-2%3A123456789012%3Ainference-profile%2Fus.amazon.nova-pro-v1%3A0/converse',
    headers: { 'content-type': 'application/json' },
    body: '',
    region: 'us-west-2',
    time: 1700000000,
    credentials: { accessKeyId: 'AKIDTEST', secretAccessKey: 'test-secret' },
    applyChecksum: false,
  },
];

const out = [];
for (const c of cases) {
  const u = new URL(c.url);
  const signer = new SignatureV4({
    credentials: c.credentials,
    region: c.region,
    service: 'bedrock',
    sha256: Sha256,
    applyChecksum: c.applyChecksum,
  });
  const request = {
    method: 'POST',
    protocol: u.protocol,
    hostname: u.hostname,
    port: u.port ? Number(u.port) : undefined,
    path: u.pathname,  // as sent: the model id stays percent-encoded
    query: {},
    headers: { host: u.host, ...c.headers },
    body: c.body,
  };
  const signed = await signer.sign(request, { signingDate: new Date(c.time * 1000) });
  const expect = {};
  for (const k of ['x-amz-date', 'x-amz-content-sha256', 'x-amz-security-token', 'authorization'])
    if (signed.headers[k] !== undefined) expect[k] = signed.headers[k];
  out.push({ ...c, expect });
}
process.stdout.write(JSON.stringify(out, null, 2) + '\n');
