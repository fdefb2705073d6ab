// A conversation written once, canonically, as the request body each
// upstream dialect must receive (and as each client dialect sends it):
//   { system, tools: [names], turns: [
//       { user: 'text' },
//       { assistant: { text?, calls: [{ id, name, arguments }] } },
//       { results: [{ id, name, content, error? }] } ] }
// Shapes as the official API references write them (tests/data/wire/).
import {
  ANTHROPIC_DEFAULT_MAX_TOKENS, TIME_DESC, TIME_SCHEMA, WEATHER_DESC, WEATHER_SCHEMA,
} from './common.mjs';

const TOOLS = {
  get_weather: { description: WEATHER_DESC, schema: WEATHER_SCHEMA },
  get_time: { description: TIME_DESC, schema: TIME_SCHEMA },
};

// Gemini 3 needs a thought signature on a model turn's first call; a call
// from another dialect has none, and the codec sends the documented
// placeholder (a Gemini client's history is its own business).
export const GEMINI_PLACEHOLDER_SIGNATURE = 'skip_thought_signature_validator';

function openaiBody(model, c, stream) {
  const messages = c.system ? [{ role: 'system', content: c.system }] : [];
  for (const t of c.turns) {
    if (t.user !== undefined) messages.push({ role: 'user', content: t.user });
    if (t.assistant) {
      const m = { role: 'assistant', content: t.assistant.text ?? null };
      if (t.assistant.calls?.length)
        m.tool_calls = t.assistant.calls.map((x) => ({
          id: x.id, type: 'function', function: { name: x.name, arguments: x.arguments } }));
      messages.push(m);
    }
    for (const r of t.results ?? [])
      messages.push({ role: 'tool', tool_call_id: r.id,
        content: r.error ? `Error: ${r.content}` : r.content });
  }
  const body = { model, messages };
  if (c.tools) body.tools = c.tools.map((n) => ({ type: 'function', function: {
    name: n, description: TOOLS[n].description, parameters: TOOLS[n].schema } }));
  return stream ? { ...body, stream: true, stream_options: { include_usage: true } } : body;
}

function anthropicBody(model, c, stream) {
  const messages = [];
  for (const t of c.turns) {
    if (t.user !== undefined) messages.push({ role: 'user', content: t.user });
    if (t.assistant) {
      const content = [];
      if (t.assistant.text !== undefined) content.push({ type: 'text', text: t.assistant.text });
      for (const x of t.assistant.calls ?? [])
        content.push({ type: 'tool_use', id: x.id, name: x.name, input: JSON.parse(x.arguments) });
      messages.push({ role: 'assistant', content });
    }
    if (t.results)
      messages.push({ role: 'user', content: t.results.map((r) => ({
        type: 'tool_result', tool_use_id: r.id, content: r.content,
        ...(r.error ? { is_error: true } : {}) })) });
  }
  const body = { model, max_tokens: ANTHROPIC_DEFAULT_MAX_TOKENS };
  if (c.system) body.system = c.system;
  body.messages = messages;
  if (c.tools) body.tools = c.tools.map((n) =>
    ({ name: n, description: TOOLS[n].description, input_schema: TOOLS[n].schema }));
  return stream ? { ...body, stream: true } : body;
}

export function responsesInput(c) {
  const input = [];
  for (const t of c.turns) {
    if (t.user !== undefined) input.push({ role: 'user', content: t.user });
    if (t.assistant?.text !== undefined)
      input.push({ type: 'message', role: 'assistant',
        content: [{ type: 'output_text', text: t.assistant.text, annotations: [] }] });
    for (const x of t.assistant?.calls ?? [])
      input.push({ type: 'function_call', call_id: x.id, name: x.name, arguments: x.arguments });
    for (const r of t.results ?? [])
      input.push({ type: 'function_call_output', call_id: r.id,
        output: r.error ? `Error: ${r.content}` : r.content });
  }
  return input;
}

export function responsesTools(names) {
  return names.map((n) => ({ type: 'function', name: n, description: TOOLS[n].description,
    parameters: TOOLS[n].schema }));
}

