// toolwire/mcp/tool_bridge.h — an MCP server's tools in a tools::Registry.
//
//   mcp::ServerTools fs{client, {.prefix = "fs", .allow = {"read_file", "list_directory"}}};
//   auto report = fs.sync(registry);   // lists the tools, adds fs__read_file, ...
//   // later, after client's on_tools_changed:  fs.sync(registry) adds/removes the difference
//
// Each tool is registered as `<prefix>__<name>` (no prefix: the server's name
// as is) with the server's inputSchema, so arguments are validated by toolwire
// before they travel. Its handler is asynchronous: tools/call with the call's
// deadline and cancellation token (a cancelled or timed-out call sends
// notifications/cancelled), the result mapped by content.h. A server crash
// becomes an error result naming how it ended; the next call restarts it.
//
// allow/deny are lists of the server's tool names; `*` at the end of an entry
// matches any rest ("read_*"). Deny wins. Tools whose name is not a valid
// toolwire name, or whose schema toolwire cannot compile, are skipped and
// reported, not fatal.
//
// sync() changes the registry, which is setup-time only (registry.h): call it
// when no agent turn runs, e.g. between turns after tools_changed().
#pragma once

#include <atomic>
#include <memory>
#include <string>
#include <vector>

#include "toolwire/core/result.h"
#include "toolwire/mcp/client.h"
#include "toolwire/tools/registry.h"

namespace toolwire::mcp {

struct ServerToolsOptions {
  std::string prefix;              // "fs" → fs__read_file; empty: no prefix
  std::vector<std::string> allow;  // empty: every tool
  std::vector<std::string> deny;
  std::optional<std::chrono::milliseconds> timeout;  // per call; else the executor's default
};

struct SyncReport {
  std::vector<std::string> added;    // registry names
  std::vector<std::string> removed;  // registry names
  std::vector<std::string> skipped;  // "name: why"
};

class ServerTools {
 public:
  ServerTools(std::shared_ptr<Client> client, ServerToolsOptions options)
      : client_(std::move(client)), opts_(std::move(options)) {}

  // Lists the server's tools when none were listed yet (or `relist`), then
  // makes the registry hold exactly the allowed ones.
  Result<SyncReport> sync(tools::Registry& registry, bool relist = false);

  // True when the client's tool list changed since the last sync().
  bool tools_changed() const { return client_->tools_generation() != synced_generation_; }

  std::string registry_name(const std::string& mcp_name) const;
  bool allowed(const std::string& mcp_name) const;
  const std::vector<std::string>& registered() const { return registered_; }
  const std::shared_ptr<Client>& client() const { return client_; }

 private:
  std::shared_ptr<Client> client_;
  ServerToolsOptions opts_;
  std::vector<std::string> registered_;  // registry names we added
  uint64_t synced_generation_ = 0;
};

// The ToolSpec for one MCP tool (exposed for tests and custom registries).
tools::ToolSpec make_tool_spec(std::shared_ptr<Client> client, const McpTool& tool,
                               std::string registry_name,
                               std::optional<std::chrono::milliseconds> timeout = std::nullopt);

}  // namespace toolwire::mcp
