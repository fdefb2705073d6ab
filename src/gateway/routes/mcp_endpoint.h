// POST/DELETE /mcp: MCP's Streamable HTTP transport, server side, over an
// mcp::Server per session (docs/mcp.md, "On the gateway").
//
// POST carries one JSON-RPC message (a batch in a 2025-03-26 session).
// `initialize` opens a session (a new mcp::Server) and its answer carries
// `Mcp-Session-Id`; every later request must send that header (missing: 400,
// unknown or ended: 404). A request is answered as one application/json body,
// or as an SSE stream when the client accepts one and the call sends progress
// before its answer; notifications and responses get 202. GET opens the
// session's stream of server messages (notifications/tools/list_changed when
// set_tools() changes the tools while serving). DELETE ends a session.
// `MCP-Protocol-Version`, when sent, must be one
// toolwire speaks and the session's (else 400). Tool calls run on one
// tools::Executor shared by all sessions (its own worker threads, never the
// io_context's); an answer is posted back to the exchange's thread. A client
// that disconnects before its answer cancels the call.
#pragma once

#include <memory>
#include <mutex>
#include <string>
#include <unordered_map>
#include <vector>

#include "gateway/http/exchange.h"
#include "toolwire/gateway/gateway.h"
#include "toolwire/mcp/jsonrpc.h"

namespace toolwire::tools {
class Executor;
}
namespace toolwire::gateway {
class GatewayKey;
}

namespace toolwire::gateway::routes {

struct RouteContext;

class McpEndpoint {
 public:
  McpEndpoint(RouteContext& ctx);
  ~McpEndpoint();
  void set_tools(std::shared_ptr<const tools::Registry> registry);
  // After auth: the whole route (origin check, method, session). `owner`:
  // the gateway key the request presented (null: the gateway takes none); a
  // session is found only by the key that opened it — to any other it is
  // unknown (404).
  void handle(const std::shared_ptr<http::Exchange>& ex, http::Request&& req,
              const GatewayKey* owner = nullptr);
  // Ends every session (running calls are cancelled; waiting POSTs get an
  // error). join() then waits for tool handlers still running.
  void shutdown();
  void join();
  size_t sessions() const;

  struct Session;

 private:
  void route(const std::shared_ptr<http::Exchange>& ex, http::Request&& req,
             const GatewayKey* owner);
  void post(const std::shared_ptr<http::Exchange>& ex, http::Request&& req,
            const GatewayKey* owner);
  // One request (or notification) of a session, answered when the server does.
  void answer(const std::shared_ptr<http::Exchange>& ex, const std::shared_ptr<Session>& s,
              const mcp::Message& m, const http::Headers& headers, bool sse);
  void erase(const std::shared_ptr<http::Exchange>& ex, const http::Request& req,
             const GatewayKey* owner);
  void listen(const std::shared_ptr<http::Exchange>& ex, const http::Request& req,
              const GatewayKey* owner);
  void post_batch(const std::shared_ptr<http::Exchange>& ex, const std::shared_ptr<Session>& s,
                  const std::string& body, const mcp::ParsedFrame& f, bool sse);
  std::shared_ptr<Session> find_session(std::string_view sid, const GatewayKey* owner);
  // `id` and `version`: a session another replica opened (stored in Redis).
  std::shared_ptr<Session> open_session(std::string& error, const GatewayKey* owner,
                                        const std::string* id = nullptr,
                                        const std::string* version = nullptr);
  bool origin_allowed(std::string_view origin) const;

  RouteContext& ctx_;
  const McpEndpointOptions& opts_;
  std::shared_ptr<const tools::Registry> registry_;
  std::shared_ptr<tools::Executor> executor_;
  // Tools replaced while serving (set_tools again), kept for calls still on them.
  std::vector<std::shared_ptr<const tools::Registry>> retired_registries_;
  std::vector<std::shared_ptr<tools::Executor>> retired_executors_;
  mutable std::mutex mu_;
  std::unordered_map<std::string, std::shared_ptr<Session>> sessions_;
  bool stopped_ = false;
};

}  // namespace toolwire::gateway::routes
