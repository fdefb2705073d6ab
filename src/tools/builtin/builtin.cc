// builtin_tool_specs / register_builtin_tools: opens the workspace once and
// hands every enabled tool a shared BuiltinContext.
#include "toolwire/tools/builtin.h"

#include <algorithm>

#include "tools/builtin/common.h"
#include "tools/sandbox/process.h"
#include "toolwire/tools/registry.h"

namespace toolwire::tools {

const std::vector<std::string>& builtin_tool_names() {
  static const std::vector<std::string> names = {"read", "write", "edit",  "list",
                                                 "glob", "grep",  "shell", "fetch"};
  return names;
}

Result<std::vector<ToolSpec>> builtin_tool_specs(const BuiltinOptions& options) {
  for (const auto& n : options.enabled) {
    const auto& all = builtin_tool_names();
    if (std::find(all.begin(), all.end(), n) == all.end())
      return make_error(ErrorCode::invalid_argument, "unknown built-in tool '" + n + "'");
  }
  if (options.workspace.empty())
    return make_error(ErrorCode::invalid_argument, "workspace root not set");
  auto ws = Workspace::open(options.workspace, options.sandbox);
  if (!ws) return ws.error();
  std::string rg;
  using E = BuiltinOptions::GrepEngine;
  if (options.grep_engine != E::internal) {
    rg = options.ripgrep_path.empty() ? detail::find_program("rg", options.search_path)
                                      : options.ripgrep_path;
    if (rg.empty() && options.grep_engine == E::ripgrep)
      return make_error(ErrorCode::failed_precondition,
                        "grep_engine is ripgrep but `rg` was not found");
  }
  auto bc = std::make_shared<const BuiltinContext>(
      BuiltinContext{options, std::move(*ws), std::move(rg)});

  using Factory = ToolSpec (*)(builtin::Ctx);
  const std::pair<const char*, Factory> factories[] = {
      {"read", builtin::read_spec},   {"write", builtin::write_spec}, {"edit", builtin::edit_spec},
      {"list", builtin::list_spec},   {"glob", builtin::glob_spec},   {"grep", builtin::grep_spec},
      {"shell", builtin::shell_spec}, {"fetch", builtin::fetch_spec}};
  std::vector<ToolSpec> specs;
  for (const auto& [name, make] : factories)
    if (options.enabled.count(name)) specs.push_back(make(bc));
  return specs;
}

Status register_builtin_tools(Registry& registry, const BuiltinOptions& options) {
  auto specs = builtin_tool_specs(options);
  if (!specs) return specs.error();
  for (auto& s : *specs) TW_TRY(registry.add(std::move(s)));
  return Status::Ok();
}

}  // namespace toolwire::tools
