// POST/DELETE /mcp (see mcp_endpoint.h).
#include "gateway/routes/mcp_endpoint.h"

#include <algorithm>
#include <cstdlib>
#include <functional>
#include <nlohmann/json.hpp>

#include "gateway/auth/random_hex.h"
#include "gateway/http/origin.h"
#include "gateway/routes/context.h"
#include "toolwire/mcp/client.h"
#include "toolwire/mcp/jsonrpc.h"
#include "toolwire/mcp/server.h"
#include "toolwire/tools/executor.h"

namespace toolwire::gateway::routes {
namespace {

using boost::beast::http::verb;
using nlohmann::json;

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

// One SSE event carrying a JSON-RPC message.
std::string sse_event(std::string_view frame) {
  std::string e = "event: message\ndata: ";
  e.append(frame);
  e.append("\n\n");
  return e;
}

bool accepts_sse(const http::Request& req) {
  return req.header("accept").find("text/event-stream") != std::string_view::npos;
}

}  // namespace

struct McpEndpoint::Session {
  // A POST waiting for its answer.
  struct Waiting {
    std::shared_ptr<http::Exchange> ex;
    http::Headers headers;
    bool sse = false;  // the client accepts text/event-stream
  };

  std::string id;
  const GatewayKey* owner = nullptr;  // the gateway key that opened it (null: no keys)
  std::unique_ptr<mcp::Server> server;
  std::mutex mu;
  std::unordered_map<std::string, Waiting> waiting;  // by request id (JSON text); "batch:ID"
  std::shared_ptr<http::Exchange> listener;          // the GET stream, when open
  http::Clock::time_point last_used;
  http::Clock::time_point touched;  // its TTL in Redis last renewed
  bool ended = false;

  // The answer (JSON, or the last event of an SSE answer already begun).
  static void answer(const Waiting& w, int status, std::string body) {
    w.ex->dispatch([w, status, body = std::move(body)] {
      if (w.ex->streaming()) {
        w.ex->write(sse_event(body));
        w.ex->end_stream();
      } else {
        w.ex->respond(status, "application/json", body, w.headers);
      }
    });
  }

  // The server's writer: an answer goes to the POST that asked for it; a
  // message that answers nothing (notifications/tools/list_changed) to the
  // GET stream, or nowhere when none is open.
  void deliver(std::string frame) {
    std::string key;
    bool notification = false;
    try {
      json j = json::parse(frame);
      if (j.is_array()) {  // a batch's answers: its first request's id first
        if (!j.empty() && j[0].is_object() && j[0].contains("id"))
          key = "batch:" + j[0]["id"].dump();
      } else if (auto it = j.find("id"); it != j.end()) {
        key = it->dump();
      } else {
        notification = true;
      }
    } catch (const json::exception&) {
      return;  // our own serializer wrote it; cannot happen
    }
    if (notification) return to_listener(std::move(frame));
    Waiting w;
    {
      std::lock_guard lock(mu);
      auto it = waiting.find(key);
      if (it == waiting.end()) return;  // its client went away
      w = std::move(it->second);
      waiting.erase(it);
    }
    answer(w, 200, std::move(frame));
  }

  // A notification about request `key` (its progress): on that POST's answer,
  // which becomes an SSE stream, when the client accepts one.
  void deliver_related(std::string frame, const std::string& key) {
    Waiting w;
    {
      std::lock_guard lock(mu);
      auto it = waiting.find(key);
      if (it == waiting.end() || !it->second.sse) return;
      w = it->second;
    }
    w.ex->dispatch([w, frame = std::move(frame)] {
      if (w.ex->ended()) return;
      if (!w.ex->streaming()) {
        http::Headers h = w.headers;
        h.emplace_back("cache-control", "no-cache");
        w.ex->begin_stream(200, "text/event-stream", h);
      }
      w.ex->write(sse_event(frame));
    });
  }

  void to_listener(std::string frame) {
    std::shared_ptr<http::Exchange> ex;
    {
      std::lock_guard lock(mu);
      ex = listener;
    }
    if (!ex) return;
    ex->dispatch([ex, frame = std::move(frame)] {
      if (!ex->ended()) ex->write(sse_event(frame));
    });
  }

