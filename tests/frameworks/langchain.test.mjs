// LangChain.js in the framework matrix (matrix.mjs): `ChatOpenAI` (Chat
// Completions) to an Anthropic upstream, `ChatAnthropic` to an OpenAI Chat
// upstream. The tool loop is LangChain core's: `bindTools`, then each
// `tool_calls` entry run with `tool.invoke(call)`, whose ToolMessages go back
// (streamed: the chunks concatenated, calls from the aggregate). Structured
// output: `withStructuredOutput(schema, { method: 'jsonSchema' })`, the
// provider's native schema (`response_format` / `output_config`; ChatAnthropic's
// default method is a forced tool instead).
import { importSdk } from '../sdk_support/sdk.mjs';
import { API_KEY, frameworkMatrix, MODELS, SCHEMA, SYSTEM, TOOLS } from './matrix.mjs';

const { ChatOpenAI } = await importSdk('@langchain/openai');
const { ChatAnthropic } = await importSdk('@langchain/anthropic');
const { tool } = await importSdk('@langchain/core/tools');
const { HumanMessage, SystemMessage } = await importSdk('@langchain/core/messages');

// An AIMessage's text, whether its content is a string or blocks.
function textOf(message) {
  const c = message.content;
  if (typeof c === 'string') return c;
  return c.filter((b) => b.type === 'text').map((b) => b.text).join('');
}

// One model call, whole (invoke) or streamed (the chunks concatenated).
async function call(model, messages, stream) {
  if (!stream) return model.invoke(messages);
  let all;
  for await (const chunk of await model.stream(messages)) all = all ? all.concat(chunk) : chunk;
  return all;
}

// The adapter of matrix.mjs for a LangChain chat model: `make(streaming)`
// builds it.
function langchain(make) {
  const system = new SystemMessage(SYSTEM);
  return {
    async text({ prompt, stream }) {
      return textOf(await call(make(), [system, new HumanMessage(prompt)], stream));
    },
    async toolLoop({ prompt, stream, impl }) {
      const tools = Object.entries(TOOLS).map(([name, spec]) => tool(
        async (args) => impl[name](args),
        { name, description: spec.description, schema: spec.parameters }));
      const byName = Object.fromEntries(tools.map((t) => [t.name, t]));
      const model = make().bindTools(tools);
      const messages = [system, new HumanMessage(prompt)];
      for (let round = 0; round < 3; round++) {
        const ai = await call(model, messages, stream);
        messages.push(ai);
        if (!ai.tool_calls?.length) return textOf(ai);
        for (const c of ai.tool_calls) messages.push(await byName[c.name].invoke(c));
      }
      throw new Error('the tool loop did not end in 3 rounds');
    },
    async structured({ prompt }) {
      const model = make().withStructuredOutput(SCHEMA, { name: 'weather', method: 'jsonSchema' });
      return model.invoke([system, new HumanMessage(prompt)]);
    },
    async history({ prompts }) {
      const messages = [system, new HumanMessage(prompts[0])];
      const first = await make().invoke(messages);
      messages.push(first, new HumanMessage(prompts[1]));
      const second = await make().invoke(messages);
      return [textOf(first), textOf(second)];
    },
  };
}

frameworkMatrix('LangChain.js', [
  {
    name: 'ChatOpenAI', upstream: 'anthropic',
    make: (gw) => langchain(() => new ChatOpenAI({
      model: MODELS.openai, apiKey: API_KEY, configuration: { baseURL: gw.openaiBase },
      maxRetries: 0,
    })),
  },
  {
    // anthropicApiUrl: the bare address (the client adds /v1/messages).
    name: 'ChatAnthropic', upstream: 'openai',
    make: (gw) => langchain(() => new ChatAnthropic({
      model: MODELS.anthropic, apiKey: API_KEY, anthropicApiUrl: gw.url, maxRetries: 0,
    })),
  },
]);
