// Streamable HTTP, client side: one POST per frame on toolwire's HttpClient,
// answers as JSON or SSE, a small timer thread for the client's deadlines.
#include "toolwire/mcp/http_transport.h"

#include <cctype>

#include <nlohmann/json.hpp>

#include "toolwire/codec/sse.h"

namespace toolwire::mcp {

using nlohmann::json;

namespace {

bool starts_with_ci(std::string_view s, std::string_view prefix) {
  if (s.size() < prefix.size()) return false;
  for (size_t i = 0; i < prefix.size(); ++i)
    if (std::tolower(static_cast<unsigned char>(s[i])) != prefix[i]) return false;
  return true;
}

// Per-POST state shared by the HttpClient callbacks (all on its loop thread).
struct Exchange {
  std::string id_json;  // the request's id as JSON text; empty for notifications/responses
  int status = 0;
  bool sse = false;
  bool json_body = false;
  std::string body;
  codec::SseParser sse_parser;
  explicit Exchange(size_t max) : sse_parser(max) {}
};

class LineSink : public codec::SseSink {
 public:
  explicit LineSink(const TransportCallbacks& cb) : cb_(cb) {}
  Status on_event(codec::SseEvent& e) override {
    if ((e.event.empty() || e.event == "message") && cb_.on_line) cb_.on_line(e.data);
    return {};
  }

