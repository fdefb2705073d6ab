// `toolwire chat`: an interactive terminal agent. With no flags it runs
// offline on the scripted provider (demo to-do list + read-only file tools);
// with --provider it talks to a real upstream. --once runs one turn, --json
// prints the agent's events as JSON lines.
#include <unistd.h>

#include <atomic>
#include <csignal>
#include <cstdio>
#include <cstdlib>
#include <fstream>
#include <iostream>
#include <memory>
#include <mutex>
#include <sstream>
#include <string>
#include <thread>

#include "cli/commands.h"
#include "cli/offline_demo.h"
#include "toolwire/agent/agent.h"
#include "toolwire/demo/demo.h"
#include "toolwire/mcp/client.h"
#include "toolwire/mcp/tool_bridge.h"
#include "toolwire/textprovider/upstream.h"
#include "toolwire/tools/builtin.h"

namespace toolwire::cli {
namespace {

struct ChatOptions {
  std::string provider = "scripted";
  std::string base_url, model, api_key_env, profile_file, script_file, system;
  std::string tool_format;  // a text format family: tools in the prompt, calls parsed from text
  std::string once;
  bool once_given = false;
  bool json = false;
  bool yes = false;
  bool no_stream = false;
  std::string data_dir;
  std::string dir = ".";
  int max_rounds = 8;
  int tool_timeout_s = 30;
  std::string turn_protocol = "native";
  std::vector<std::string> shell_allow;
  std::vector<std::string> mcp;  // "[NAME=]CMD ARGS" per MCP server
};

std::mutex g_out;  // one writer at a time: event printer and confirmation prompts

void out(std::string_view s) {
  std::lock_guard<std::mutex> lock(g_out);
  std::fwrite(s.data(), 1, s.size(), stdout);
  std::fflush(stdout);
}

std::string one_line(std::string s, size_t max) {
  for (char& c : s)
    if (c == '\n' || c == '\r' || c == '\t') c = ' ';
  if (s.size() > max) s = s.substr(0, max) + "…";
  return s;
}

// Asks on the terminal before a tool that changes things runs.
bool confirm(const std::string& tool, const nlohmann::json& args) {
  if (!isatty(STDIN_FILENO)) return false;
  std::lock_guard<std::mutex> lock(g_out);
  std::fprintf(stdout, "\n  allow %s %s? [y/N] ", tool.c_str(), one_line(args.dump(), 160).c_str());
  std::fflush(stdout);
  std::string answer;
  if (!std::getline(std::cin, answer)) return false;
  return !answer.empty() && (answer[0] == 'y' || answer[0] == 'Y');
}

tools::ToolSpec guarded(tools::ToolSpec spec) {
  auto* inner = std::get_if<tools::SyncHandler>(&spec.handler);
  if (!inner) return spec;  // built-ins are synchronous; anything else runs unguarded
  tools::SyncHandler run = *inner;
  std::string name = spec.name;
  spec.handler =
      tools::SyncHandler([run, name](const nlohmann::json& args, tools::ToolContext& ctx) {
        if (!confirm(name, args))
          return tools::ToolOutput::error("the user did not allow " + name +
                                          " (run toolwire chat with --yes to allow it)");
        return run(args, ctx);
      });
  spec.timeout = std::chrono::minutes(10);  // a person is answering
  return spec;
}

// Fails with the exit status to use: a bad --dir is a usage error, a to-do
// database that cannot be opened a runtime failure.
Status build_tools(const ChatOptions& o, bool offline, tools::Registry& reg, int& exit_code) {
  exit_code = kExitUsage;
  tools::BuiltinOptions b;
  b.workspace = o.dir;
  b.enabled = tools::read_only_builtin_tools();
  if (!offline) {
    b.enabled.insert("write");
    b.enabled.insert("edit");
    if (!o.shell_allow.empty()) {
      b.enabled.insert("shell");
      b.shell_allow = o.shell_allow;
    }
  }
  auto specs = tools::builtin_tool_specs(b);
  if (!specs) return specs.error();
  for (auto& s : *specs) {
    bool risky = !tools::read_only_builtin_tools().count(s.name);
    TW_TRY(reg.add(risky && !o.yes ? guarded(std::move(s)) : std::move(s)));
  }
  exit_code = kExitFailure;
  auto todo = demo_todo_tools(o.data_dir);
  if (!todo) return todo.error();
  for (auto& s : *todo) TW_TRY(reg.add(std::move(s)));
  return {};
}

// `--mcp '[NAME=]CMD ARGS'`: spawns each server, registers its tools as
// NAME__tool (NAME defaults to mcp, mcp2, ...). Server stderr goes to ours.
Status add_mcp_servers(const ChatOptions& o, tools::Registry& reg,
                       std::vector<std::unique_ptr<mcp::ServerTools>>& servers) {
  int n = 0;
  for (const std::string& spec : o.mcp) {
    ++n;
    std::string name = n == 1 ? "mcp" : "mcp" + std::to_string(n);
    std::string_view cmd = spec;
    size_t eq = cmd.find('=');
    size_t sp = cmd.find_first_of(" \t");
    if (eq != std::string_view::npos && eq > 0 && (sp == std::string_view::npos || eq < sp) &&
        cmd.substr(0, eq).find_first_not_of("abcdefghijklmnopqrstuvwxyzABCDEFGHIJKLMNOPQRSTUVWXYZ"
                                            "0123456789_-") == std::string_view::npos) {
      name = std::string(cmd.substr(0, eq));
      cmd.remove_prefix(eq + 1);
    }
    auto argv = mcp::split_command(cmd);
    if (!argv)
      return make_error(ErrorCode::invalid_argument,
                        "--mcp '" + spec + "': " + argv.error().message);
    mcp::ClientOptions co;
    co.name = name;
    co.server.argv = std::move(*argv);
    co.on_log = [name](const std::string& line) {
      std::lock_guard<std::mutex> lock(g_out);
      std::cerr << "[mcp " << name << "] " << line << "\n";
    };
    auto client = mcp::Client::create(std::move(co));
    TW_TRY(client->connect());
    auto st = std::make_unique<mcp::ServerTools>(client, mcp::ServerToolsOptions{.prefix = name});
    auto rep = st->sync(reg);
    if (!rep) return rep.error();
    for (const auto& s : rep->skipped) {
      std::lock_guard<std::mutex> lock(g_out);
      std::cerr << "[mcp " << name << "] skipped tool " << s << "\n";
    }
    servers.push_back(std::move(st));
  }
  return {};
}

Result<std::unique_ptr<provider::Provider>> build_provider(
    const ChatOptions& o, std::unique_ptr<transport::HttpClient>& client) {
  textprovider::UpstreamSpec s;
  s.provider.profile = o.provider;
  s.provider.profile_file = o.profile_file;
  s.provider.base_url = o.base_url;
  s.provider.model = o.model;
  s.provider.api_key_env = o.api_key_env;
  s.tool_format = o.tool_format;
  s.script_file = o.script_file;
  s.default_script = demo::demo_script_json();
  if (o.provider != textprovider::kScriptedProfile)
    client = std::make_unique<transport::HttpClient>();
  return textprovider::make_upstream(s, client.get());
}

// Human-readable rendering: text as it streams, tool calls and results on one line each.
class Printer {
 public:
  // `envelope`: the answer was already printed as it was sent (send_chat).
  Printer(bool json, bool envelope) : json_(json), envelope_(envelope) {}
  void operator()(const agent::Event& e) {
    if (json_) return out(agent::to_json(e) + "\n");
    if (auto* t = std::get_if<agent::TextDeltaEvent>(&e)) {
      out(t->text);
      at_line_start_ = !t->text.empty() && t->text.back() == '\n';
    } else if (auto* c = std::get_if<agent::ToolCallEvent>(&e)) {
      newline();
      out("  → " + c->call.name + " " + one_line(c->call.arguments, 120) +
          (c->remote ? " (remote)" : "") + "\n");
    } else if (auto* r = std::get_if<agent::ToolResultEvent>(&e)) {
      out(std::string(r->result.is_error ? "  ✗ " : "  ← ") + r->tool_name + ": " +
          one_line(agent::result_text(r->result), 120) + "\n");
      at_line_start_ = true;
    } else if (auto* sp = std::get_if<agent::SpeechEvent>(&e)) {
      newline();
      out("  (say) " + one_line(sp->text, 200) + "\n");
    } else if (auto* err = std::get_if<agent::ErrorEvent>(&e)) {
      newline();
      std::lock_guard<std::mutex> lock(g_out);
      std::cerr << "error: " << to_string(err->error.code) << ": " << err->error.to_string()
                << "\n";
    } else if (auto* f = std::get_if<agent::FinalAnswerEvent>(&e)) {
      if (f->reason == agent::StopReason::end_turn_tool && !envelope_) out(f->text);
      newline();
      if (f->reason == agent::StopReason::round_limit) out("[stopped: round limit]\n");
      if (f->reason == agent::StopReason::cancelled) out("[cancelled]\n");
      at_line_start_ = true;
    }
  }

