// Streamable HTTP, client side: one POST per frame on toolwire's HttpClient,
// answers as JSON or SSE, SSE streams resumed with Last-Event-ID, the GET
// stream, and a small timer thread for the client's deadlines and reconnects.
#include "toolwire/mcp/http_transport.h"

#include <cctype>

#include <nlohmann/json.hpp>

#include "toolwire/core/json_depth.h"
#include "toolwire/dialects/framing/sse.h"

namespace toolwire::mcp {

using nlohmann::json;

namespace {

bool starts_with_ci(std::string_view s, std::string_view prefix) {
  if (s.size() < prefix.size()) return false;
  for (size_t i = 0; i < prefix.size(); ++i)
    if (std::tolower(static_cast<unsigned char>(s[i])) != prefix[i]) return false;
  return true;
}

// True when `data` is the response (result or error) to the request `id_json`.
bool answers(std::string_view data, const std::string& id_json) {
  if (id_json.empty() || data.find("\"id\"") == std::string_view::npos) return false;
  json j = parse_json_bounded<json>(data);
  if (!j.is_object() || j.contains("method")) return false;
  auto id = j.find("id");
  return id != j.end() && id->dump() == id_json && (j.contains("result") || j.contains("error"));
}

}  // namespace

// One HTTP exchange whose answer is read: a POST, a GET resuming a POST's
// cut SSE stream, or the GET stream. Its callbacks run on the HttpClient's
// loop thread, one at a time.
struct HttpTransport::Stream {
  enum class Kind { post, resume, listen };
  Kind kind = Kind::post;
  std::string id_json;  // the request whose answer this stream carries; empty: none
  bool had_session = false;
  int status = 0;
  bool sse = false;
  bool json_body = false;
  bool answered = false;  // the response to id_json was delivered
  size_t events = 0;      // events on this connection
  int attempts = 0;       // reconnects in a row that brought no event
  std::string last_event_id;
  long retry_ms = -1;
  std::string body;
  dialects::SseParser parser;
  explicit Stream(size_t max) : parser(max) {}
};

namespace {

class LineSink : public dialects::SseSink {
 public:
  LineSink(const TransportCallbacks& cb, HttpTransport::Stream& s) : cb_(cb), s_(s) {}
  Status on_event(dialects::SseEvent& e) override {
    ++s_.events;
    if (e.data.empty()) return {};  // a priming event: an ID to resume from, no message
    if (!e.event.empty() && e.event != "message") return {};
    if (!s_.answered && answers(e.data, s_.id_json)) s_.answered = true;
    if (cb_.on_line) cb_.on_line(e.data);
    return {};
  }

