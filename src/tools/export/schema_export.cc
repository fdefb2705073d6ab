// A tool definition in a dialect's tool-list entry shape, through the
// dialect list's exporter hooks.
#include "toolwire/tools/schema_export.h"

#include "toolwire/tools/registry.h"

namespace toolwire::tools {

namespace {
bool exports_tools(const dialects::Dialect& d) { return d.export_tool != nullptr; }
}  // namespace

const dialects::Dialect* parse_dialect(std::string_view name) {
  const dialects::Dialect* d = dialects::find_dialect(name);
  return d && exports_tools(*d) ? d : nullptr;
}

std::string export_dialect_names() { return dialects::dialect_names(&exports_tools); }

Result<nlohmann::ordered_json> export_definition(const ir::ToolDefinition& def,
                                                 std::string_view dialect,
                                                 const ExportOptions& opts) {
  const dialects::Dialect* d = parse_dialect(dialect);
  if (!d)
    return make_error(ErrorCode::not_found, "unknown dialect '" + std::string(dialect) + "' (" +
                                                export_dialect_names() + ")");
  auto text = d->export_tool(def, opts);
  if (!text) return text.error();
  return nlohmann::ordered_json::parse(*text);
}

Result<nlohmann::ordered_json> export_tool(const Tool& tool, std::string_view dialect,
                                           const ExportOptions& opts) {
  return export_definition(tool.definition(), dialect, opts);
}

}  // namespace toolwire::tools
