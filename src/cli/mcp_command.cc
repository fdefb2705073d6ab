// `toolwire mcp serve`: the registry's tools over MCP on stdin/stdout
// (newline-delimited JSON-RPC). With --workspace alone it serves the
// read-only built-ins (read, list, glob, grep) confined to that directory.
// Logs go to stderr; stdout carries only protocol frames.
#include <unistd.h>

#include <cerrno>
#include <csignal>
#include <cstdio>
#include <iostream>
#include <memory>
#include <string>

#include "cli/commands.h"
#include "toolwire/mcp/server.h"
#include "toolwire/tools/builtin.h"

namespace toolwire::cli {
namespace {

struct McpServeOptions {
  std::string workspace = ".";
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

int run_mcp_serve(const McpServeOptions& o) {
  signal(SIGPIPE, SIG_IGN);  // a client that went away is a write error, not our death
  tools::Registry reg;
  tools::BuiltinOptions b;
  b.workspace = o.workspace;
  b.enabled = {"read", "list", "glob", "grep"};
  if (Status st = tools::register_builtin_tools(reg, b); !st) {
    std::cerr << "toolwire mcp serve: " << st.error().to_string() << "\n";
    return kExitUsage;
  }
  mcp::ServerOptions so;
  so.version = TOOLWIRE_VERSION;
  so.page_size = static_cast<size_t>(o.page_size);
  so.tool_timeout = std::chrono::seconds(o.tool_timeout_s);
  so.instructions = "Read-only file tools for one workspace directory.";
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
    lines.feed(std::string_view(buf, static_cast<size_t>(n)),
               [&](std::string_view frame) { server.handle_frame(frame); },
               [&] { server.handle_oversized(limit); });
  }
  server.shutdown();
  return kExitOk;
}

}  // namespace

void add_mcp_command(CLI::App& app) {
  CLI::App* mcp = app.add_subcommand("mcp", "Model Context Protocol: serve toolwire's tools over MCP");
  mcp->require_subcommand(1);
  auto o = std::make_shared<McpServeOptions>();
  CLI::App* serve = mcp->add_subcommand("serve", "Serve tools over MCP on stdin/stdout");
  serve->add_option("--workspace", o->workspace,
                    "Directory the read-only file tools are confined to (default: current directory)");
  serve->add_option("--page-size", o->page_size, "Tools per tools/list page (default 100)")
      ->check(int_between(1, 10000));
  serve->add_option("--tool-timeout", o->tool_timeout_s, "Seconds per tool call (default 60)")
      ->check(int_between(1, 86'400));
  serve->add_option("--max-message-kb", o->max_message_kb,
                    "Largest accepted message in KiB (default 16384)")
      ->check(int_between(1, 1 << 20));
  serve->callback([o] { std::exit(run_mcp_serve(*o)); });
}

}  // namespace toolwire::cli
