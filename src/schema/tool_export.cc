// A tool definition in each dialect's tool-list entry shape.
#include "toolwire/schema/tool_export.h"

#include "toolwire/core/json_depth.h"
#include "toolwire/schema/json_schema.h"

namespace toolwire::schema {
namespace {

using json = nlohmann::ordered_json;

Result<json> parsed_schema(const ir::ToolDefinition& def) {
  json schema = parse_json_bounded<json>(def.input_schema);
  if (schema.is_discarded() || !schema.is_object())
    return make_error(ErrorCode::invalid_argument,
                      "input_schema of tool '" + def.name + "' is not a JSON object");
  return schema;
}

// `head` with the tool's name and, when it has one, its description.
json named(const ir::ToolDefinition& def, json head = json::object()) {
  head["name"] = def.name;
  if (!def.description.empty()) head["description"] = def.description;
  return head;
}

// The schema, in OpenAI's strict form when `strict`.
Result<json> openai_parameters(json schema, bool strict) {
  if (!strict) return schema;
  return to_openai_strict_schema(schema);
}

std::string text(const json& j) { return j.dump(-1, ' ', false, json::error_handler_t::replace); }

}  // namespace

Result<std::string> openai_tool(const ir::ToolDefinition& def, const ToolExportOptions& opts) {
  auto schema = parsed_schema(def);
  if (!schema) return schema.error();
  bool strict = opts.strict.value_or(def.strict.value_or(false));
  auto params = openai_parameters(std::move(*schema), strict);
  if (!params) return params.error();
  json fn = named(def);
  fn["parameters"] = std::move(*params);
  if (strict) fn["strict"] = true;
  return text(json{{"type", "function"}, {"function", std::move(fn)}});
}

Result<std::string> openai_responses_tool(const ir::ToolDefinition& def,
                                          const ToolExportOptions& opts) {
  auto schema = parsed_schema(def);
  if (!schema) return schema.error();
  bool strict = opts.strict.value_or(def.strict.value_or(false));
  auto params = openai_parameters(std::move(*schema), strict);
  if (!params) return params.error();
  json t = named(def, {{"type", "function"}});
  t["parameters"] = std::move(*params);
  t["strict"] = strict;
  return text(t);
}

Result<std::string> anthropic_tool(const ir::ToolDefinition& def, const ToolExportOptions&) {
  auto schema = parsed_schema(def);
  if (!schema) return schema.error();
  json t = named(def);
  t["input_schema"] = std::move(*schema);
  return text(t);
}

Result<std::string> gemini_tool(const ir::ToolDefinition& def, const ToolExportOptions&) {
  auto schema = parsed_schema(def);
  if (!schema) return schema.error();
  auto s = to_gemini_schema(*schema);
  if (!s) return s.error();
  json t = named(def);
  t["parameters"] = std::move(*s);
  return text(t);
}

Result<std::string> bedrock_tool(const ir::ToolDefinition& def, const ToolExportOptions&) {
  auto schema = parsed_schema(def);
  if (!schema) return schema.error();
  json spec = named(def);
  spec["inputSchema"] = json{{"json", std::move(*schema)}};
  return text(json{{"toolSpec", std::move(spec)}});
}

}  // namespace toolwire::schema
