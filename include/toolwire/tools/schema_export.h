// toolwire/tools/schema_export.h — a tool's definition in each provider's dialect.
//
//   nlohmann::ordered_json t = tools::export_tool(*reg.find("get_weather"),
//   tools::Dialect::openai).value();
//   // {"type":"function","function":{"name":..,"description":..,"parameters":{..},"strict":true}}
//
// - openai:    function tool; with strict (ToolSpec::strict or options) the
//              schema is converted for structured outputs: every property
//              required, optional ones nullable, additionalProperties:false,
//              recursively; keywords strict mode rejects are dropped (the
//              registry still validates against the original schema).
// - anthropic: {"name","description","input_schema"}; schema unchanged.
// - gemini:    a functionDeclarations entry; schema reduced to Gemini's
//              OpenAPI subset: $ref inlined, type arrays -> nullable,
//              unsupported keywords removed (see docs/tools.md).
// Exported schemas are nlohmann::ordered_json: property order is kept as the
// tool author wrote it (models read it; Gemini even has propertyOrdering).
#pragma once

#include <optional>
#include <string_view>

#include <nlohmann/json.hpp>

#include "toolwire/core/result.h"
#include "toolwire/ir/tool.h"

namespace toolwire::tools {

class Tool;

enum class Dialect { openai, anthropic, gemini };

std::optional<Dialect> parse_dialect(std::string_view name);  // "openai" | "anthropic" | "gemini"
std::string_view to_string(Dialect d);

struct ExportOptions {
  std::optional<bool> strict;  // OpenAI only; unset: the definition's own flag
};

// Exports an IR definition (name used as given; pass wire names).
Result<nlohmann::ordered_json> export_definition(const ir::ToolDefinition& def, Dialect dialect,
                                                 const ExportOptions& opts = {});
Result<nlohmann::ordered_json> export_tool(const Tool& tool, Dialect dialect,
                                           const ExportOptions& opts = {});

// The schema conversions on their own.
Result<nlohmann::ordered_json> to_openai_strict_schema(const nlohmann::ordered_json& schema);
Result<nlohmann::ordered_json> to_gemini_schema(const nlohmann::ordered_json& schema);

// For arguments produced under a strict schema: removes `null` members whose
// property is optional in the original `schema` (recursively), in place.
void strip_strict_nulls(const nlohmann::json& schema, nlohmann::json& args);

}  // namespace toolwire::tools
