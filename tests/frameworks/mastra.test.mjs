// Mastra (`@mastra/core`) in the framework matrix (matrix.mjs), to an
// Anthropic upstream: an Agent whose model is the OpenAI-compatible config
// `{ id: 'openai/MODEL', url, apiKey }`, which Mastra serves through its
// OpenAI-compatible provider (Chat Completions, schemas sent as
// `response_format` json_schema). The Agent runs the tool loops itself
// (createTool) and parses structured output (`structuredOutput.schema`).
// History is passed as messages (Mastra's memory needs a storage package).
import { importSdk } from '../sdk_support/sdk.mjs';
import { API_KEY, frameworkMatrix, MODELS, SYSTEM, TOOLS, zodShapes } from './matrix.mjs';

const { Agent } = await importSdk('@mastra/core/agent');
const { createTool } = await importSdk('@mastra/core/tools');
const { z } = await importSdk('zod');

const shapes = zodShapes(z);

function mastra(gw) {
  const model = { id: `openai/${MODELS.openai}`, url: gw.openaiBase, apiKey: API_KEY };
  const agent = (tools = {}) => new Agent({ name: 'matrix', instructions: SYSTEM, model, tools });
  const go = async (a, input, stream, options = {}) => {
    if (!stream) return a.generate(input, { maxSteps: 3, ...options });
    const s = await a.stream(input, { maxSteps: 3, ...options });
    const text = await s.text;
    const error = await s.error;
    if (error) throw error;
    return { text };
  };
  return {
    async text({ prompt, stream }) { return (await go(agent(), prompt, stream)).text; },
    async toolLoop({ prompt, stream, impl }) {
      const tools = Object.fromEntries(Object.entries(TOOLS).map(([name, spec]) => [name,
        createTool({ id: name, description: spec.description, inputSchema: shapes[name],
          execute: async ({ context }) => impl[name](context) })]));
      return (await go(agent(tools), prompt, stream)).text;
    },
    async structured({ prompt }) {
      const r = await go(agent(), prompt, false, { structuredOutput: { schema: shapes.schema } });
      return r.object;
    },
    async history({ prompts }) {
      const a = agent();
      const messages = [{ role: 'user', content: prompts[0] }];
      const first = await go(a, messages, false);
      messages.push(...first.response.messages, { role: 'user', content: prompts[1] });
      const second = await go(a, messages, false);
      return [first.text, second.text];
    },
  };
}

frameworkMatrix('Mastra', [
  { name: 'Agent (OpenAI-compatible model config)', upstream: 'anthropic', make: mastra },
]);