  // Registers a POST waiting for request `key`.
  enum class Expect { ok, id_in_use, ended };
  Expect expect(const std::string& key, Waiting w) {
    std::lock_guard lock(mu);
    if (ended) return Expect::ended;
    last_used = http::Clock::now();
    return waiting.emplace(key, std::move(w)).second ? Expect::ok : Expect::id_in_use;
  }

  // The client of `key` went away: forget it and cancel its call.
  void abandon(const std::string& key, const json& id) {
    {
      std::lock_guard lock(mu);
      if (!waiting.erase(key) || ended) return;
    }
    if (id.is_null()) return;  // a batch: its calls finish unanswered
    server->handle_message(mcp::Message::notification(
        "notifications/cancelled", {{"requestId", id}, {"reason", "client disconnected"}}));
  }

  bool idle_since(http::Clock::time_point t) {
    std::lock_guard lock(mu);
    return waiting.empty() && !listener && last_used < t;
  }

  // Cancels running calls; POSTs still waiting get an error answer; the GET
  // stream ends.
  void end(const std::string& why) {
    std::unordered_map<std::string, Waiting> left;
    std::shared_ptr<http::Exchange> get;
    {
      std::lock_guard lock(mu);
      if (ended) return;
      ended = true;
      left.swap(waiting);
      get = std::move(listener);
    }
    server->shutdown();
    for (auto& [key, w] : left) {
      json id = key.starts_with("batch:") ? json(nullptr) : json::parse(key);
      answer(w, 200, rpc_error_body(id, mcp::rpc_error::internal_error, why));
    }
    if (get)
      get->dispatch([get] {
        if (!get->ended()) get->end_stream();
      });
  }
};

McpEndpoint::McpEndpoint(RouteContext& ctx) : ctx_(ctx), opts_(ctx.options.mcp) {}

McpEndpoint::~McpEndpoint() {
  shutdown();
  join();
}

void McpEndpoint::set_tools(std::shared_ptr<const tools::Registry> registry) {
  std::vector<std::shared_ptr<Session>> live;
  std::shared_ptr<const tools::Registry> reg;
  std::shared_ptr<tools::Executor> ex;
  {
    std::lock_guard lock(mu_);
    // Calls running on the old tools finish there: both stay until join().
    if (registry_) retired_registries_.push_back(std::move(registry_));
    if (executor_) retired_executors_.push_back(std::move(executor_));
    registry_ = std::move(registry);
    if (!registry_) return;
    // Tool handlers may block (files, processes, MCP servers): they get threads
    // of their own, as many as the gateway's tool pool, never the io_context's.
    size_t workers = static_cast<size_t>(std::max(1, ctx_.options.tool_threads));
    executor_ = std::make_shared<tools::Executor>(
        *registry_, tools::ExecutorOptions{workers, opts_.tool_timeout});
    reg = registry_;
    ex = executor_;
    for (auto& [id, s] : sessions_) live.push_back(s);
  }
  // Open sessions serve the new tools and hear notifications/tools/list_changed.
  for (auto& s : live) s->server->replace_tools(*reg, ex);
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
  std::vector<std::shared_ptr<tools::Executor>> all;
  {
    std::lock_guard lock(mu_);
    all.swap(retired_executors_);
    if (executor_) all.push_back(std::move(executor_));
  }
  all.clear();  // waits for handlers still running (their calls were cancelled)
}

bool McpEndpoint::origin_allowed(std::string_view origin) const {
  return http::origin_allowed(origin, opts_.allowed_origins);
}

namespace {

// What a session in Redis says about its key: a hash of the key's hash.
std::string mcp_key_id(const GatewayKey* key) {
  return key ? sha256_hex(key->config().sha256_hex) : std::string();
}

// The version mcp::Server::initialize agrees on: the client's when spoken,
// else the latest ("" for a malformed initialize, answered with an error).
std::string negotiated_version(const mcp::Message& m) {
  if (!m.params.is_object() || !m.params.contains("protocolVersion") ||
      !m.params["protocolVersion"].is_string())
    return "";
  std::string asked = m.params["protocolVersion"].get<std::string>();
  const auto& ours = mcp::supported_protocol_versions();
  for (const auto& v : ours)
    if (v == asked) return v;
  return ours.front();
}

}  // namespace

void McpEndpoint::handle(const std::shared_ptr<http::Exchange>& ex, http::Request&& req,
                         const GatewayKey* owner) {
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
  std::string sid(req.header("mcp-session-id"));
  if (ctx_.shared && !sid.empty() && !find_session(sid, owner)) {
    // Perhaps a session another replica opened (docs/deploy.md).
    auto held = std::make_shared<http::Request>(std::move(req));
    ctx_.shared->fetch_mcp_session(
        sid, [this, ex, held, sid,
              owner](Result<std::optional<shared_state::SharedState::McpSession>> r) {
          ex->dispatch([this, ex, held, sid, owner, r = std::move(r)]() mutable {
            if (!r)
              return send_rpc_error(
                  *ex, 503, mcp::rpc_error::internal_error,
                  "the shared MCP session store (Redis) is unavailable: " + r.error().message);
            if (*r && (*r)->key == mcp_key_id(owner)) {
              std::string error;
              open_session(error, owner, &sid, &(*r)->version);
            }
            route(ex, std::move(*held), owner);
          });
        });
    return;
  }
  route(ex, std::move(req), owner);
}

void McpEndpoint::route(const std::shared_ptr<http::Exchange>& ex, http::Request&& req,
                        const GatewayKey* owner) {
  if (req.method == verb::post) return post(ex, std::move(req), owner);
  if (req.method == verb::delete_) return erase(ex, req, owner);
  if (req.method == verb::get) return listen(ex, req, owner);
  send_rpc_error(*ex, 405, mcp::rpc_error::invalid_request,
                 req.method_text + " is not allowed on /mcp (POST, GET, DELETE)",
                 {{"allow", "POST, GET, DELETE"}});
}

// Another key's session is, to this key, one that does not exist (the same
// 404 as an unknown id).
std::shared_ptr<McpEndpoint::Session> McpEndpoint::find_session(std::string_view sid,
                                                                const GatewayKey* owner) {
  std::lock_guard lock(mu_);
  auto it = sessions_.find(std::string(sid));
  if (it == sessions_.end() || it->second->owner != owner) return nullptr;
  return it->second;
}

// GET /mcp: the session's stream of server messages that answer no request
// (notifications/tools/list_changed). One per session; no event IDs, so a
// client cannot resume it (Last-Event-ID is ignored: nothing is replayed).
void McpEndpoint::listen(const std::shared_ptr<http::Exchange>& ex, const http::Request& req,
                         const GatewayKey* owner) {
  if (!accepts_sse(req))
    return send_rpc_error(*ex, 406, mcp::rpc_error::invalid_request,
                          "GET /mcp opens an SSE stream: Accept must include text/event-stream");
  std::string_view sid = req.header("mcp-session-id");
  if (sid.empty())
    return send_rpc_error(*ex, 400, mcp::rpc_error::invalid_request,
                          "Mcp-Session-Id is required (send initialize first)");
  std::shared_ptr<Session> s = find_session(sid, owner);
  if (!s)
    return send_rpc_error(*ex, 404, mcp::rpc_error::invalid_request,
                          "unknown or ended MCP session (initialize again)");
  {
    std::lock_guard lock(s->mu);
    if (s->ended)
      return send_rpc_error(*ex, 404, mcp::rpc_error::invalid_request,
                            "unknown or ended MCP session (initialize again)");
    if (s->listener && !s->listener->closed())
      return send_rpc_error(*ex, 409, mcp::rpc_error::invalid_request,
                            "this session's GET stream is already open");
    s->listener = ex;
    s->last_used = http::Clock::now();
  }
  std::weak_ptr<Session> weak = s;
  ex->on_close([weak, raw = ex.get()] {  // not `ex`: the exchange would own itself
    if (auto self = weak.lock()) {
      std::lock_guard lock(self->mu);
      if (self->listener.get() == raw) self->listener.reset();
    }
  });
  ex->begin_stream(200, "text/event-stream", {{"cache-control", "no-cache"}});
  ex->write(": toolwire MCP stream\n\n");  // the head and a first byte go out now
}

std::shared_ptr<McpEndpoint::Session> McpEndpoint::open_session(std::string& error,
                                                                const GatewayKey* owner,
                                                                const std::string* id,
                                                                const std::string* version) {
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
    if (id) {  // another replica's session, served here from now on too
      if (auto it = sessions_.find(*id); it != sessions_.end()) return it->second;
      s->id = *id;
    } else {
      s->id = secret_hex(16);
    }
    s->owner = owner;
    s->last_used = now;
    mcp::ServerOptions so;
    so.name = "toolwire-gateway";
    so.page_size = opts_.page_size;
    so.tool_timeout = opts_.tool_timeout;
    so.executor = executor_;
    so.list_changed = true;  // set_tools() may change them while serving
    std::weak_ptr<Session> weak = s;
    s->server = std::make_unique<mcp::Server>(*registry_, so, [weak](std::string frame) {
      if (auto self = weak.lock()) self->deliver(std::move(frame));
    });
    s->server->set_related_writer([weak](std::string frame, const std::string& key) {
      if (auto self = weak.lock()) self->deliver_related(std::move(frame), key);
    });
    if (version) s->server->restore(*version);
    sessions_.emplace(s->id, s);
  }
  for (auto& e : evicted) e->end("session evicted");
  return s;
}

