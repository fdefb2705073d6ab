// The OpenAI Agents SDK (`@openai/agents`) in the framework matrix
// (matrix.mjs), to an Anthropic upstream: a Runner whose OpenAIProvider holds
// an `openai` client at the gateway, on the SDK's default API (Responses).
// The Agent runs the tool loops itself (function tools) and parses structured
// output (`outputType`, a zod object: `text.format` json_schema). Tracing is
// off (it would export to the vendor's platform).
import { importSdk } from '../sdk_support/sdk.mjs';
import { API_KEY, frameworkMatrix, MODELS, SYSTEM, TOOLS, zodShapes } from './matrix.mjs';

const { Agent, OpenAIProvider, Runner, setTracingDisabled, tool } = await importSdk('@openai/agents');
const { default: OpenAI } = await importSdk('openai');
const { z } = await importSdk('zod');

setTracingDisabled(true);
const shapes = zodShapes(z);

function agents(gw) {
  const client = new OpenAI({ apiKey: API_KEY, baseURL: gw.openaiBase, maxRetries: 0,
    timeout: 20000 });
  const runner = new Runner({
    modelProvider: new OpenAIProvider({ openAIClient: client }), tracingDisabled: true,
  });
  const agent = (extra = {}) => new Agent({
    name: 'matrix', instructions: SYSTEM, model: MODELS.openai, ...extra,
  });
  // One run, whole or streamed (the events drained, then `completed`).
  const go = async (a, input, stream) => {
    if (!stream) return runner.run(a, input);
    const r = await runner.run(a, input, { stream: true });
    for await (const _ of r) { /* drain */ }
    await r.completed;
    if (r.error) throw r.error;
    return r;
  };
  return {
    async text({ prompt, stream }) { return (await go(agent(), prompt, stream)).finalOutput; },
    async toolLoop({ prompt, stream, impl }) {
      const tools = Object.entries(TOOLS).map(([name, spec]) => tool({
        name, description: spec.description, parameters: shapes[name],
        execute: async (args) => impl[name](args),
      }));
      return (await go(agent({ tools }), prompt, stream)).finalOutput;
    },
    async structured({ prompt }) {
      return (await go(agent({ outputType: shapes.schema }), prompt, false)).finalOutput;
    },
    async history({ prompts }) {
      const a = agent();
      const first = await go(a, [{ role: 'user', content: prompts[0] }], false);
      const second = await go(a, [...first.history, { role: 'user', content: prompts[1] }],
        false);
      return [first.finalOutput, second.finalOutput];
    },
  };
}

frameworkMatrix('OpenAI Agents SDK', [
  { name: 'Agent (Responses)', upstream: 'anthropic', make: agents },
]);
