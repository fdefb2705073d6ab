// shell: runs one allow-listed program with argv (no shell parsing), cwd =
// workspace root, a clean environment, its own process group, a timeout and
// capped output. Off unless enabled; see BuiltinOptions.
#include <algorithm>

#include "tools/builtin/common.h"
#include "tools/sandbox/process.h"

namespace toolwire::tools::builtin {
namespace {

std::string allowed_list(const std::vector<std::string>& allow) {
  if (allow.empty()) return "(none)";
  std::string s;
  for (const auto& a : allow) s += (s.empty() ? "" : ", ") + a;
  return s;
}

Result<std::string> resolve_program(const std::string& name, const BuiltinOptions& opt) {
  bool listed =
      std::find(opt.shell_allow.begin(), opt.shell_allow.end(), name) != opt.shell_allow.end();
  if (!listed)
    return make_error(ErrorCode::permission_denied,
                      "program '" + name + "' is not in the shell allow-list (allowed: " +
                          allowed_list(opt.shell_allow) + ")",
                      "$.argv[0]");
  if (name.find('/') != std::string::npos) {
    if (name.front() != '/')
      return make_error(ErrorCode::permission_denied, "relative program paths are not allowed",
                        "$.argv[0]");
    return name;
  }
  std::string path = detail::find_program(name, opt.search_path);
  if (path.empty())
    return make_error(ErrorCode::not_found,
                      "program '" + name + "' not found in " + opt.search_path, "$.argv[0]");
  return path;
}

Result<ToolOutput> do_shell(const nlohmann::json& args, const BuiltinContext& bc,
                            ToolContext& ctx) {
  const auto& opt = bc.options;
  auto it = args.is_object() ? args.find("argv") : args.end();
  if (it == args.end() || !it->is_array() || it->empty())
    return make_error(ErrorCode::invalid_argument, "must be a non-empty array of strings",
                      "$.argv");
  std::vector<std::string> argv;
  for (size_t i = 0; i < it->size(); ++i) {
    const auto& v = (*it)[i];
    if (!v.is_string())
      return make_error(ErrorCode::invalid_argument, "must be a string",
                        "$.argv[" + std::to_string(i) + "]");
    std::string s = v.get<std::string>();
    if (s.find('\0') != std::string::npos)
      return make_error(ErrorCode::invalid_argument, "contains a NUL byte",
                        "$.argv[" + std::to_string(i) + "]");
    argv.push_back(std::move(s));
  }
  auto program = resolve_program(argv[0], opt);
  if (!program) return program.error();
  auto tmo = arg_int(args, "timeout_ms", opt.shell_timeout.count(), 1);
  if (!tmo) return tmo.error();

  detail::ProcessSpec ps;
  ps.program = *program;
  ps.argv = std::move(argv);
  ps.env = opt.shell_env;
  ps.cwd_fd = bc.workspace.root_fd();
  ps.timeout = budget(ctx, std::min(std::chrono::milliseconds(*tmo), opt.shell_max_timeout));
  ps.kill_grace = opt.kill_grace;
  ps.max_stdout = opt.shell_max_output;
  ps.max_stderr = opt.shell_max_output;
  ps.cancel = &ctx.cancel;
  auto r = detail::run_process(ps);
  if (!r) return r.error();

  std::string out;
  bool failed = false;
  if (r->timed_out) {
    out += "timed out after " + std::to_string(ps.timeout.count()) +
           " ms; process group terminated" +
           (r->sent_sigkill ? " (SIGTERM ignored, SIGKILL sent)" : " (SIGTERM)") + "\n";
    failed = true;
  } else if (r->cancelled) {
    out += "cancelled; process group terminated\n";
    failed = true;
  } else if (r->out_truncated || r->err_truncated) {
    out += "output exceeded " + std::to_string(opt.shell_max_output) +
           " bytes; process group terminated\n";
    failed = true;
  } else if (r->term_signal) {
    out += "killed by signal " + std::to_string(r->term_signal) + "\n";
    failed = true;
  } else {
    out += "exit code: " + std::to_string(r->exit_code) + "\n";
    failed = r->exit_code != 0;
  }
  auto section = [&](const char* name, const std::string& s, bool cut) {
    if (s.empty() && !cut) return;
    out += std::string("--- ") + name + " ---\n";
    out += valid_utf8(s) ? s : "[non-UTF-8 output, " + std::to_string(s.size()) + " bytes]";
    if (!s.empty() && s.back() != '\n') out += '\n';
    if (cut)
      out += "[" + std::string(name) + " truncated at " + std::to_string(s.size()) + " bytes]\n";
  };
  section("stdout", r->out, r->out_truncated);
  section("stderr", r->err, r->err_truncated);
  ToolOutput o = ToolOutput::text(std::move(out));
  o.is_error = failed;
  return o;
}

}  // namespace

ToolSpec shell_spec(Ctx bc) {
  std::string allowed = allowed_list(bc->options.shell_allow);
  ToolSpec s = spec(
      "shell",
      "Run one program in the workspace directory. argv is passed as is: no shell, so no pipes, "
      "redirection, "
      "globbing or variables. Allowed programs: " +
          allowed + ". Output is capped and the process is killed on timeout.",
      R"json({"type":"object","properties":{
    "argv":{"type":"array","items":{"type":"string"},"minItems":1,
            "description":"Program name followed by its arguments, e.g. [\"ls\", \"-la\"]"},
    "timeout_ms":{"type":"integer","minimum":1,"description":"Timeout in milliseconds"}},
    "required":["argv"],"additionalProperties":false})json",
      std::move(bc), do_shell);
  s.exclusive = true;
  return s;
}

}  // namespace toolwire::tools::builtin
