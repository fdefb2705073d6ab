// grep: ripgrep as a subprocess (argv only, `--` before the pattern, cwd =
// the directory fd we resolved) or RE2 in process. Both print
// "path:line:text" sorted by path, with paths relative to the workspace root.
#include <fcntl.h>
#include <re2/re2.h>
#include <sys/stat.h>
#include <unistd.h>
#include <map>
#include <optional>
#include <vector>

#include "tools/builtin/common.h"
#include "tools/builtin/ignore.h"
#include "tools/builtin/walk.h"
#include "tools/sandbox/process.h"

namespace toolwire::tools::builtin {
namespace {

struct Match {
  std::string path;
  size_t line;
  std::string text;
};

struct GrepArgs {
  std::string pattern, path, include;
  bool ignore_case = false;
  bool no_ignore = false;
};

std::string join_rel(const std::string& base, std::string_view rel) {
  if (rel.substr(0, 2) == "./") rel.remove_prefix(2);
  return base == "." ? std::string(rel) : base + "/" + std::string(rel);
}

// rg-style include filter: a glob without '/' matches the file name anywhere.
bool included(const std::string& include, const std::string& rel) {
  if (include.empty()) return true;
  if (include.find('/') == std::string::npos) {
    size_t slash = rel.rfind('/');
    return glob_match(include, slash == std::string::npos ? rel : rel.substr(slash + 1));
  }
  return glob_match(include, rel);
}

// Appends matching lines of `data` (searched up to its first NUL).
bool search_text(const RE2& re, std::string_view data, const std::string& path, size_t max,
                 std::vector<Match>& out) {
  if (data.substr(0, 8192).find('\0') != std::string_view::npos) return true;  // binary: skipped
  size_t nul = data.find('\0');
  if (nul != std::string_view::npos) data = data.substr(0, nul);
  size_t line = 0;
  while (!data.empty()) {
    ++line;
    size_t nl = data.find('\n');
    std::string_view l = data.substr(0, nl);
    data.remove_prefix(nl == std::string_view::npos ? data.size() : nl + 1);
    if (RE2::PartialMatch(re2::StringPiece(l.data(), l.size()), re)) {
      if (out.size() >= max) return false;
      out.push_back({path, line, std::string(l)});
    }
  }
  return true;
}

std::string read_fd(int fd, size_t cap) {
  std::string data;
  char buf[65536];
  for (;;) {
    ssize_t n = ::read(fd, buf, sizeof buf);
    if (n < 0 && errno == EINTR) continue;
    if (n <= 0) break;
    data.append(buf, static_cast<size_t>(n));
    if (data.size() > cap) break;
  }
  return data;
}

Result<bool> grep_internal(const GrepArgs& a, const BuiltinContext& bc, ToolContext& ctx,
                           std::vector<Match>& out) {
  RE2::Options o;
  o.set_case_sensitive(!a.ignore_case);
  o.set_log_errors(false);
  RE2 re(a.pattern, o);
  if (!re.ok())
    return make_error(ErrorCode::invalid_argument, "invalid regex: " + re.error(), "$.pattern");
  auto base = bc.workspace.relative(a.path);
  if (!base) return base.error();
  const auto& opt = bc.options;
  auto probe = bc.workspace.open_beneath(a.path, O_PATH);
  if (!probe) return probe.error();
  struct stat st {};
  fstat(probe->get(), &st);
  if (!S_ISDIR(st.st_mode)) {
    auto data = bc.workspace.read_file(a.path);
    if (!data) return data.error();
    return search_text(re, *data, *base, opt.max_grep_matches, out);
  }
  auto dir = bc.workspace.open_dir(a.path);
  if (!dir) return dir.error();
  std::optional<IgnoreStack> ignore;
  if (!a.no_ignore) ignore.emplace(bc.workspace, *base);
  bool complete = true, truncated = false;
  walk_tree(
      dir->get(), opt.max_walk_entries,
      [&](const WalkEntry& e) {
        if (ctx.cancelled() || ctx.expired()) {
          complete = false;
          return false;
        }
        if (e.type != DT_REG || !included(a.include, e.rel)) return true;
        UniqueFd fd(
            openat(e.parent_fd, e.name, O_RDONLY | O_NOFOLLOW | O_NONBLOCK | O_CLOEXEC | O_NOCTTY));
        struct stat fst {};
        // Same policy as read: regular, singly linked, under the size cap.
        if (!fd.valid() || fstat(fd.get(), &fst) != 0 || !S_ISREG(fst.st_mode)) return true;
        if (fst.st_nlink > 1 && !bc.workspace.options().allow_hard_links) return true;
        if (static_cast<std::uint64_t>(fst.st_size) > bc.workspace.options().max_read_bytes)
          return true;
        std::string data = read_fd(fd.get(), bc.workspace.options().max_read_bytes);
        if (!search_text(re, data, join_rel(*base, e.rel), opt.max_grep_matches, out)) {
          complete = false;
          return false;
        }
        return true;
      },
      &truncated, /*max_depth=*/64, ignore ? &*ignore : nullptr);
  return complete && !truncated;
}

Result<bool> grep_ripgrep(const GrepArgs& a, const BuiltinContext& bc, ToolContext& ctx,
                          std::vector<Match>& out) {
  auto base = bc.workspace.relative(a.path);
  if (!base) return base.error();
  auto dir = bc.workspace.open_dir(a.path);
  if (!dir) return dir.error();
  const auto& opt = bc.options;
  detail::ProcessSpec ps;
  ps.program = bc.ripgrep;
  ps.argv = {"rg",
             "--no-config",
             "--null",
             "--line-number",
             "--no-heading",
             "--with-filename",
             "--color=never",
             "--hidden",
             "--no-ignore",
             "--no-follow",
             "--glob=!.git",
             "--sort=path",
             "--max-filesize=" + std::to_string(bc.workspace.options().max_read_bytes)};
  if (a.ignore_case) ps.argv.push_back("--ignore-case");
  if (!a.include.empty()) ps.argv.push_back("--glob=" + a.include);
  ps.argv.insert(ps.argv.end(), {"--", a.pattern, "."});
  ps.env = {"PATH=/usr/bin:/bin", "LANG=C.UTF-8"};
  ps.cwd_fd = dir->get();
  ps.timeout = budget(ctx, opt.grep_timeout);
  ps.kill_grace = std::chrono::milliseconds(200);
  ps.max_stdout = opt.max_grep_matches * (opt.max_line_chars + 256) + 4096;
  ps.cancel = &ctx.cancel;
  auto r = detail::run_process(ps);
  if (!r) return r.error();
  if (r->timed_out) return make_error(ErrorCode::deadline_exceeded, "grep timed out");
  if (r->exit_code == 2 && r->out.empty()) {
    std::string msg = r->err.substr(0, 2000);
    if (msg.find("regex") != std::string::npos)
      return make_error(ErrorCode::invalid_argument, "invalid regex: " + msg, "$.pattern");
    return make_error(ErrorCode::internal, "ripgrep failed: " + msg);
  }
  bool complete = !r->out_truncated;
  std::map<std::string, bool> allowed;  // the read policy, re-checked per reported file
  std::string_view rest = r->out;
  while (!rest.empty()) {
    size_t nl = rest.find('\n');
    if (nl == std::string_view::npos) {
      complete = false;
      break;
    }  // cut by the output cap
    std::string_view l = rest.substr(0, nl);
    rest.remove_prefix(nl + 1);
    size_t nul = l.find('\0');
    size_t colon = l.find(':', nul == std::string_view::npos ? 0 : nul);
    if (nul == std::string_view::npos || colon == std::string_view::npos) continue;
    std::string path = join_rel(*base, l.substr(0, nul));
    auto it = allowed.find(path);
    if (it == allowed.end()) it = allowed.emplace(path, bc.workspace.open_read(path).ok()).first;
    if (!it->second) continue;
    if (out.size() >= opt.max_grep_matches) {
      complete = false;
      break;
    }
    size_t line =
        std::strtoul(std::string(l.substr(nul + 1, colon - nul - 1)).c_str(), nullptr, 10);
    out.push_back({std::move(path), line, std::string(l.substr(colon + 1))});
  }
  return complete;
}

Result<ToolOutput> do_grep(const nlohmann::json& args, const BuiltinContext& bc, ToolContext& ctx) {
  GrepArgs a;
  auto pattern = arg_string(args, "pattern");
  if (!pattern) return pattern.error();
  auto path = arg_string(args, "path", ".");
  if (!path) return path.error();
  auto include = arg_string(args, "include", "");
  if (!include) return include.error();
  auto ic = arg_bool(args, "ignore_case", false);
  if (!ic) return ic.error();
  auto no_ignore = arg_bool(args, "no_ignore", false);
  if (!no_ignore) return no_ignore.error();
  a = {*pattern, *path, *include, *ic, *no_ignore};
  if (a.pattern.empty())
    return make_error(ErrorCode::invalid_argument, "must not be empty", "$.pattern");

  // ripgrep only for directories searched with `no_ignore`; a single file is
  // searched in process, and so is a walk that honours ignore files: one
  // matcher (ignore.h) then decides for grep and glob alike, through fds.
  bool use_rg = !bc.ripgrep.empty() && a.no_ignore;
  if (use_rg) {
    auto probe = bc.workspace.open_beneath(a.path, O_PATH);
    if (!probe) return probe.error();
    struct stat st {};
    use_rg = fstat(probe->get(), &st) == 0 && S_ISDIR(st.st_mode);
  }
  std::vector<Match> matches;
  auto complete = use_rg ? grep_ripgrep(a, bc, ctx, matches) : grep_internal(a, bc, ctx, matches);
  if (!complete) return complete.error();
  if (matches.empty())
    return ToolOutput::text(*complete ? "no matches" : "no matches (search incomplete)");
  std::vector<std::string> lines;
  lines.reserve(matches.size());
  for (const auto& m : matches) {
    std::string_view text = m.text;
    bool cut = text.size() > bc.options.max_line_chars;
    if (cut) text = utf8_prefix(text, bc.options.max_line_chars);
    lines.push_back(m.path + ":" + std::to_string(m.line) + ":" + std::string(text) +
                    (cut ? " [... line truncated]" : ""));
  }
  return ToolOutput::text(
      bounded_lines(lines, bc.options.max_output_bytes, !*complete, "results", "matches"));
}

}  // namespace

ToolSpec grep_spec(Ctx bc) {
  return spec(
      "grep",
      "Search file contents in the workspace with a regular expression (RE2 / ripgrep syntax). "
      "Prints 'path:line:text' for each matching line, sorted by path. Binary files are skipped. "
      "Like ripgrep, skips what .gitignore, .ignore and .git/info/exclude ignore, and .git itself; "
      "no_ignore searches everything.",
      R"json({"type":"object","properties":{
    "pattern":{"type":"string","minLength":1,"description":"Regular expression"},
    "path":{"type":"string","description":"File or directory to search (default '.')"},
    "include":{"type":"string","description":"Only files matching this glob, e.g. '*.cc' or 'src/**/*.h'"},
    "ignore_case":{"type":"boolean","description":"Case-insensitive match (default false)"},
    "no_ignore":{"type":"boolean","description":"Also search files that ignore files exclude (default false)"}},
    "required":["pattern"],"additionalProperties":false})json",
      std::move(bc), do_grep);
}

}  // namespace toolwire::tools::builtin