 private:
  void newline() {
    if (!at_line_start_) out("\n");
    at_line_start_ = true;
  }
  bool json_;
  bool envelope_;
  bool at_line_start_ = true;
};

// Ctrl-C cancels the running turn; when idle it ends the program. A signal
// handler may only write to a pipe: a watcher thread does the rest.
int g_sig_pipe[2] = {-1, -1};
void on_sigint(int) {
  char c = 1;
  [[maybe_unused]] auto n = write(g_sig_pipe[1], &c, 1);
}

int run_chat(const ChatOptions& o) {
  bool offline = o.provider == "scripted";
  tools::Registry reg;
  int tools_exit = kExitUsage;
  if (Status st = build_tools(o, offline, reg, tools_exit); !st) {
    std::cerr << "toolwire chat: " << st.error().to_string() << "\n";
    return tools_exit;
  }
  std::vector<std::unique_ptr<mcp::ServerTools>> mcp_servers;
  if (Status st = add_mcp_servers(o, reg, mcp_servers); !st) {
    std::cerr << "toolwire chat: " << st.error().to_string() << "\n";
    return kExitFailure;
  }
  std::unique_ptr<transport::HttpClient> client;
  auto model = build_provider(o, client);
  if (!model) {
    std::cerr << "toolwire chat: " << model.error().to_string() << "\n";
    return kExitUsage;
  }
  // Checked here, not at the first request: a missing model is a usage error
  // like a missing base URL, not a failed turn.
  if (!offline && o.model.empty() && (*model)->default_model().empty()) {
    std::cerr << "toolwire chat: provider '" << o.provider
              << "' has no default model: set --model\n";
    return kExitUsage;
  }
  agent::AgentOptions opt;
  opt.max_rounds = o.max_rounds;
  opt.tool_timeout = std::chrono::seconds(o.tool_timeout_s);
  opt.turn_protocol = agent::parse_turn_protocol(o.turn_protocol).value();  // checked by CLI11
  opt.stream = !o.no_stream;
  opt.base.model = o.model;
  opt.base.system.push_back(ir::SystemPart{o.system.empty()
                                               ? "You are toolwire chat, a terminal assistant. "
                                                 "File tools work inside the current directory. "
                                                 "Keep answers short."
                                               : o.system,
                                           false});
  agent::Agent chat(**model, reg, opt);
  Printer print(o.json, opt.turn_protocol == agent::TurnProtocol::envelope);

  std::atomic<bool> running{false};
  if (pipe(g_sig_pipe) == 0) {
    std::signal(SIGINT, on_sigint);
    std::thread([&chat, &running] {
      char c;
      while (read(g_sig_pipe[0], &c, 1) == 1) {
        if (running.load())
          chat.cancel();
        else
          std::_Exit(kExitInterrupted);
      }
    }).detach();
  }

  auto turn = [&](const std::string& text) {
    // A server that announced list_changed gets its tools re-registered
    // between turns (the registry is not changed while a turn runs).
    for (auto& s : mcp_servers)
      if (s->tools_changed()) (void)s->sync(reg);
    running = true;
    agent::RunResult r = chat.run(text, [&](const agent::Event& e) { print(e); });
    running = false;
    return r;
  };
  if (o.once_given) {
    agent::RunResult r = turn(o.once);
    std::signal(SIGINT, SIG_DFL);
    return r.reason == agent::StopReason::error ? kExitFailure : kExitOk;
  }
  bool tty = isatty(STDIN_FILENO);
  if (tty && !o.json)
    out(offline ? "toolwire chat — offline demo (scripted model). Type 'help', Ctrl-D to quit.\n"
                : "toolwire chat — " + std::string((*model)->name()) +
                      ". Ctrl-C cancels a turn, Ctrl-D quits.\n");
  std::string line;
  while (true) {
    if (tty && !o.json) out("> ");
    if (!std::getline(std::cin, line)) break;
    if (line == "/exit" || line == "/quit") break;
    if (line.find_first_not_of(" \t") == std::string::npos) continue;
    turn(line);
  }
  std::signal(SIGINT, SIG_DFL);  // the watcher thread must not touch `chat` after this returns
  return kExitOk;
}

}  // namespace

void add_chat_command(CLI::App& app) {
  auto o = std::make_shared<ChatOptions>();
  CLI::App* cmd = app.add_subcommand(
      "chat", "Interactive tool-calling agent in the terminal (offline demo by default)");
  cmd->add_option(
      "--provider", o->provider,
      "scripted (offline demo, default), openai, anthropic, gemini, responses, bedrock, "
      "openai_compatible, or a profile name");
  cmd->add_option("--base-url", o->base_url, "Upstream base URL (e.g. http://127.0.0.1:11434/v1)");
  cmd->add_option("--model", o->model, "Model name");
  cmd->add_option("--api-key-env", o->api_key_env, "Environment variable that holds the API key");
  cmd->add_option("--profile-file", o->profile_file,
                  "Provider profile JSON (see profiles/README.md)");
  cmd->add_option("--tool-format", o->tool_format,
                  "Text format family of a model without native tool calling (hermes, "
                  "llama3_json, ...; docs/textformats.md): tools rendered into the prompt, calls "
                  "parsed from its text");
  cmd->add_option("--script", o->script_file, "Script JSON for the scripted provider");
  cmd->add_option("--system", o->system, "System prompt");
  auto* once = cmd->add_option("--once", o->once, "Run this one user turn and exit");
  cmd->add_flag("--json", o->json, "Print the agent's events as JSON lines");
  cmd->add_flag("--yes,-y", o->yes, "Allow write, edit and shell without asking");
  cmd->add_flag("--no-stream", o->no_stream,
                "Ask the model for whole responses instead of streams");
  cmd->add_option("--data-dir", o->data_dir,
                  "Where the to-do database lives (default $XDG_DATA_HOME/toolwire)");
  cmd->add_option("--dir", o->dir,
                  "Workspace directory for the file tools (default: current directory)");
  cmd->add_option("--max-rounds", o->max_rounds, "Model calls per turn (default 8)")
      ->check(int_between(1, 1000));
  cmd->add_option("--tool-timeout", o->tool_timeout_s, "Seconds per tool call (default 30)")
      ->check(int_between(1, 86'400));
  cmd->add_option("--turn-protocol", o->turn_protocol,
                  "native (the upstream's tool calls) or envelope (JSON envelopes in the "
                  "answer text, see docs/agent.md)")
      ->check(CLI::IsMember({"native", "envelope"}));
  cmd->add_option(
      "--mcp", o->mcp,
      "An MCP server to spawn, '[NAME=]CMD ARGS' (repeatable); its tools are NAME__tool "
      "(NAME defaults to mcp, mcp2, ...)");
  cmd->add_option("--allow-shell", o->shell_allow,
                  "Enable the shell tool for these programs (real providers only)");
  cmd->callback([o, once] {
    o->once_given = once->count() > 0;
    std::exit(run_chat(*o));
  });
}

}  // namespace toolwire::cli
