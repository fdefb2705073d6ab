// toolwire/tools/builtin.h — the built-in tools (read, write, edit, list,
// glob, grep, shell, fetch), every path confined to one workspace.
//
// Each tool is opt-in through BuiltinOptions::enabled; `shell` and `fetch`
// are never on unless named there. All file tools go through a
// tools::Workspace (sandbox.h), so `..`, absolute paths outside the root,
// escaping symlinks, hard links and special files are refused with an error
// result naming the path the model gave.
//
//   tools::BuiltinOptions opt;
//   opt.workspace = "/srv/project";
//   opt.enabled = {"read", "edit", "grep", "shell"};
//   opt.shell_allow = {"ls", "git", "make"};        // argv[0] must be one of these
//   tools::Registry reg;
//   if (Status st = tools::register_builtin_tools(reg, opt); !st) die(st.error());
//   reg.dispatch({"call_1", "read", R"({"path":"src/main.cc","offset":10,"limit":20})"});
//
// docs/security.md lists every attack the tests try and what happens.
#pragma once

#include <chrono>
#include <cstddef>
#include <memory>
#include <set>
#include <span>
#include <string>
#include <string_view>
#include <vector>

#include <nlohmann/json.hpp>

#include "toolwire/core/result.h"
#include "toolwire/tools/sandbox.h"
#include "toolwire/tools/tool.h"

namespace toolwire::tools {

class Registry;

// One row of the built-in tool table (builtin.cc holds the one list).
struct BuiltinToolInfo {
  std::string_view name;
  // Only reads inside the workspace: read, list, glob, grep. These are the
  // default set wherever tools are offered without being named (the
  // gateway's routes, `toolwire mcp serve`, the offline chat).
  bool read_only = false;
  // Never on unless named: shell (runs programs), fetch (reaches the network).
  bool opt_in = false;
};

// Every built-in tool, in registration order.
std::span<const BuiltinToolInfo> builtin_tools();
// Every built-in tool name, enabled or not.
const std::vector<std::string>& builtin_tool_names();
// The read-only default set (read, list, glob, grep).
const std::set<std::string>& read_only_builtin_tools();
// Every tool that is not opt-in: BuiltinOptions' default.
const std::set<std::string>& default_builtin_tools();

struct BuiltinOptions {
  std::string workspace;  // root directory; must exist
  // Which tools to register. shell and fetch are off unless listed.
  std::set<std::string> enabled = default_builtin_tools();
  WorkspaceOptions sandbox;  // resolver, read/write size caps, hard-link policy

  size_t max_output_bytes = 64 * 1024;  // text handed back to the model per call
  size_t max_entries = 1000;            // list / glob results
  size_t max_walk_entries = 100000;     // directory entries visited by glob / grep
  size_t max_line_chars = 2000;         // read / grep: longer lines are cut

  // grep: ripgrep when found (as a subprocess, argv only), else RE2 in process.
  // ripgrep serves `no_ignore` searches of a directory only: while ignore
  // files are honoured, grep walks in process (one matcher for grep and glob).
  enum class GrepEngine { automatic, ripgrep, internal };
  GrepEngine grep_engine = GrepEngine::automatic;
  std::string ripgrep_path;  // empty: look for `rg` in search_path
  size_t max_grep_matches = 500;
  std::chrono::milliseconds grep_timeout{20000};

  // shell: argv[0] must be a name (found in search_path) or absolute path listed here.
  std::vector<std::string> shell_allow;
  std::string search_path = "/usr/local/bin:/usr/bin:/bin";
  std::vector<std::string> shell_env = {"PATH=/usr/local/bin:/usr/bin:/bin", "LANG=C.UTF-8"};
  std::chrono::milliseconds shell_timeout{30000};
  std::chrono::milliseconds shell_max_timeout{300000};  // cap on the model's timeout_ms
  std::chrono::milliseconds kill_grace{2000};           // SIGTERM → SIGKILL
  size_t shell_max_output = 64 * 1024;                  // per stream

  // fetch: GET over http/https only.
  size_t fetch_max_bytes = 1 << 20;
  std::chrono::milliseconds fetch_timeout{20000};
  long fetch_max_redirects = 5;
  // Off: connections to loopback, private, link-local and unspecified
  // addresses are refused (checked on the resolved address, per connection).
  bool fetch_allow_private_networks = false;
};

// Shared state of the registered built-ins (one opened workspace).
struct BuiltinContext {
  BuiltinOptions options;
  Workspace workspace;
  std::string ripgrep;  // resolved rg path, empty when the internal engine is used
};

// Opens the workspace and builds the specs of the enabled tools (in the order
// read, write, edit, list, glob, grep, shell, fetch). Unknown names in
// `enabled` are an error.
Result<std::vector<ToolSpec>> builtin_tool_specs(const BuiltinOptions& options);

// builtin_tool_specs() added to `registry`.
Status register_builtin_tools(Registry& registry, const BuiltinOptions& options);

}  // namespace toolwire::tools