function responsesBody(model, c, stream) {
  const body = { model };
  if (c.system) body.instructions = c.system;
  body.input = responsesInput(c);
  if (c.tools) body.tools = responsesTools(c.tools);
  return stream ? { ...body, stream: true } : body;
}

// Gemini's schema dialect as the genai SDK sends it: upper-case type names.
export function geminiSchema(s) {
  const out = {};
  for (const [k, v] of Object.entries(s)) {
    if (k === 'type') out.type = v.toUpperCase();
    else if (k === 'properties')
      out.properties = Object.fromEntries(Object.entries(v).map(([n, p]) => [n, geminiSchema(p)]));
    else out[k] = v;
  }
  return out;
}

export function geminiContents(c, { placeholder = true } = {}) {
  const contents = [];
  for (const t of c.turns) {
    if (t.user !== undefined) contents.push({ role: 'user', parts: [{ text: t.user }] });
    if (t.assistant) {
      const parts = [];
      if (t.assistant.text !== undefined) parts.push({ text: t.assistant.text });
      (t.assistant.calls ?? []).forEach((x, i) => {
        const part = { functionCall: { id: x.id, name: x.name, args: JSON.parse(x.arguments) } };
        if (placeholder && i === 0) part.thoughtSignature = GEMINI_PLACEHOLDER_SIGNATURE;
        parts.push(part);
      });
      contents.push({ role: 'model', parts });
    }
    if (t.results)
      contents.push({ role: 'user', parts: t.results.map((r) => ({ functionResponse: {
        id: r.id, name: r.name, response: r.error ? { error: r.content } : { output: r.content },
      } })) });
  }
  return contents;
}

function geminiBody(model, c, fromGemini) {
  // A Gemini client's own history goes through as it sent it.
  const body = { contents: geminiContents(c, { placeholder: !fromGemini }) };
  if (c.system) body.systemInstruction = { parts: [{ text: c.system }] };
  if (c.tools) body.tools = [{ functionDeclarations: c.tools.map((n) =>
    ({ name: n, description: TOOLS[n].description, parameters: TOOLS[n].schema })) }];
  return body;
}

export function bedrockMessages(c) {
  const messages = [];
  for (const t of c.turns) {
    if (t.user !== undefined) messages.push({ role: 'user', content: [{ text: t.user }] });
    if (t.assistant) {
      const content = [];
      if (t.assistant.text !== undefined) content.push({ text: t.assistant.text });
      for (const x of t.assistant.calls ?? [])
        content.push(
          { toolUse: { toolUseId: x.id, name: x.name, input: JSON.parse(x.arguments) } });
      messages.push({ role: 'assistant', content });
    }
    if (t.results)
      messages.push({ role: 'user', content: t.results.map((r) => ({ toolResult: {
        toolUseId: r.id, content: [{ text: r.content }], ...(r.error ? { status: 'error' } : {}),
      } })) });
  }
  return messages;
}

export function bedrockToolConfig(names) {
  return { tools: names.map((n) => ({ toolSpec: { name: n, description: TOOLS[n].description,
    inputSchema: { json: TOOLS[n].schema } } })) };
}

function bedrockBody(model, c) {
  const body = { messages: bedrockMessages(c) };
  if (c.system) body.system = [{ text: c.system }];
  if (c.tools) body.toolConfig = bedrockToolConfig(c.tools);
  return body;
}

// The body `upstream` must receive for conversation `c` sent by a client of
// dialect `from` (Gemini and Bedrock name the model and the stream in the
// path, not the body).
export function upstreamBody(upstream, model, c, stream, from) {
  switch (upstream) {
    case 'openai': return openaiBody(model, c, stream);
    case 'anthropic': return anthropicBody(model, c, stream);
    case 'responses': return responsesBody(model, c, stream);
    case 'gemini': return geminiBody(model, c, from === 'gemini');
    case 'bedrock': return bedrockBody(model, c);
    default: throw new Error(`unknown upstream ${upstream}`);
  }
}
