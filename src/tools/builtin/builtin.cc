// builtin_tool_specs / register_builtin_tools: opens the workspace once and
// hands every enabled tool a shared BuiltinContext.
#include "toolwire/tools/builtin.h"

#include <algorithm>

#include "tools/builtin/common.h"
#include "tools/sandbox/process.h"
#include "toolwire/tools/registry.h"

namespace toolwire::tools {

namespace {

struct Row {
  BuiltinToolInfo info;
  ToolSpec (*make)(builtin::Ctx);
};

// The one list of built-in tools.
constexpr Row kTools[] = {
    {{.name = "read", .read_only = true}, builtin::read_spec},
    {{.name = "write"}, builtin::write_spec},
    {{.name = "edit"}, builtin::edit_spec},
    {{.name = "list", .read_only = true}, builtin::list_spec},
    {{.name = "glob", .read_only = true}, builtin::glob_spec},
    {{.name = "grep", .read_only = true}, builtin::grep_spec},
    {{.name = "shell", .opt_in = true}, builtin::shell_spec},
    {{.name = "fetch", .opt_in = true}, builtin::fetch_spec},
};

template <class Pred>
std::set<std::string> names_where(Pred pred) {
  std::set<std::string> out;
  for (const Row& r : kTools)
    if (pred(r.info)) out.emplace(r.info.name);
  return out;
}

}  // namespace

std::span<const BuiltinToolInfo> builtin_tools() {
  static const std::vector<BuiltinToolInfo> infos = [] {
    std::vector<BuiltinToolInfo> v;
    for (const Row& r : kTools) v.push_back(r.info);
    return v;
  }();
  return infos;
}

const std::vector<std::string>& builtin_tool_names() {
  static const std::vector<std::string> names = [] {
    std::vector<std::string> v;
    for (const Row& r : kTools) v.emplace_back(r.info.name);
    return v;
  }();
  return names;
}

const std::set<std::string>& read_only_builtin_tools() {
  static const std::set<std::string> names =
      names_where([](const BuiltinToolInfo& t) { return t.read_only; });
  return names;
}

const std::set<std::string>& default_builtin_tools() {
  static const std::set<std::string> names =
      names_where([](const BuiltinToolInfo& t) { return !t.opt_in; });
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

  std::vector<ToolSpec> specs;
  for (const Row& r : kTools)
    if (options.enabled.count(std::string(r.info.name))) specs.push_back(r.make(bc));
  return specs;
}

Status register_builtin_tools(Registry& registry, const BuiltinOptions& options) {
  auto specs = builtin_tool_specs(options);
  if (!specs) return specs.error();
  for (auto& s : *specs) TW_TRY(registry.add(std::move(s)));
  return Status::Ok();
}

}  // namespace toolwire::tools
