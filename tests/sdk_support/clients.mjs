// The official client SDKs (tests/npm/node_modules, sdk.mjs) as the tests
// build them: no retries, bounded timeouts, and the keys and credentials the
// gateway tests present.
import { importSdk } from './sdk.mjs';

export const { default: OpenAI } = await importSdk('openai');
export const { default: Anthropic } = await importSdk('@anthropic-ai/sdk');
export const { betaTool } = await importSdk('@anthropic-ai/sdk/helpers/beta/json-schema');
export const { GoogleGenAI } = await importSdk('@google/genai');
export const bedrockSdk = await importSdk('@aws-sdk/client-bedrock-runtime');
export const { NodeHttpHandler } = await importSdk('@smithy/node-http-handler');

// What the Bedrock SDK client signs with: not the gateway's upstream
// credentials (TEST_AWS, upstream/bedrock_converse.mjs), which the mock checks.
export const CLIENT_AWS = {
  accessKeyId: 'AKIDCLIENTTEST', secretAccessKey: 'client/test/secret', region: 'us-west-2',
};

// A fetch that records every response's status and headers, for the SDKs'
// `fetch` option: the `toolwire-warnings` header is read from here.
export function recordingFetch() {
  const responses = [];
  const fetchFn = async (url, init) => {
    const res = await fetch(url, init);
    responses.push({ url: String(url), status: res.status, headers: res.headers });
    return res;
  };
  return { fetch: fetchFn, responses };
}

export function openaiClient(baseURL, { apiKey = 'sk-client-dummy', fetch } = {}) {
  return new OpenAI({ apiKey, baseURL, maxRetries: 0, timeout: 20000, fetch });
}

export function anthropicClient(baseURL, { apiKey = 'sk-ant-client-dummy', fetch } = {}) {
  return new Anthropic({ apiKey, baseURL, maxRetries: 0, timeout: 20000, fetch });
}

// The SDK's default API version is v1 (3.x); `apiVersion: 'v1beta'` for the other path.
export function geminiClient(baseUrl, apiVersion, apiKey = 'gemini-client-key') {
  return new GoogleGenAI({ apiKey, httpOptions: { baseUrl, ...(apiVersion ? { apiVersion } : {}) } });
}

// The Bedrock runtime client speaks HTTP/2 by default (h2c with prior
// knowledge to an http:// endpoint); NodeHttpHandler makes it HTTP/1.1. With
// TOOLWIRE_AWS_DEFAULT_HANDLER=1 the SDK keeps its default handler (the
// gateway serves both on one port).
export function bedrockClient(endpoint, credentials = CLIENT_AWS) {
  const handler = process.env.TOOLWIRE_AWS_DEFAULT_HANDLER === '1' ? {}
    : { requestHandler: new NodeHttpHandler({ requestTimeout: 20000 }) };
  return new bedrockSdk.BedrockRuntimeClient({
    region: credentials.region ?? CLIENT_AWS.region, endpoint, credentials, maxAttempts: 1,
    ...handler,
  });
}

// One client per SDK for a gateway at `url`, made when first asked for, each
// presenting a key of harness.mjs's GATEWAY_KEYS; destroy() releases them.
export function sdkClients(url) {
  let openai;
  let anthropic;
  let bedrock;
  return {
    get openai() {
      openai ??= openaiClient(`${url}/v1`, { apiKey: 'sk-test-gateway' });
      return openai;
    },
    get anthropic() {
      anthropic ??= anthropicClient(url, { apiKey: 'sk-ant-test-gateway' });
      return anthropic;
    },
    gemini: (apiVersion) => geminiClient(url, apiVersion),
    get bedrock() {
      bedrock ??= bedrockClient(url);
      return bedrock;
    },
    destroy() { bedrock?.destroy(); },
  };
}
