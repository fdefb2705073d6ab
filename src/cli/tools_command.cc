// `toolwire tools`: list the built-in tools, print one's schema in a
// dialect, or call one — for users checking their setup (and for tests).
// Everything printed on stdout is JSON; `call` exits 1 when the result is an
// error, 2 on bad usage (docs/cli.md).
#include <iostream>
#include <memory>
#include <sstream>
#include <string>
#include <vector>

#include "cli/commands.h"
#include "toolwire/tools/builtin.h"
#include "toolwire/tools/executor.h"
#include "toolwire/tools/registry.h"
#include "toolwire/tools/schema_export.h"

namespace toolwire::cli {
namespace {

using nlohmann::ordered_json;

struct ToolsOptions {
  std::string name, args = "{}", dialect = "openai", workspace = ".";
  std::vector<std::string> enable, shell_allow;
  bool strict = false;
  int timeout_ms = 30000;
};

int usage_error(const std::string& msg) {
  std::cerr << "toolwire tools: " << msg << "\n";
  return kExitUsage;
}

Result<tools::Registry> build_registry(const ToolsOptions& opt) {
  tools::Registry reg;
  tools::BuiltinOptions b;
  b.workspace = opt.workspace;
  for (const auto& e : opt.enable) b.enabled.insert(e);
  b.shell_allow = opt.shell_allow;
  Status st = tools::register_builtin_tools(reg, b);
  if (!st) return st.error();
  return reg;
}

ordered_json content_json(const ir::ResultContent& c) {
  if (auto* t = std::get_if<ir::TextPart>(&c)) return {{"type", "text"}, {"text", t->text}};
  if (auto* i = std::get_if<ir::ImagePart>(&c)) {
    ordered_json j = {{"type", "image"}};
    if (!i->url.empty()) j["url"] = i->url;
    if (!i->media_type.empty()) j["media_type"] = i->media_type;
    if (!i->data.empty()) j["data"] = i->data;
    return j;
  }
  const auto& u = std::get<ir::UnknownPart>(c);
  return {{"type", "raw"},
          {"dialect", u.dialect},
          {"raw", ordered_json::parse(u.raw_json, nullptr, false)}};
}

int run_list(const tools::Registry& reg) {
  ordered_json out = ordered_json::array();
  for (const auto& t : reg.tools()) {
    out.push_back({{"name", t->name()},
                   {"wire_name", t->wire_name()},
                   {"description", t->description()},
                   {"exclusive", t->exclusive()},
                   {"input_schema", ordered_json::parse(t->spec().input_schema)}});
  }
  std::cout << out.dump(2) << "\n";
  return 0;
}

int run_schema(const tools::Registry& reg, const ToolsOptions& opt) {
  auto dialect = tools::parse_dialect(opt.dialect);
  if (!dialect)
    return usage_error("unknown dialect '" + opt.dialect + "' (" + tools::export_dialect_names() +
                       ")");
  const tools::Tool* t = reg.find(opt.name);
  if (!t) return usage_error("unknown tool '" + opt.name + "'");
  tools::ExportOptions eo;
  if (opt.strict) eo.strict = true;
  auto out = tools::export_tool(*t, dialect->name, eo);
  if (!out) return usage_error(out.error().to_string());
  std::cout << out->dump(2) << "\n";
  return 0;
}

int run_call(const tools::Registry& reg, const ToolsOptions& opt) {
  ir::ToolCallPart call;
  call.id = "cli_call";
  call.name = opt.name;
  call.arguments = opt.args;
  tools::Executor ex(
      reg, {.max_concurrency = 1, .default_timeout = std::chrono::milliseconds(opt.timeout_ms)});
  ir::ToolResultPart r = ex.run_one(call);
  ordered_json content = ordered_json::array();
  for (const auto& c : r.content) content.push_back(content_json(c));
  ordered_json out = {
      {"call_id", r.call_id}, {"tool", opt.name}, {"is_error", r.is_error}, {"content", content}};
  std::cout << out.dump(2) << "\n";
  return r.is_error ? kExitFailure : kExitOk;
}

int run_tools(const std::string& sub, const ToolsOptions& opt) {
  auto reg = build_registry(opt);
  if (!reg) return usage_error(reg.error().to_string());
  if (sub == "list") return run_list(*reg);
  if (sub == "schema") return run_schema(*reg, opt);
  return run_call(*reg, opt);
}

void add_common(CLI::App* cmd, ToolsOptions& o) {
  cmd->add_option("--workspace", o.workspace, "Workspace root for the file tools (default: .)");
  cmd->add_option("--enable", o.enable, "Extra built-in tools to enable, e.g. shell,fetch")
      ->delimiter(',');
  cmd->add_option("--shell-allow", o.shell_allow, "Programs the shell tool may run, e.g. ls,git")
      ->delimiter(',');
}

}  // namespace

void add_tools_command(CLI::App& app) {
  auto opt = std::make_shared<ToolsOptions>();
  CLI::App* tools = app.add_subcommand("tools", "List, inspect and call the built-in tools");
  tools->require_subcommand(1);

  CLI::App* list =
      tools->add_subcommand("list", "Print the enabled tools and their schemas as JSON");
  add_common(list, *opt);
  list->callback([opt] { std::exit(run_tools("list", *opt)); });

  CLI::App* schema = tools->add_subcommand("schema", "Print one tool's definition in a dialect");
  schema->add_option("name", opt->name, "Tool name")->required();
  schema->add_option("--dialect", opt->dialect, tools::export_dialect_names())
      ->check(CLI::Validator(
          [](std::string& name) {
            return tools::parse_dialect(name) ? std::string() : "unknown dialect '" + name + "'";
          },
          tools::export_dialect_names()));
  schema->add_flag("--strict", opt->strict, "OpenAI strict-mode conversion");
  add_common(schema, *opt);
  schema->callback([opt] { std::exit(run_tools("schema", *opt)); });

  CLI::App* call =
      tools->add_subcommand("call", "Call one tool with JSON arguments and print the result");
  call->add_option("name", opt->name, "Tool name")->required();
  call->add_option("args", opt->args, "Arguments as a JSON object (default {})");
  call->add_option("--timeout-ms", opt->timeout_ms, "Per-call timeout (default 30000)")
      ->check(int_between(1, 86'400'000));
  add_common(call, *opt);
  call->callback([opt] { std::exit(run_tools("call", *opt)); });
}

}  // namespace toolwire::cli
