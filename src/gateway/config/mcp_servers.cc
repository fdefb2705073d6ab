// `mcp_servers:` → connected MCP clients and a registry of each one's tools.
#include <cstdio>

#include "toolwire/gateway/config.h"
#include "toolwire/mcp/client.h"
#include "toolwire/mcp/tool_bridge.h"

namespace toolwire::gateway {

Result<std::shared_ptr<const tools::Registry>> mcp_server_tools(
    const McpServerConfig& c, const std::shared_ptr<mcp::Client>& client,
    std::vector<std::string>* skipped) {
  mcp::ServerToolsOptions so;
  so.prefix = c.no_prefix ? "" : c.prefix.empty() ? c.name : c.prefix;
  so.allow = c.allow;
  so.deny = c.deny;
  so.timeout = c.timeout;
  mcp::ServerTools bridge(client, so);
  auto reg = std::make_shared<tools::Registry>();
  auto report = bridge.sync(*reg);
  if (!report) return std::move(report).error();
  if (skipped) *skipped = report->skipped;
  return std::shared_ptr<const tools::Registry>(std::move(reg));
}

Result<std::shared_ptr<const tools::Registry>> connect_mcp_server(
    const McpServerConfig& c, std::shared_ptr<mcp::Client>& client,
    std::function<void()> on_tools_changed) {
  mcp::ClientOptions o;
  o.name = c.name;
  if (!c.url.empty()) {
    o.http.url = c.url;
  } else {
    o.server.argv = c.argv;
    o.server.env = c.env;
    o.server.cwd = c.cwd;
  }
  o.request_timeout = c.timeout;
  // The server's stderr and log messages: the gateway's stderr, named.
  std::string name = c.name;
  o.on_log = [name](const std::string& line) {
    std::fprintf(stderr, "[mcp %s] %s\n", name.c_str(), line.c_str());
  };
  o.on_tools_changed = std::move(on_tools_changed);
  client = mcp::Client::create(std::move(o));
  if (Status st = client->connect(); !st) return st.error();
  if (auto listed = client->list_tools(); !listed) return std::move(listed).error();
  std::vector<std::string> skipped;
  auto reg = mcp_server_tools(c, client, &skipped);
  if (!reg) return reg;
  for (const auto& s : skipped)
    std::fprintf(stderr, "[mcp %s] skipped tool %s\n", c.name.c_str(), s.c_str());
  return reg;
}

}  // namespace toolwire::gateway
