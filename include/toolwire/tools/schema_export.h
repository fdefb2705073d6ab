// toolwire/tools/schema_export.h — a tool's definition in each dialect.
//
//   nlohmann::ordered_json t = tools::export_tool(*reg.find("get_weather"), "openai").value();
//   // {"type":"function","function":{"name":..,"description":..,"parameters":{..},"strict":true}}
//
// The dialects and their exporters are the dialect list's
// (toolwire/dialects/dialect.h, shapes in toolwire/schema/tool_export.h): every
// dialect with an `export_tool` hook is accepted here, by name or alias.
// Exported schemas are nlohmann::ordered_json: property order is kept as the
// tool author wrote it (models read it; Gemini even has propertyOrdering).
#pragma once

#include <string_view>

#include <nlohmann/json.hpp>

#include "toolwire/core/result.h"
#include "toolwire/dialects/dialect.h"
#include "toolwire/ir/tool.h"
#include "toolwire/schema/json_schema.h"
#include "toolwire/schema/tool_export.h"

namespace toolwire::tools {

class Tool;

using ExportOptions = schema::ToolExportOptions;

// The dialect that exports tool schemas under `name` (name or alias), or nullptr.
const dialects::Dialect* parse_dialect(std::string_view name);
// "openai | anthropic | gemini": the names parse_dialect accepts.
std::string export_dialect_names();

// Exports an IR definition (name used as given; pass wire names). An unknown
// dialect is a not_found error.
Result<nlohmann::ordered_json> export_definition(const ir::ToolDefinition& def,
                                                 std::string_view dialect,
                                                 const ExportOptions& opts = {});
Result<nlohmann::ordered_json> export_tool(const Tool& tool, std::string_view dialect,
                                           const ExportOptions& opts = {});

}  // namespace toolwire::tools
