// Tool-name rules per dialect (see toolwire/dialects/tool_rules.h).
#include "toolwire/dialects/tool_rules.h"

#include "toolwire/dialects/dialect.h"

namespace toolwire::dialects {

// The limits are the dialect list's (each codec's kMaxToolNameLength).
size_t max_tool_name_length(std::string_view dialect) {
  const Dialect* d = find_dialect(dialect);
  return d ? d->max_tool_name_length : 0;
}

bool is_valid_tool_name(std::string_view dialect, std::string_view name) {
  const size_t max = max_tool_name_length(dialect);
  return max == 0 || is_valid_tool_name(name, max);
}

Error invalid_tool_name(std::string_view dialect, std::string_view name, std::string path) {
  const std::string max = std::to_string(max_tool_name_length(dialect));
  std::string shown(name.substr(0, 80));
  if (name.size() > 80) shown += "...";
  return make_error(ErrorCode::invalid_argument,
                    "invalid tool name '" + shown + "': " + std::string(dialect) +
                        " accepts only names of 1 to " + max +
                        " letters, digits, '_' or '-' (^[a-zA-Z0-9_-]{1," + max + "}$)",
                    std::move(path));
}

Status check_tool_names(std::string_view dialect, const ir::Request& request) {
  const Dialect* d = find_dialect(dialect);
  const std::string_view name_path = d ? d->tool_name_path : std::string_view(".name");
  for (size_t i = 0; i < request.tools.size(); ++i) {
    const std::string& name = request.tools[i].name;
    if (is_valid_tool_name(dialect, name)) [[likely]]
      continue;
    return invalid_tool_name(dialect, name,
                             "$.tools[" + std::to_string(i) + "]" + std::string(name_path));
  }
  return Status::Ok();
}

}  // namespace toolwire::dialects
