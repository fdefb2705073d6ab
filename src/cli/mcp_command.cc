// `toolwire mcp serve`: the registry's tools over MCP on stdin/stdout
// (newline-delimited JSON-RPC). With --workspace alone it serves the
// read-only built-ins (read, list, glob, grep) confined to that directory;
// with --config, the tools of a gateway config's `mcp_endpoint.tools` (its
// built-ins and the tools of the `mcp_servers` it names, proxied).
// Logs go to stderr; stdout carries only protocol frames.
#include <unistd.h>

#include <algorithm>
#include <cerrno>
#include <csignal>
#include <cstdio>
#include <iostream>
#include <memory>
#include <string>

#include "cli/commands.h"
#include "toolwire/gateway/config.h"
#include "toolwire/mcp/client.h"
#include "toolwire/mcp/server.h"
#include "toolwire/tools/builtin.h"

namespace toolwire::cli {
namespace {

struct McpServeOptions {
  std::string workspace = ".";
  std::string config;
  int page_size = 100;
  int tool_timeout_s = 60;
  int max_message_kb = 16 * 1024;
};

bool write_all(int fd, const std::string& s) {
  size_t off = 0;
  while (off < s.size()) {
    ssize_t n = ::write(fd, s.data() + off, s.size() - off);
    if (n < 0 && errno == EINTR) continue;
    if (n <= 0) return false;
    off += static_cast<size_t>(n);
  }
  return true;
}

// The tools of a gateway config's mcp_endpoint section; connects its MCP servers.
Result<std::shared_ptr<const tools::Registry>> config_tools(
    const std::string& path, std::vector<std::shared_ptr<mcp::Client>>& clients) {
  auto cfg = gateway::load_config_file(path);
  if (!cfg) return std::move(cfg).error();
  if (!cfg->mcp_endpoint)
    return make_error(ErrorCode::invalid_argument,
                      path + ": no mcp_endpoint section (it names the tools to serve)");
  gateway::McpToolSets sets;
  for (const auto& m : cfg->mcp_servers) {
    if (std::find(cfg->mcp_endpoint_tools.mcp.begin(), cfg->mcp_endpoint_tools.mcp.end(), m.name) ==
        cfg->mcp_endpoint_tools.mcp.end())
      continue;  // only the servers the endpoint uses
    std::shared_ptr<mcp::Client> c;
    auto reg = gateway::connect_mcp_server(m, c);
    if (!reg)
      return make_error(reg.error().code,
                        path + ": mcp_servers." + m.name + ": " + reg.error().message);
    clients.push_back(std::move(c));
    sets[m.name] = *reg;
  }
  auto t = gateway::make_route_tools(cfg->mcp_endpoint_tools, sets);
  if (!t) return std::move(t).error();
  return std::shared_ptr<const tools::Registry>((*t)->registry);
}

int run_mcp_serve(const McpServeOptions& o) {
  signal(SIGPIPE, SIG_IGN);  // a client that went away is a write error, not our death
  std::shared_ptr<const tools::Registry> shared;
  std::vector<std::shared_ptr<mcp::Client>> clients;
  if (!o.config.empty()) {
    auto r = config_tools(o.config, clients);
    if (!r) {
      std::cerr << "toolwire mcp serve: " << r.error().message << "\n";
      return kExitUsage;
    }
    shared = *r;
  } else {
    auto reg = std::make_shared<tools::Registry>();
    tools::BuiltinOptions b;
    b.workspace = o.workspace;
    b.enabled = {"read", "list", "glob", "grep"};
    if (Status st = tools::register_builtin_tools(*reg, b); !st) {
      std::cerr << "toolwire mcp serve: " << st.error().to_string() << "\n";
      return kExitUsage;
    }
    shared = std::move(reg);
  }
  const tools::Registry& reg = *shared;
  mcp::ServerOptions so;
  so.version = TOOLWIRE_VERSION;
  so.page_size = static_cast<size_t>(o.page_size);
  so.tool_timeout = std::chrono::seconds(o.tool_timeout_s);
  if (o.config.empty()) so.instructions = "Read-only file tools for one workspace directory.";
  bool out_ok = true;
  mcp::Server server(reg, so, [&out_ok](std::string frame) {
    frame.push_back('\n');
    if (out_ok && !write_all(STDOUT_FILENO, frame)) out_ok = false;
  });
  size_t limit = static_cast<size_t>(o.max_message_kb) * 1024;
  mcp::LineReader lines(limit);
  char buf[65536];
  for (;;) {
    ssize_t n = ::read(STDIN_FILENO, buf, sizeof buf);
    if (n < 0 && errno == EINTR) continue;
    if (n <= 0) break;  // the client closed our stdin: the spec's shutdown
    lines.feed(
        std::string_view(buf, static_cast<size_t>(n)),
        [&](std::string_view frame) { server.handle_frame(frame); },
        [&] { server.handle_oversized(limit); });
  }
  server.shutdown();
  for (auto& c : clients) c->close();
  return kExitOk;
}

}  // namespace

void add_mcp_command(CLI::App& app) {
  CLI::App* mcp =
      app.add_subcommand("mcp", "Model Context Protocol: serve toolwire's tools over MCP");
  mcp->require_subcommand(1);
  auto o = std::make_shared<McpServeOptions>();
  CLI::App* serve = mcp->add_subcommand("serve", "Serve tools over MCP on stdin/stdout");
  serve->add_option(
      "--workspace", o->workspace,
      "Directory the read-only file tools are confined to (default: current directory)");
  serve->add_option("--config", o->config,
                    "A gateway config (YAML): serve the tools of its mcp_endpoint section, "
                    "including those of the mcp_servers it names");
  serve->add_option("--page-size", o->page_size, "Tools per tools/list page (default 100)")
      ->check(int_between(1, 10000));
  serve->add_option("--tool-timeout", o->tool_timeout_s, "Seconds per tool call (default 60)")
      ->check(int_between(1, 86'400));
  serve
      ->add_option("--max-message-kb", o->max_message_kb,
                   "Largest accepted message in KiB (default 16384)")
      ->check(int_between(1, 1 << 20));
  serve->callback([o] { std::exit(run_mcp_serve(*o)); });
}

}  // namespace toolwire::cli
