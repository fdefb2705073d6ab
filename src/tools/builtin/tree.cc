// list and glob: directory listings through fds opened beneath the root.
#include <algorithm>
#include <optional>
#include <vector>

#include "tools/builtin/common.h"
#include "tools/builtin/ignore.h"
#include "tools/builtin/walk.h"

namespace toolwire::tools::builtin {
namespace {

std::string join_rel(const std::string& base, const std::string& rel) {
  return base == "." ? rel : base + "/" + rel;
}

const char* suffix(unsigned char type) {
  switch (type) {
    case DT_DIR:
      return "/";
    case DT_LNK:
      return "@";
    case DT_REG:
      return "";
    default:
      return "  [special file]";
  }
}

Result<ToolOutput> do_list(const nlohmann::json& args, const BuiltinContext& bc, ToolContext&) {
  auto path = arg_string(args, "path", ".");
  if (!path) return path.error();
  auto dir = bc.workspace.open_dir(*path);
  if (!dir) return dir.error();
  std::vector<std::string> direct;
  bool truncated = false;
  walk_tree(
      dir->get(), bc.options.max_entries,
      [&](const WalkEntry& e) {
        direct.push_back(e.rel + suffix(e.type));
        return true;
      },
      &truncated, /*max_depth=*/0);
  if (direct.empty()) return ToolOutput::text("(empty directory)");
  return ToolOutput::text(
      bounded_lines(direct, bc.options.max_output_bytes, truncated, "listing", "entries"));
}

Result<ToolOutput> do_glob(const nlohmann::json& args, const BuiltinContext& bc, ToolContext& ctx) {
  auto pattern = arg_string(args, "pattern");
  if (!pattern) return pattern.error();
  if (pattern->empty())
    return make_error(ErrorCode::invalid_argument, "must not be empty", "$.pattern");
  if (pattern->front() == '/' || pattern->find("..") != std::string::npos)
    return make_error(
        ErrorCode::invalid_argument,
        "glob patterns are relative to `path` and may not contain '..' or start with '/'",
        "$.pattern");
  auto path = arg_string(args, "path", ".");
  if (!path) return path.error();
  auto base = bc.workspace.relative(*path);
  if (!base) return base.error();
  auto no_ignore = arg_bool(args, "no_ignore", false);
  if (!no_ignore) return no_ignore.error();
  auto dir = bc.workspace.open_dir(*path);
  if (!dir) return dir.error();
  std::optional<IgnoreStack> ignore;
  if (!*no_ignore) ignore.emplace(bc.workspace, *base);
  std::vector<std::string> hits;
  bool truncated = false;
  walk_tree(
      dir->get(), bc.options.max_walk_entries,
      [&](const WalkEntry& e) {
        if (ctx.cancelled()) return false;
        if (glob_match(*pattern, e.rel)) {
          if (hits.size() >= bc.options.max_entries) {
            truncated = true;
            return false;
          }
          hits.push_back(join_rel(*base, e.rel) + (e.type == DT_DIR ? "/" : ""));
        }
        return true;
      },
      &truncated, /*max_depth=*/64, ignore ? &*ignore : nullptr);
  if (hits.empty())
    return ToolOutput::text(truncated ? "no matches (search truncated)" : "no matches");
  return ToolOutput::text(
      bounded_lines(hits, bc.options.max_output_bytes, truncated, "results", "paths"));
}

}  // namespace

ToolSpec list_spec(Ctx bc) {
  return spec(
      "list",
      "List a workspace directory (one level, sorted). Directories end with '/', symlinks with "
      "'@'. "
      "Shows every entry, ignored ones too (grep and glob skip those).",
      R"json({"type":"object","properties":{
    "path":{"type":"string","description":"Directory relative to the workspace root (default '.')"}},
    "additionalProperties":false})json",
      std::move(bc), do_list);
}

ToolSpec glob_spec(Ctx bc) {
  return spec(
      "glob",
      "Find workspace paths matching a glob pattern: '**' matches any number of directories, '*' "
      "and '?' "
      "stay within one path component, '{a,b}' alternatives. Symlinked directories are not "
      "descended into. "
      "Like ripgrep, skips what .gitignore, .ignore and .git/info/exclude ignore, and .git itself; "
      "no_ignore lists everything.",
      R"json({"type":"object","properties":{
    "pattern":{"type":"string","minLength":1,"description":"Glob such as 'src/**/*.cc'"},
    "path":{"type":"string","description":"Directory to search from (default '.')"},
    "no_ignore":{"type":"boolean","description":"Also list paths that ignore files exclude (default false)"}},
    "required":["pattern"],"additionalProperties":false})json",
      std::move(bc), do_glob);
}

}  // namespace toolwire::tools::builtin