 private:
  const TransportCallbacks& cb_;
};

}  // namespace

Result<std::unique_ptr<HttpTransport>> HttpTransport::start(const HttpServerParams& params,
                                                            TransportCallbacks callbacks) {
  if (!params.url.starts_with("http://") && !params.url.starts_with("https://"))
    return make_error(ErrorCode::invalid_argument, "MCP server URL must be http:// or https://");
  std::unique_ptr<HttpTransport> t(new HttpTransport());
  t->params_ = params;
  t->cb_ = std::move(callbacks);
  t->http_ = std::make_unique<transport::HttpClient>();
  t->timer_ = std::thread([p = t.get()] { p->timer_loop(); });
  return t;
}

HttpTransport::~HttpTransport() { shutdown(); }

bool HttpTransport::alive() const {
  std::lock_guard<std::mutex> lock(mu_);
  return alive_;
}

std::string HttpTransport::session_id() const {
  std::lock_guard<std::mutex> lock(mu_);
  return session_id_;
}

void HttpTransport::set_protocol_version(std::string v) {
  std::lock_guard<std::mutex> lock(mu_);
  protocol_version_ = std::move(v);
}

void HttpTransport::wake() {
  std::lock_guard<std::mutex> lock(mu_);
  woken_ = true;
  cv_.notify_all();
}

void HttpTransport::timer_loop() {
  std::unique_lock<std::mutex> lock(mu_);
  while (!stopping_) {
    lock.unlock();
    auto next = cb_.next_deadline ? cb_.next_deadline() : Clock::time_point::max();
    lock.lock();
    if (stopping_) break;
    if (next == Clock::time_point::max())
      cv_.wait(lock, [&] { return stopping_ || woken_; });
    else
      cv_.wait_until(lock, next, [&] { return stopping_ || woken_; });
    woken_ = false;
    if (stopping_) break;
    lock.unlock();
    if (cb_.on_tick) cb_.on_tick();
    lock.lock();
  }
}

void HttpTransport::fail_request(const std::string& id_json, const std::string& why) {
  if (id_json.empty() || !cb_.on_line) return;
  json err = {{"jsonrpc", "2.0"},
              {"id", json::parse(id_json)},
              {"error", {{"code", -32603}, {"message", why}}}};
  cb_.on_line(err.dump());
}

void HttpTransport::end(std::string reason) {
  {
    std::lock_guard<std::mutex> lock(mu_);
    if (!alive_) return;
    alive_ = false;
  }
  if (cb_.on_exit) cb_.on_exit(std::move(reason));
}

Status HttpTransport::send(std::string_view frame) {
  transport::HttpRequest req;
  req.method = "POST";
  req.url = params_.url;
  req.body = std::string(frame);
  req.connect_timeout = params_.connect_timeout;
  req.retry.max_attempts = 1;  // a POSTed request must not run twice
  for (const auto& [k, v] : params_.headers) req.headers.add(k, v);
  req.headers.set("Content-Type", "application/json");
  req.headers.set("Accept", "application/json, text/event-stream");
  bool had_session;
  {
    std::lock_guard<std::mutex> lock(mu_);
    if (!alive_) return make_error(ErrorCode::unavailable, "MCP session is closed");
    had_session = !session_id_.empty();
    if (had_session) req.headers.set("Mcp-Session-Id", session_id_);
    if (!protocol_version_.empty()) req.headers.set("MCP-Protocol-Version", protocol_version_);
  }
  auto ex = std::make_shared<Exchange>(params_.max_message_bytes);
  json parsed = json::parse(frame, nullptr, false);
  if (parsed.is_object() && parsed.contains("method") && parsed.contains("id"))
    ex->id_json = parsed["id"].dump();

  transport::HttpCallbacks cb;
  cb.on_head = [this, ex](const transport::HttpResponseHead& h) {
    ex->status = h.status;
    if (auto sid = h.headers.get("Mcp-Session-Id")) {
      std::lock_guard<std::mutex> lock(mu_);
      session_id_ = std::string(*sid);
    }
    std::string_view ct = h.headers.get("Content-Type").value_or("");
    ex->sse = starts_with_ci(ct, "text/event-stream");
    ex->json_body = starts_with_ci(ct, "application/json");
    return true;
  };
  cb.on_body = [this, ex](std::string_view bytes) {
    if (ex->status == 200 && ex->sse) {
      LineSink sink(cb_);
      return ex->sse_parser.feed(bytes, sink).ok();
    }
    if (ex->body.size() + bytes.size() > params_.max_message_bytes) {
      if (cb_.on_oversized) cb_.on_oversized();
      return false;
    }
    ex->body.append(bytes);
    return true;
  };
  cb.on_complete = [this, ex, had_session](const Status& st, const transport::HttpStats&) {
    if (!st.ok()) return fail_request(ex->id_json, "HTTP transport: " + st.error().message);
    if (ex->status == 404 && had_session) {
      fail_request(ex->id_json, "MCP session expired (HTTP 404)");
      return end("session expired (HTTP 404)");
    }
    if (ex->status == 202) return;
    if (ex->status == 200 && ex->json_body) {
      if (cb_.on_line) cb_.on_line(ex->body);
      return;
    }
    if (ex->status == 200 && ex->sse) return;  // every event already delivered
    std::string why = "HTTP " + std::to_string(ex->status);
    // An error body that is a JSON-RPC error for this request says more.
    json body = json::parse(ex->body, nullptr, false);
    if (body.is_object() && body.contains("error") && body["error"].is_object() &&
        body["error"].contains("message") && body["error"]["message"].is_string())
      why += ": " + body["error"]["message"].get<std::string>();
    fail_request(ex->id_json, why);
  };
  http_->start(std::move(req), std::move(cb));
  return {};
}

void HttpTransport::shutdown() {
  std::string sid;
  {
    std::lock_guard<std::mutex> lock(mu_);
    if (stopping_) return;
    stopping_ = true;
    sid = session_id_;
    cv_.notify_all();
  }
  if (timer_.joinable()) timer_.join();
  if (!sid.empty() && alive()) {
    // The spec's explicit session end; a server may answer 405 (not allowed).
    transport::HttpRequest del;
    del.method = "DELETE";
    del.url = params_.url;
    del.deadline = std::chrono::milliseconds(2000);
    del.retry.max_attempts = 1;
    for (const auto& [k, v] : params_.headers) del.headers.add(k, v);
    del.headers.set("Mcp-Session-Id", sid);
    (void)http_->fetch(std::move(del));
  }
  http_.reset();  // cancels what is in flight and stops its loop thread
  end("closed");
}

}  // namespace toolwire::mcp
