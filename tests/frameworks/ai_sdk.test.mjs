// The Vercel AI SDK (`ai` with its providers) in the framework matrix
// (matrix.mjs): OpenAI Chat (`openai.chat`), OpenAI Responses (`openai(id)`,
// the provider's default: earlier assistant turns go back as `item_reference`
// items), OpenAI-compatible (`createOpenAICompatible`) to an Anthropic
// upstream; Anthropic (`createAnthropic`) and Google (`createGoogleGenerativeAI`)
// to an OpenAI Chat upstream. The SDK runs the tool loops itself
// (`stopWhen: stepCountIs(3)`) and parses structured output
// (`Output.object`).
import { importSdk } from '../sdk_support/sdk.mjs';
import { API_KEY, frameworkMatrix, MODELS, SCHEMA, SYSTEM, TOOLS } from './matrix.mjs';

const { generateText, jsonSchema, Output, stepCountIs, streamText, tool } = await importSdk('ai');
const { createOpenAI } = await importSdk('@ai-sdk/openai');
const { createOpenAICompatible } = await importSdk('@ai-sdk/openai-compatible');
const { createAnthropic } = await importSdk('@ai-sdk/anthropic');
const { createGoogleGenerativeAI } = await importSdk('@ai-sdk/google');

// The adapter of matrix.mjs for one AI SDK language model.
function aiSdk(model) {
  const common = { model, system: SYSTEM, maxRetries: 0 };
  const tools = (impl) => Object.fromEntries(Object.entries(TOOLS).map(([name, spec]) => [name,
    tool({ description: spec.description, inputSchema: jsonSchema(spec.parameters),
      execute: async (args) => impl[name](args) })]));
  // streamText reports errors through onError, not by rejecting: keep the first.
  const streamed = async (options) => {
    let error;
    const r = streamText({ ...options, onError: ({ error: e }) => { error ??= e; } });
    const text = await r.text;
    if (error) throw error;
    return text;
  };
  return {
    async text({ prompt, stream }) {
      if (stream) return streamed({ ...common, prompt });
      return (await generateText({ ...common, prompt })).text;
    },
    async toolLoop({ prompt, stream, impl }) {
      const options = { ...common, prompt, tools: tools(impl), stopWhen: stepCountIs(3) };
      if (stream) return streamed(options);
      return (await generateText(options)).text;
    },
    async structured({ prompt }) {
      const r = await generateText({
        ...common, prompt, output: Output.object({ schema: jsonSchema(SCHEMA) }),
      });
      return r.output;
    },
    async history({ prompts }) {
      const messages = [{ role: 'user', content: prompts[0] }];
      const r1 = await generateText({ ...common, messages });
      messages.push(...r1.response.messages, { role: 'user', content: prompts[1] });
      const r2 = await generateText({ ...common, messages });
      return [r1.text, r2.text];
    },
  };
}

frameworkMatrix('AI SDK', [
  {
    name: 'openai.chat', upstream: 'anthropic',
    make: (gw) => aiSdk(createOpenAI({ baseURL: gw.openaiBase, apiKey: API_KEY })
      .chat(MODELS.openai)),
  },
  {
    name: 'openai (Responses)', upstream: 'anthropic',
    make: (gw) => aiSdk(createOpenAI({ baseURL: gw.openaiBase, apiKey: API_KEY })(MODELS.openai)),
  },
  {
    // supportsStructuredOutputs: without it the provider sends
    // `response_format: {type: json_object}` and no schema.
    name: 'createOpenAICompatible', upstream: 'anthropic',
    make: (gw) => aiSdk(createOpenAICompatible({
      name: 'toolwire', baseURL: gw.openaiBase, apiKey: API_KEY, supportsStructuredOutputs: true,
    })(MODELS.openai)),
  },
  {
    // The provider's base URL ends in /v1 (it posts to `${baseURL}/messages`).
    name: 'createAnthropic', upstream: 'openai',
    make: (gw) => aiSdk(createAnthropic({ baseURL: `${gw.url}/v1`, apiKey: API_KEY })(
      MODELS.anthropic)),
  },
  {
    // The provider's base URL ends in the API version (`/v1beta`).
    name: 'createGoogleGenerativeAI', upstream: 'openai',
    // The provider sends a tool's output as functionResponse.response
    // {name, content}: the gateway passes that object on as the tool result's
    // JSON text.
    make: (gw) => ({
      ...aiSdk(createGoogleGenerativeAI({ baseURL: `${gw.url}/v1beta`, apiKey: API_KEY })(
        MODELS.gemini)),
      toolResultSent: (name, content) => JSON.stringify({ name, content }),
    }),
  },
]);
