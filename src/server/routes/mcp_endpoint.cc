// POST/DELETE /mcp (see mcp_endpoint.h).
#include "server/routes/mcp_endpoint.h"

#include <openssl/rand.h>

#include <algorithm>
#include <cstdlib>
#include <functional>
#include <nlohmann/json.hpp>

#include "server/routes/context.h"
#include "toolwire/mcp/client.h"
#include "toolwire/mcp/jsonrpc.h"
#include "toolwire/mcp/server.h"
#include "toolwire/tools/executor.h"

namespace toolwire::server::routes {
namespace {

using boost::beast::http::verb;
using nlohmann::json;

// An answer for one waiting POST: status and body.
using Answer = std::function<void(int status, std::string body)>;

std::string random_hex(size_t bytes) {
  std::string b(bytes, '\0');
  if (RAND_bytes(reinterpret_cast<unsigned char*>(b.data()), static_cast<int>(bytes)) != 1)
    std::abort();
  static const char* hex = "0123456789abcdef";
  std::string out;
  for (unsigned char c : b) {
    out.push_back(hex[c >> 4]);
    out.push_back(hex[c & 15]);
  }
  return out;
}

std::string rpc_error_body(const json& id, int code, const std::string& message) {
  return mcp::serialize(mcp::Message::failure(id, code, message));
}

void send_rpc_error(http::Exchange& ex, int status, int code, const std::string& message,
                    const http::Headers& headers = {}) {
  ex.respond(status, "application/json", rpc_error_body(nullptr, code, message), headers);
}

bool speaks(std::string_view version) {
  const auto& v = mcp::supported_protocol_versions();
  return std::find(v.begin(), v.end(), version) != v.end();
}

// http(s)://localhost, 127.0.0.1 or [::1], with any port.
bool local_origin(std::string_view o) {
  for (std::string_view scheme : {"http://", "https://"}) {
    if (!o.starts_with(scheme)) continue;
    std::string_view host = o.substr(scheme.size());
    for (std::string_view h : {"localhost", "127.0.0.1", "[::1]"}) {
      if (!host.starts_with(h)) continue;
      std::string_view rest = host.substr(h.size());
      if (rest.empty()) return true;
      if (rest.front() != ':' || rest.size() == 1) return false;
      return rest.substr(1).find_first_not_of("0123456789") == std::string_view::npos;
    }
  }
  return false;
}

}  // namespace

struct McpEndpoint::Session {
  std::string id;
  std::unique_ptr<mcp::Server> server;
  std::mutex mu;
  std::unordered_map<std::string, Answer> waiting;  // by request id (JSON text)
  http::Clock::time_point last_used;
  bool ended = false;

  // The server's writer: the answer goes to the POST that asked for it.
  void deliver(std::string frame) {
    std::string key;
    try {
      json j = json::parse(frame);
      if (auto it = j.find("id"); it != j.end()) key = it->dump();
    } catch (const json::exception&) {
      return;  // our own serializer wrote it; cannot happen
    }
    Answer a;
    {
      std::lock_guard lock(mu);
      auto it = waiting.find(key);
      if (it == waiting.end()) return;  // its client went away
      a = std::move(it->second);
      waiting.erase(it);
    }
    a(200, std::move(frame));
  }

  // Registers a POST waiting for request `key`.
  enum class Expect { ok, id_in_use, ended };
  Expect expect(const std::string& key, Answer a) {
    std::lock_guard lock(mu);
    if (ended) return Expect::ended;
    last_used = http::Clock::now();
    return waiting.emplace(key, std::move(a)).second ? Expect::ok : Expect::id_in_use;
  }

  // The client of `key` went away: forget it and cancel its call.
  void abandon(const std::string& key, const json& id) {
    {
      std::lock_guard lock(mu);
      if (!waiting.erase(key) || ended) return;
    }
    server->handle_message(mcp::Message::notification(
        "notifications/cancelled", {{"requestId", id}, {"reason", "client disconnected"}}));
  }

  bool idle_since(http::Clock::time_point t) {
    std::lock_guard lock(mu);
    return waiting.empty() && last_used < t;
  }

