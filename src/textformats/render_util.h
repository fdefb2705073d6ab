// Pieces the renderers share: tool definitions as JSON, as a TypeScript
// namespace (functionary_v32, harmony), arguments as Python keyword arguments
// (pythonic, llama3_builtin), and the loops every renderer writes.
#pragma once

#include <span>
#include <string>
#include <string_view>
#include <vector>

#include <nlohmann/json.hpp>

#include "toolwire/ir/tool.h"
#include "toolwire/textformats/renderer.h"

namespace toolwire::textformats::render {

// A tool's parameters schema, parsed ({"type":"object"} when it is not JSON).
nlohmann::ordered_json schema_of(const ir::ToolDefinition& t);
// {"type":"function","function":{"name","description","parameters"}} (compact).
nlohmann::ordered_json openai_tool(const ir::ToolDefinition& t);
// One OpenAI-style tool per line.
std::string tools_json_lines(std::span<const ir::ToolDefinition> tools);
// All as one JSON array (pretty when `indent` >= 0).
std::string tools_json_array(std::span<const ir::ToolDefinition> tools, int indent = -1);
// `// description\ntype name = (_: {\n// ...\nkey?: type,\n}) => any;` per tool,
// inside `namespace functions { ... } // namespace functions`.
std::string typescript_namespace(std::span<const ir::ToolDefinition> tools);

// The arguments object (JSON text; `{}` when empty or not an object).
nlohmann::ordered_json arguments_of(const ir::ToolCallPart& c);
// Compact JSON of the arguments, as written in the call (kept verbatim when
// valid, so the parser reads back the same text).
std::string arguments_text(const ir::ToolCallPart& c);
// A JSON value as a Python literal: "s" strings, True/False/None.
std::string python_literal(const nlohmann::ordered_json& v);
// `key=value, ...` of an arguments object.
std::string python_kwargs(const nlohmann::ordered_json& args);
// A JSON string's value raw, anything else as compact JSON (XML parameter values).
std::string xml_value(const nlohmann::ordered_json& v);
// A JSON string literal.
std::string json_quoted(std::string_view s);

// `each(call)` for every call, joined by `separator`.
template <class F>
std::string join_calls(std::span<const ir::ToolCallPart> calls, std::string_view separator,
                       F each) {
  std::string out;
  for (size_t i = 0; i < calls.size(); ++i) {
    if (i) out += separator;
    out += each(calls[i]);
  }
  return out;
}
// One message per result: `each(result)`.
template <class F>
std::vector<TextMessage> message_per_result(std::span<const ToolResultText> results, F each) {
  std::vector<TextMessage> out;
  for (const auto& r : results) out.push_back(each(r));
  return out;
}
// The code of a call whose only argument is a string `code` (Python written
// raw after a tag), else null.
const std::string* code_argument(const nlohmann::ordered_json& args);
// `prelude` and the tools, one JSON object per line inside <tools></tools>
// (Hermes' layout, which GLM and Qwen follow).
std::string xml_tools_block(std::span<const ir::ToolDefinition> tools, std::string_view prelude);

}  // namespace toolwire::textformats::render
