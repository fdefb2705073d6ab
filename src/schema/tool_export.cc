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

}  // namespace

Result<std::string> openai_tool(const ir::ToolDefinition& def, const ToolExportOptions& opts) {
  auto schema = parsed_schema(def);
  if (!schema) return schema.error();
  bool strict = opts.strict.value_or(def.strict.value_or(false));
  json fn = {{"name", def.name}};
  if (!def.description.empty()) fn["description"] = def.description;
  if (strict) {
    auto s = to_openai_strict_schema(*schema);
    if (!s) return s.error();
    fn["parameters"] = std::move(*s);
    fn["strict"] = true;
  } else {
    fn["parameters"] = std::move(*schema);
  }
  return json{{"type", "function"}, {"function", std::move(fn)}}.dump(
      -1, ' ', false, json::error_handler_t::replace);
}

Result<std::string> openai_responses_tool(const ir::ToolDefinition& def,
                                          const ToolExportOptions& opts) {
  auto schema = parsed_schema(def);
  if (!schema) return schema.error();
  bool strict = opts.strict.value_or(def.strict.value_or(false));
  json t = {{"type", "function"}, {"name", def.name}};
  if (!def.description.empty()) t["description"] = def.description;
  if (strict) {
    auto s = to_openai_strict_schema(*schema);
    if (!s) return s.error();
    t["parameters"] = std::move(*s);
  } else {
    t["parameters"] = std::move(*schema);
  }
  t["strict"] = strict;
  return t.dump(-1, ' ', false, json::error_handler_t::replace);
}

Result<std::string> anthropic_tool(const ir::ToolDefinition& def, const ToolExportOptions&) {
  auto schema = parsed_schema(def);
  if (!schema) return schema.error();
  json t = {{"name", def.name}};
  if (!def.description.empty()) t["description"] = def.description;
  t["input_schema"] = std::move(*schema);
  return t.dump(-1, ' ', false, json::error_handler_t::replace);
}

Result<std::string> gemini_tool(const ir::ToolDefinition& def, const ToolExportOptions&) {
  auto schema = parsed_schema(def);
  if (!schema) return schema.error();
  auto s = to_gemini_schema(*schema);
  if (!s) return s.error();
  json t = {{"name", def.name}};
  if (!def.description.empty()) t["description"] = def.description;
  t["parameters"] = std::move(*s);
  return t.dump(-1, ' ', false, json::error_handler_t::replace);
}

Result<std::string> bedrock_tool(const ir::ToolDefinition& def, const ToolExportOptions&) {
  auto schema = parsed_schema(def);
  if (!schema) return schema.error();
  json spec = {{"name", def.name}};
  if (!def.description.empty()) spec["description"] = def.description;
  spec["inputSchema"] = json{{"json", std::move(*schema)}};
  return json{{"toolSpec", std::move(spec)}}.dump(-1, ' ', false, json::error_handler_t::replace);
}

}  // namespace toolwire::schema