  // Cancels running calls; POSTs still waiting get an error answer.
  void end(const std::string& why) {
    std::unordered_map<std::string, Answer> left;
    {
      std::lock_guard lock(mu);
      if (ended) return;
      ended = true;
      left.swap(waiting);
    }
    server->shutdown();
    for (auto& [key, a] : left)
      a(200, rpc_error_body(json::parse(key), mcp::rpc_error::internal_error, why));
  }
};

McpEndpoint::McpEndpoint(RouteContext& ctx) : ctx_(ctx), opts_(ctx.options.mcp) {}

McpEndpoint::~McpEndpoint() {
  shutdown();
  join();
}

void McpEndpoint::set_tools(std::shared_ptr<const tools::Registry> registry) {
  std::lock_guard lock(mu_);
  registry_ = std::move(registry);
  executor_.reset();
  if (!registry_) return;
  // Tool handlers may block (files, processes, MCP servers): they get threads
  // of their own, as many as the gateway's tool pool, never the io_context's.
  size_t workers = static_cast<size_t>(std::max(1, ctx_.options.tool_threads));
  executor_ = std::make_shared<tools::Executor>(
      *registry_, tools::ExecutorOptions{workers, opts_.tool_timeout});
}

size_t McpEndpoint::sessions() const {
  std::lock_guard lock(mu_);
  return sessions_.size();
}

void McpEndpoint::shutdown() {
  std::unordered_map<std::string, std::shared_ptr<Session>> all;
  {
    std::lock_guard lock(mu_);
    stopped_ = true;
    all.swap(sessions_);
  }
  for (auto& [id, s] : all) s->end("the gateway is shutting down");
}

void McpEndpoint::join() {
  std::shared_ptr<tools::Executor> ex;
  {
    std::lock_guard lock(mu_);
    ex = std::move(executor_);
  }
  ex.reset();  // waits for handlers still running (their calls were cancelled)
}

bool McpEndpoint::origin_allowed(std::string_view origin) const {
  if (origin.empty()) return true;  // not a browser
  if (opts_.allowed_origins.empty()) return local_origin(origin);
  return std::find(opts_.allowed_origins.begin(), opts_.allowed_origins.end(), origin) !=
         opts_.allowed_origins.end();
}

void McpEndpoint::handle(const std::shared_ptr<http::Exchange>& ex, http::Request&& req) {
  bool available;
  {
    std::lock_guard lock(mu_);
    available = opts_.enabled && registry_ && !stopped_;
  }
  if (!available)
    return send_rpc_error(*ex, 404, mcp::rpc_error::invalid_request,
                          "this gateway serves no MCP endpoint");
  // DNS rebinding: a page may not talk to a local gateway from elsewhere.
  if (!origin_allowed(req.header("origin")))
    return send_rpc_error(*ex, 403, mcp::rpc_error::invalid_request,
                          "Origin '" + std::string(req.header("origin")) + "' is not allowed");
  if (req.method == verb::post) return post(ex, std::move(req));
  if (req.method == verb::delete_) return erase(ex, req);
  send_rpc_error(*ex, 405, mcp::rpc_error::invalid_request,
                 req.method_text +
                     " is not allowed on /mcp (POST, DELETE; this server opens no "
                     "server-to-client stream)",
                 {{"allow", "POST, DELETE"}});
}

std::shared_ptr<McpEndpoint::Session> McpEndpoint::open_session(std::string& error) {
  auto now = http::Clock::now();
  std::vector<std::shared_ptr<Session>> evicted;
  auto s = std::make_shared<Session>();
  {
    std::lock_guard lock(mu_);
    if (stopped_ || !executor_) {
      error = "the gateway is shutting down";
      return nullptr;
    }
    if (sessions_.size() >= opts_.max_sessions) {
      for (auto it = sessions_.begin(); it != sessions_.end();) {
        if (it->second->idle_since(now - opts_.session_idle)) {
          evicted.push_back(std::move(it->second));
          it = sessions_.erase(it);
        } else {
          ++it;
        }
      }
    }
    if (sessions_.size() >= opts_.max_sessions) {
      error = "too many MCP sessions (" + std::to_string(opts_.max_sessions) + ")";
      return nullptr;
    }
    s->id = random_hex(16);
    s->last_used = now;
    mcp::ServerOptions so;
    so.name = "toolwire-gateway";
    so.page_size = opts_.page_size;
    so.tool_timeout = opts_.tool_timeout;
    so.executor = executor_;
    std::weak_ptr<Session> weak = s;
    s->server = std::make_unique<mcp::Server>(*registry_, so, [weak](std::string frame) {
      if (auto self = weak.lock()) self->deliver(std::move(frame));
    });
    sessions_.emplace(s->id, s);
  }
  for (auto& e : evicted) e->end("session evicted");
  return s;
}

void McpEndpoint::post(const std::shared_ptr<http::Exchange>& ex, http::Request&& req) {
  std::string_view version = req.header("mcp-protocol-version");
  if (!version.empty() && !speaks(version))
    return send_rpc_error(*ex, 400, mcp::rpc_error::invalid_request,
                          "unsupported MCP-Protocol-Version '" + std::string(version) + "'");
  mcp::ParsedFrame f = mcp::parse_frame(req.body);
  if (f.batch)
    return send_rpc_error(*ex, 400, mcp::rpc_error::invalid_request,
                          "Invalid Request: JSON-RPC batches are not supported by MCP " +
                              mcp::supported_protocol_versions().front());
  if (!f.errors.empty())
    return ex->respond(400, "application/json", mcp::serialize(f.errors.front()));
  if (f.messages.size() != 1)
    return send_rpc_error(*ex, 400, mcp::rpc_error::invalid_request, "Invalid Request");
  const mcp::Message& m = f.messages.front();
  std::string_view sid = req.header("mcp-session-id");
  std::shared_ptr<Session> s;
  http::Headers headers;
  if (m.is_request() && m.method == "initialize") {
    if (!sid.empty())
      return send_rpc_error(*ex, 400, mcp::rpc_error::invalid_request,
                            "initialize opens a new session: send it without Mcp-Session-Id");
    std::string error;
    s = open_session(error);
    if (!s) return send_rpc_error(*ex, 503, mcp::rpc_error::internal_error, error);
    headers.emplace_back("mcp-session-id", s->id);
  } else {
    if (sid.empty())
      return send_rpc_error(*ex, 400, mcp::rpc_error::invalid_request,
                            "Mcp-Session-Id is required (send initialize first)");
    {
      std::lock_guard lock(mu_);
      auto it = sessions_.find(std::string(sid));
      if (it != sessions_.end()) s = it->second;
    }
    if (!s)
      return send_rpc_error(*ex, 404, mcp::rpc_error::invalid_request,
                            "unknown or ended MCP session (initialize again)");
    std::string negotiated = s->server->protocol_version();
    if (!version.empty() && !negotiated.empty() && version != negotiated)
      return send_rpc_error(*ex, 400, mcp::rpc_error::invalid_request,
                            "MCP-Protocol-Version '" + std::string(version) +
                                "' is not this session's (" + negotiated + ")");
  }
  if (!m.is_request()) {
    s->server->handle_message(m);
    return ex->respond(202, "application/json", "");
  }
  std::string key = m.id.dump();
  auto expected = s->expect(key, [ex, headers](int status, std::string body) {
    ex->dispatch([ex, status, headers, body = std::move(body)] {
      ex->respond(status, "application/json", body, headers);
    });
  });
  if (expected == Session::Expect::ended)
    return send_rpc_error(*ex, 404, mcp::rpc_error::invalid_request,
                          "unknown or ended MCP session (initialize again)");
  if (expected == Session::Expect::id_in_use)
    return send_rpc_error(*ex, 400, mcp::rpc_error::invalid_request,
                          "Invalid Request: id " + key + " is already in use");
  std::weak_ptr<Session> weak = s;
  ex->on_close([weak, key, id = m.id] {
    if (auto self = weak.lock()) self->abandon(key, id);
  });
  s->server->handle_message(m);
}

void McpEndpoint::erase(const std::shared_ptr<http::Exchange>& ex, const http::Request& req) {
  std::string sid(req.header("mcp-session-id"));
  if (sid.empty())
    return send_rpc_error(*ex, 400, mcp::rpc_error::invalid_request, "Mcp-Session-Id is required");
  std::shared_ptr<Session> s;
  {
    std::lock_guard lock(mu_);
    auto it = sessions_.find(sid);
    if (it != sessions_.end()) {
      s = std::move(it->second);
      sessions_.erase(it);
    }
  }
  if (!s)
    return send_rpc_error(*ex, 404, mcp::rpc_error::invalid_request,
                          "unknown or ended MCP session");
  s->end("the session was ended");
  ex->respond(200, "application/json", "");
}

}  // namespace toolwire::server::routes
