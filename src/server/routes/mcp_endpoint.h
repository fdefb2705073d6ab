// POST/DELETE /mcp: MCP's Streamable HTTP transport, server side, over an
// mcp::Server per session (docs/mcp.md, "On the gateway").
//
// POST carries one JSON-RPC message. `initialize` opens a session (a new
// mcp::Server) and its answer carries `Mcp-Session-Id`; every later request
// must send that header (missing: 400, unknown or ended: 404). A request is
// answered as one application/json body; notifications and responses get 202.
// DELETE ends a session; GET (the server-to-client stream) is 405, since this
// server sends nothing unasked. `MCP-Protocol-Version`, when sent, must be one
// toolwire speaks and the session's (else 400). Tool calls run on one
// tools::Executor shared by all sessions (its own worker threads, never the
// io_context's); an answer is posted back to the exchange's strand. A client
// that disconnects before its answer cancels the call.
#pragma once

#include <memory>
#include <mutex>
#include <string>
#include <unordered_map>

#include "server/http/exchange.h"
#include "toolwire/server/gateway.h"

namespace toolwire::tools {
class Executor;
}

namespace toolwire::server::routes {

struct RouteContext;

class McpEndpoint {
 public:
  McpEndpoint(RouteContext& ctx);
  ~McpEndpoint();
  void set_tools(std::shared_ptr<const tools::Registry> registry);
  // After auth: the whole route (origin check, method, session).
  void handle(const std::shared_ptr<http::Exchange>& ex, http::Request&& req);
  // Ends every session (running calls are cancelled; waiting POSTs get an
  // error). join() then waits for tool handlers still running.
  void shutdown();
  void join();
  size_t sessions() const;

  struct Session;

 private:
  void post(const std::shared_ptr<http::Exchange>& ex, http::Request&& req);
  void erase(const std::shared_ptr<http::Exchange>& ex, const http::Request& req);
  std::shared_ptr<Session> open_session(std::string& error);
  bool origin_allowed(std::string_view origin) const;

  RouteContext& ctx_;
  const McpEndpointOptions& opts_;
  std::shared_ptr<const tools::Registry> registry_;
  std::shared_ptr<tools::Executor> executor_;
  mutable std::mutex mu_;
  std::unordered_map<std::string, std::shared_ptr<Session>> sessions_;
  bool stopped_ = false;
};

}  // namespace toolwire::server::routes
