// A tool definition in each dialect's tool-list entry shape.
#include "toolwire/tools/schema_export.h"

#include "toolwire/tools/registry.h"

namespace toolwire::tools {

using json = nlohmann::ordered_json;

std::optional<Dialect> parse_dialect(std::string_view name) {
  if (name == "openai" || name == "openai_chat") return Dialect::openai;
  if (name == "anthropic" || name == "anthropic_messages") return Dialect::anthropic;
  if (name == "gemini") return Dialect::gemini;
  return std::nullopt;
}

std::string_view to_string(Dialect d) {
  switch (d) {
    case Dialect::openai:
      return "openai";
    case Dialect::anthropic:
      return "anthropic";
    case Dialect::gemini:
      return "gemini";
  }
  return "unknown";
}

Result<json> export_definition(const ir::ToolDefinition& def, Dialect dialect,
                               const ExportOptions& opts) {
  json schema = json::parse(def.input_schema, nullptr, /*allow_exceptions=*/false);
  if (schema.is_discarded() || !schema.is_object())
    return make_error(ErrorCode::invalid_argument,
                      "input_schema of tool '" + def.name + "' is not a JSON object");
  switch (dialect) {
    case Dialect::openai: {
      bool strict = opts.strict.value_or(def.strict.value_or(false));
      json fn = {{"name", def.name}};
      if (!def.description.empty()) fn["description"] = def.description;
      if (strict) {
        auto s = to_openai_strict_schema(schema);
        if (!s) return s.error();
        fn["parameters"] = std::move(*s);
        fn["strict"] = true;
      } else {
        fn["parameters"] = std::move(schema);
      }
      return json{{"type", "function"}, {"function", std::move(fn)}};
    }
    case Dialect::anthropic: {
      json t = {{"name", def.name}};
      if (!def.description.empty()) t["description"] = def.description;
      t["input_schema"] = std::move(schema);
      return t;
    }
    case Dialect::gemini: {
      auto s = to_gemini_schema(schema);
      if (!s) return s.error();
      json t = {{"name", def.name}};
      if (!def.description.empty()) t["description"] = def.description;
      t["parameters"] = std::move(*s);
      return t;
    }
  }
  return make_error(ErrorCode::internal, "unknown dialect");
}

Result<json> export_tool(const Tool& tool, Dialect dialect, const ExportOptions& opts) {
  return export_definition(tool.definition(), dialect, opts);
}

}  // namespace toolwire::tools