 private:
  const TransportCallbacks& cb_;
  HttpTransport::Stream& s_;
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

void HttpTransport::schedule(Clock::time_point at, std::function<void()> fn) {
  std::lock_guard<std::mutex> lock(mu_);
  if (stopping_) return;
  scheduled_.emplace(at, std::move(fn));
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
    if (!scheduled_.empty()) next = std::min(next, scheduled_.begin()->first);
    if (next == Clock::time_point::max())
      cv_.wait(lock, [&] { return stopping_ || woken_; });
    else
      cv_.wait_until(lock, next, [&] { return stopping_ || woken_; });
    woken_ = false;
    if (stopping_) break;
    std::vector<std::function<void()>> due;
    auto now = Clock::now();
    while (!scheduled_.empty() && scheduled_.begin()->first <= now) {
      due.push_back(std::move(scheduled_.begin()->second));
      scheduled_.erase(scheduled_.begin());
    }
    lock.unlock();
    for (auto& fn : due) fn();
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

transport::HttpRequest HttpTransport::request(std::string method) {
  transport::HttpRequest req;
  req.method = std::move(method);
  req.url = params_.url;
  req.connect_timeout = params_.connect_timeout;
  req.retry.max_attempts = 1;  // a POSTed request must not run twice
  for (const auto& [k, v] : params_.headers) req.headers.add(k, v);
  std::lock_guard<std::mutex> lock(mu_);
  if (!session_id_.empty()) req.headers.set("Mcp-Session-Id", session_id_);
  if (!protocol_version_.empty()) req.headers.set("MCP-Protocol-Version", protocol_version_);
  return req;
}

Status HttpTransport::send(std::string_view frame) {
  transport::HttpRequest req = request("POST");
  req.body = std::string(frame);
  req.headers.set("Content-Type", "application/json");
  req.headers.set("Accept", "application/json, text/event-stream");
  auto s = std::make_shared<Stream>(params_.max_message_bytes);
  {
    std::lock_guard<std::mutex> lock(mu_);
    if (!alive_) return make_error(ErrorCode::unavailable, "MCP session is closed");
    s->had_session = !session_id_.empty();
  }
  json parsed = parse_json_bounded<json>(frame);
  if (parsed.is_object() && parsed.contains("method") && parsed.contains("id"))
    s->id_json = parsed["id"].dump();

  transport::HttpCallbacks cb;
  cb.on_head = [this, s](const transport::HttpResponseHead& h) {
    s->status = h.status;
    if (auto sid = h.headers.get("Mcp-Session-Id")) {
      std::lock_guard<std::mutex> lock(mu_);
      session_id_ = std::string(*sid);
    }
    std::string_view ct = h.headers.get("Content-Type").value_or("");
    s->sse = starts_with_ci(ct, "text/event-stream");
    s->json_body = starts_with_ci(ct, "application/json");
    return true;
  };
  cb.on_body = [this, s](std::string_view bytes) {
    if (s->status == 200 && s->sse) {
      LineSink sink(cb_, *s);
      return s->parser.feed(bytes, sink).ok();
    }
    if (s->body.size() + bytes.size() > params_.max_message_bytes) {
      if (cb_.on_oversized) cb_.on_oversized();
      return false;
    }
    s->body.append(bytes);
    return true;
  };
  cb.on_complete = [this, s](const Status& st, const transport::HttpStats&) {
    // A cut SSE answer is resumed, not failed (stream_ended decides).
    if (s->status == 200 && s->sse) return stream_ended(s, st);
    if (!st.ok()) return fail_request(s->id_json, "HTTP transport: " + st.error().message);
    if (s->status == 404 && s->had_session) {
      fail_request(s->id_json, "MCP session expired (HTTP 404)");
      return end("session expired (HTTP 404)");
    }
    if (s->status == 202) return;
    if (s->status == 200 && s->json_body) {
      if (cb_.on_line) cb_.on_line(s->body);
      return;
    }
    std::string why = "HTTP " + std::to_string(s->status);
    // An error body that is a JSON-RPC error for this request says more.
    json body = parse_json_bounded<json>(s->body);
    if (body.is_object() && body.contains("error") && body["error"].is_object() &&
        body["error"].contains("message") && body["error"]["message"].is_string())
      why += ": " + body["error"]["message"].get<std::string>();
    fail_request(s->id_json, why);
  };
  http_->start(std::move(req), std::move(cb));
  return {};
}

void HttpTransport::start_listening() {
  {
    std::lock_guard<std::mutex> lock(mu_);
    if (!params_.listen || listening_ || stopping_ || !alive_) return;
    listening_ = true;
  }
  auto s = std::make_shared<Stream>(params_.max_message_bytes);
  s->kind = Stream::Kind::listen;
  get(std::move(s));
}

// A GET: the stream of server messages, or a cut stream resumed.
void HttpTransport::get(std::shared_ptr<Stream> s) {
  {
    std::lock_guard<std::mutex> lock(mu_);
    if (stopping_ || !alive_) return;
  }
  transport::HttpRequest req = request("GET");
  req.headers.set("Accept", "text/event-stream");
  if (!s->last_event_id.empty()) req.headers.set("Last-Event-ID", s->last_event_id);
  s->status = 0;
  s->sse = false;
  s->events = 0;
  s->parser = dialects::SseParser(params_.max_message_bytes);
  transport::HttpCallbacks cb;
  cb.on_head = [s](const transport::HttpResponseHead& h) {
    s->status = h.status;
    s->sse = starts_with_ci(h.headers.get("Content-Type").value_or(""), "text/event-stream");
    return h.status == 200 && s->sse;  // anything else: nothing to read
  };
  cb.on_body = [this, s](std::string_view bytes) {
    LineSink sink(cb_, *s);
    return s->parser.feed(bytes, sink).ok();
  };
  cb.on_complete = [this, s](const Status& st, const transport::HttpStats&) {
    if (s->status == 200 && s->sse) return stream_ended(s, st);
    {
      std::lock_guard<std::mutex> lock(mu_);
      if (stopping_) return;
    }
    if (s->kind == Stream::Kind::listen) {
      // 405: the server offers no GET stream. Anything else: not now.
      if (s->status == 405 || s->status == 404 || s->status == 400) return;
      return reconnect(s, "the GET stream failed");
    }
    if (s->status == 0) return reconnect(s, st.ok() ? "no answer" : st.error().message);
    fail_request(s->id_json, "resuming the SSE stream failed: HTTP " + std::to_string(s->status));
  };
  http_->start(std::move(req), std::move(cb));
}

// An SSE stream ended (closed by the server, or cut): done when its request
// was answered (or it carried none), else resumed from its last event ID.
void HttpTransport::stream_ended(const std::shared_ptr<Stream>& s, const Status& st) {
  {
    std::lock_guard<std::mutex> lock(mu_);
    if (stopping_) return;
  }
  if (!s->parser.last_event_id().empty()) s->last_event_id = s->parser.last_event_id();
  if (s->parser.retry_ms() >= 0) s->retry_ms = s->parser.retry_ms();
  if (s->kind != Stream::Kind::listen && (s->id_json.empty() || s->answered)) return;
  if (s->kind != Stream::Kind::listen && s->last_event_id.empty()) {
    std::string why =
        st.ok() ? "the server ended" : "the connection cut (" + st.error().message + ")";
    return fail_request(s->id_json, "MCP server: " + why +
                                        " the SSE stream before answering, and gave no event ID "
                                        "to resume it from");
  }
  reconnect(s, st.ok() ? "stream ended" : st.error().message);
}

void HttpTransport::reconnect(const std::shared_ptr<Stream>& s, const std::string& why) {
  s->attempts = s->events > 0 ? 1 : s->attempts + 1;
  if (s->attempts > params_.max_reconnects) {
    if (s->kind != Stream::Kind::listen)
      fail_request(s->id_json, "MCP server: the SSE stream could not be resumed (" + why + ", " +
                                   std::to_string(params_.max_reconnects) +
                                   " attempts in a row without an event)");
    return;
  }
  if (s->kind == Stream::Kind::post) s->kind = Stream::Kind::resume;
  auto delay = s->retry_ms >= 0 ? std::chrono::milliseconds(s->retry_ms) : params_.reconnect_delay;
  schedule(Clock::now() + delay, [this, s] { get(s); });
}

void HttpTransport::shutdown() {
  std::string sid;
  {
    std::lock_guard<std::mutex> lock(mu_);
    if (stopping_) return;
    stopping_ = true;
    sid = session_id_;
    scheduled_.clear();
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
  http_.reset();  // cancels what is in flight (the GET stream) and stops its loop thread
  end("closed");
}

}  // namespace toolwire::mcp