void McpEndpoint::post(const std::shared_ptr<http::Exchange>& ex, http::Request&& req,
                       const GatewayKey* owner) {
  std::string_view version = req.header("mcp-protocol-version");
  if (!version.empty() && !speaks(version))
    return send_rpc_error(*ex, 400, mcp::rpc_error::invalid_request,
                          "unsupported MCP-Protocol-Version '" + std::string(version) + "'");
  mcp::ParsedFrame f = mcp::parse_frame(req.body);
  if (!f.batch) {
    if (!f.errors.empty())
      return ex->respond(400, "application/json", mcp::serialize(f.errors.front()));
    if (f.messages.size() != 1)
      return send_rpc_error(*ex, 400, mcp::rpc_error::invalid_request, "Invalid Request");
  }
  const mcp::Message* first = f.messages.empty() ? nullptr : &f.messages.front();
  std::string_view sid = req.header("mcp-session-id");
  std::shared_ptr<Session> s;
  http::Headers headers;
  if (!f.batch && first->is_request() && first->method == "initialize") {
    if (!sid.empty())
      return send_rpc_error(*ex, 400, mcp::rpc_error::invalid_request,
                            "initialize opens a new session: send it without Mcp-Session-Id");
    std::string error;
    s = open_session(error, owner);
    if (!s) return send_rpc_error(*ex, 503, mcp::rpc_error::internal_error, error);
    headers.emplace_back("mcp-session-id", s->id);
    std::string version = negotiated_version(*first);
    if (ctx_.shared && !version.empty()) {
      // Another replica serves the session as soon as the client has the
      // answer: the answer waits for Redis (or its failure).
      ctx_.shared->save_mcp_session(
          s->id, {mcp_key_id(owner), version}, opts_.session_idle,
          [this, ex, s, m = *first, headers, sse = accepts_sse(req)] {
            ex->dispatch([this, ex, s, m, headers, sse] { answer(ex, s, m, headers, sse); });
          });
      return;
    }
  } else {
    if (sid.empty())
      return send_rpc_error(*ex, 400, mcp::rpc_error::invalid_request,
                            "Mcp-Session-Id is required (send initialize first)");
    s = find_session(sid, owner);
    if (!s)
      return send_rpc_error(*ex, 404, mcp::rpc_error::invalid_request,
                            "unknown or ended MCP session (initialize again)");
    // A version toolwire speaks but the session did not agree on is let
    // through: the spec refuses only invalid or unsupported ones (400 above).
    std::string negotiated = s->server->protocol_version();
    if (f.batch && !s->server->batches_allowed())
      return send_rpc_error(
          *ex, 400, mcp::rpc_error::invalid_request,
          "Invalid Request: JSON-RPC batches are not supported by MCP " +
              (negotiated.empty() ? std::string("before initialize") : negotiated));
  }
  if (ctx_.shared) {  // its TTL in Redis, renewed at most every session_idle/4
    auto now = http::Clock::now();
    bool touch;
    {
      std::lock_guard lock(s->mu);
      touch = now - s->touched > opts_.session_idle / 4;
      if (touch) s->touched = now;
    }
    if (touch) ctx_.shared->touch_mcp_session(s->id, opts_.session_idle);
  }
  if (f.batch) return post_batch(ex, s, req.body, f, accepts_sse(req));
  answer(ex, s, *first, headers, accepts_sse(req));
}

void McpEndpoint::answer(const std::shared_ptr<http::Exchange>& ex,
                         const std::shared_ptr<Session>& s, const mcp::Message& m,
                         const http::Headers& headers, bool sse) {
  if (!m.is_request()) {
    s->server->handle_message(m);
    return ex->respond(202, "application/json", "");
  }
  std::string key = m.id.dump();
  auto expected = s->expect(key, {ex, headers, sse});
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

// A batch (2025-03-26 sessions): answered as one JSON array once every
// request in it is answered; with no requests, 202 (or the errors for its
// invalid entries).
void McpEndpoint::post_batch(const std::shared_ptr<http::Exchange>& ex,
                             const std::shared_ptr<Session>& s, const std::string& body,
                             const mcp::ParsedFrame& f, bool sse) {
  std::vector<std::string> ids;
  for (const auto& m : f.messages)
    if (m.is_request()) ids.push_back(m.id.dump());
  if (ids.empty()) {
    for (const auto& m : f.messages) s->server->handle_message(m);
    if (f.errors.empty()) return ex->respond(202, "application/json", "");
    if (f.messages.empty() && f.errors.size() == 1 &&
        f.errors[0].error.message == "Invalid Request: empty batch")
      return ex->respond(400, "application/json", mcp::serialize(f.errors[0]));
    return ex->respond(200, "application/json", mcp::serialize_batch(f.errors));
  }
  std::string key = "batch:" + ids.front();
  {
    std::lock_guard lock(s->mu);
    std::vector<std::string> seen;
    for (const auto& id : ids) {
      if (s->waiting.count(id) || s->waiting.count("batch:" + id) ||
          std::find(seen.begin(), seen.end(), id) != seen.end())
        return send_rpc_error(*ex, 400, mcp::rpc_error::invalid_request,
                              "Invalid Request: id " + id + " is already in use");
      seen.push_back(id);
    }
  }
  auto expected = s->expect(key, {ex, {}, sse});
  if (expected == Session::Expect::ended)
    return send_rpc_error(*ex, 404, mcp::rpc_error::invalid_request,
                          "unknown or ended MCP session (initialize again)");
  if (expected == Session::Expect::id_in_use)
    return send_rpc_error(*ex, 400, mcp::rpc_error::invalid_request,
                          "Invalid Request: id " + ids.front() + " is already in use");
  std::weak_ptr<Session> weak = s;
  ex->on_close([weak, key] {
    if (auto self = weak.lock()) self->abandon(key, nullptr);
  });
  s->server->handle_frame(body);
}

void McpEndpoint::erase(const std::shared_ptr<http::Exchange>& ex, const http::Request& req,
                        const GatewayKey* owner) {
  std::string sid(req.header("mcp-session-id"));
  if (sid.empty())
    return send_rpc_error(*ex, 400, mcp::rpc_error::invalid_request, "Mcp-Session-Id is required");
  std::shared_ptr<Session> s;
  {
    std::lock_guard lock(mu_);
    auto it = sessions_.find(sid);
    if (it != sessions_.end() && it->second->owner == owner) {
      s = std::move(it->second);
      sessions_.erase(it);
    }
  }
  if (!s)
    return send_rpc_error(*ex, 404, mcp::rpc_error::invalid_request,
                          "unknown or ended MCP session");
  s->end("the session was ended");
  if (ctx_.shared) ctx_.shared->drop_mcp_session(sid);
  ex->respond(200, "application/json", "");
}

}  // namespace toolwire::gateway::routes
