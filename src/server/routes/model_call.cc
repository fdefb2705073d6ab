// POST /v1/chat/completions and POST /v1/messages: one model call, translated.
//
// The body is decoded once from the caller's dialect into the IR, routed by
// model to a provider (which encodes the upstream's dialect and decodes its
// answer), and the answer is encoded back: whole, or event by event as the
// upstream's events arrive — each is encoded and written as soon as it is
// decoded, nothing is buffered. A retryable upstream failure before the
// first byte reached the client moves on to the route's next upstream; after
// it, the stream ends with an error event in the caller's dialect.
#include "server/routes/model_call.h"

#include <boost/asio/steady_timer.hpp>
#include <cstdio>

#include "server/routes/errors.h"
#include "toolwire/transport/asio_client.h"
#include "server/routes/warnings_header.h"

namespace toolwire::server::routes {
namespace {

namespace asio = boost::asio;
using http::Clock;

bool retryable(const Error& e) {
  if (e.http_status >= 500 || e.http_status == 429) return true;
  return e.code == ErrorCode::unavailable || e.code == ErrorCode::deadline_exceeded ||
         e.code == ErrorCode::resource_exhausted;
}

std::string_view error_kind(const Error& e) {
  if (e.http_status >= 500) return "http_5xx";
  if (e.http_status == 429) return "rate_limited";
  if (e.http_status >= 400) return "http_4xx";
  switch (e.code) {
    case ErrorCode::deadline_exceeded: return "timeout";
    case ErrorCode::unavailable: return "unavailable";
    case ErrorCode::cancelled: return "cancelled";
    case ErrorCode::parse_error:
    case ErrorCode::invalid_argument: return "bad_response";
    default: return "other";
  }
}

// The stream error type a caller's SDK understands for `e`.
std::string stream_error_type(const Error& e) {
  switch (e.code) {
    case ErrorCode::deadline_exceeded: return "timeout_error";
    case ErrorCode::resource_exhausted: return "rate_limit_error";
    case ErrorCode::invalid_argument: return "invalid_request_error";
    case ErrorCode::unavailable: return "overloaded_error";
    default: return "api_error";
  }
}

bool is_content(const ir::StreamEvent& e) {
  return std::holds_alternative<ir::TextDelta>(e) || std::holds_alternative<ir::ThinkingDelta>(e) ||
         std::holds_alternative<ir::ToolCallStart>(e) ||
         std::holds_alternative<ir::ToolCallDelta>(e);
}

class ModelCall : public std::enable_shared_from_this<ModelCall> {
 public:
  ModelCall(std::shared_ptr<RouteContext> ctx, Dialect dialect, std::string_view route,
            std::shared_ptr<http::Exchange> ex)
      : ctx_(std::move(ctx)),
        dialect_(dialect),
        codec_(codec_for(dialect)),
        route_(route),
        ex_(std::move(ex)),
        timer_(ex_->executor()) {}

  void start(http::Request&& req) {
    start_ = req.received;
    ctx_->metrics.bytes_in(req.body.size());
    auto decoded = codec_.decode_request(req.body, warnings_);
    if (!decoded) return reject(decoded.error());
    request_ = std::move(*decoded);
    const Limits& limits = ctx_->options.limits;
    if (request_.messages.size() > limits.max_messages)
      return reject(make_error(ErrorCode::invalid_argument,
                               "too many messages: " + std::to_string(request_.messages.size()) +
                                   " (this gateway accepts at most " +
                                   std::to_string(limits.max_messages) + ")",
                               "$.messages"));
    if (request_.tools.size() > limits.max_tools)
      return reject(make_error(ErrorCode::invalid_argument,
                               "too many tools: " + std::to_string(request_.tools.size()) +
                                   " (this gateway accepts at most " +
                                   std::to_string(limits.max_tools) + ")",
                               "$.tools"));
    if (dialect_ == Dialect::anthropic_messages && has_extra("thread")) return reject_thread();
    if (request_.model.empty())
      return reject(make_error(ErrorCode::invalid_argument, "model is required", "$.model"));
    auto targets = ctx_->router->resolve(request_.model);
    if (!targets) {
      Error e = targets.error();
      e.http_status = 404;
      if (e.path.empty()) e.path = "$.model";
      return reject(e);
    }
    targets_ = std::move(*targets);
    if (targets_.empty())
      return reject(make_error(ErrorCode::not_found, "no upstream for model " + request_.model,
                               "$.model"));
    model_ = request_.model;
    stream_ = request_.stream;
    if (stream_) encoder_ = codec_.make_stream_encoder();
    ex_->on_close([self = shared_from_this()] { self->client_gone(); });
    attempt();
  }

 private:
  bool has_extra(std::string_view key) const {
    for (const auto& x : request_.extra)
      if (x.key == key) return true;
    return false;
  }

  // Anthropic's SDK tool runner may send `thread` (server-side history); this
  // error code tells it to resend the whole history instead.
  void reject_thread() {
    std::string body =
        R"({"type":"error","error":{"type":"invalid_request_error","message":"this gateway keeps )"
        R"(no server-side threads: send the full history instead of `thread`","details":)"
        R"({"error_code":"thread_unsupported_request","unsupported":["thread"]}}})";
    ex_->respond(400, "application/json", body);
    finish_metrics(400);
  }

  void reject(const Error& e) {
    codec::WireError w = codec_.encode_error(e);
    ex_->respond(w.http_status, "application/json", w.body, warning_headers());
    finish_metrics(w.http_status);
  }

  http::Headers warning_headers() const {
    http::Headers h;
    std::string v = format_warnings(warnings_, call_.warnings());
    if (!v.empty()) h.emplace_back("toolwire-warnings", std::move(v));
    return h;
  }

  void attempt() {
    const RouteTarget& t = targets_[target_];
    bool last = target_ + 1 == targets_.size();
    ir::Request r = last ? std::move(request_) : request_;  // a fallback needs its own copy
    if (!t.upstream_model.empty()) r.model = t.upstream_model;
    uint64_t gen = ++gen_;
    upstream_start_ = Clock::now();
    auto self = shared_from_this();
    auto done = [self, gen](Result<provider::Generation> result) {
      auto ex = self->ex_;
      ex->dispatch([self, gen, result = std::move(result)]() mutable {
        self->on_done(gen, std::move(result));
      });
      self->ctx_->upstream_calls.end();
    };
    ctx_->upstream_calls.begin();
    // The upstream call's I/O and callbacks share this connection's strand.
    transport::StrandScope scope(ex_->executor());
    if (stream_) {
      auto on_event = [self, gen](const ir::StreamEvent& e) {
        if (self->ex_->on_strand()) {
          if (gen == self->gen_) self->on_event(e);
          return;
        }
        self->ex_->post([self, gen, e] {
          if (gen == self->gen_) self->on_event(e);
        });
      };
      call_ = t.provider->stream(std::move(r), std::move(on_event), std::move(done));
      arm_timer();
    } else {
      call_ = t.provider->generate(std::move(r), std::move(done));
    }
  }

  void begin() {
    begun_ = true;
    http::Headers h = warning_headers();
    h.emplace_back("cache-control", "no-cache");
    h.emplace_back("x-accel-buffering", "no");
    ex_->begin_stream(200, "text/event-stream", h);
    ctx_->metrics.stream_opened();
    last_write_ = Clock::now();
  }

  void on_event(const ir::StreamEvent& e) {
    if (done_) return;
    if (!begun_) begin();
    if (is_content(e)) last_content_ = Clock::now();
    if (const auto* s = std::get_if<ir::ToolCallStart>(&e)) ctx_->metrics.tool_call(s->name, "returned");
    buf_.clear();
    encoder_->encode(e, buf_);
    write(buf_);
  }

  void write(std::string_view bytes) {
    if (bytes.empty()) return;
    ex_->write(bytes);
    ctx_->metrics.bytes_out(bytes.size());
    last_write_ = Clock::now();
  }

  void on_done(uint64_t gen, Result<provider::Generation> result) {
    if (gen != gen_ || done_) return;
    const RouteTarget& t = targets_[target_];
    if (!result) {
      const Error& e = result.error();
      ctx_->metrics.upstream_attempt(t.name, error_kind(e));
      if (!begun_ && retryable(e) && target_ + 1 < targets_.size() && !ex_->closed()) {
        ctx_->log("upstream " + t.name + " failed (" + std::string(error_kind(e)) +
                  "), trying the next one: " + e.to_string());
        ++target_;
        return attempt();
      }
      return fail(e);
    }
    ctx_->metrics.upstream_attempt(t.name, "");
    if (stream_) {
      if (!begun_) begin();
      return end(200);
    }
    for (auto& w : result->warnings) warnings_.push_back(std::move(w));
    const ir::Response& resp = result->response;
    for (const auto& p : resp.parts)
      if (const auto* c = std::get_if<ir::ToolCallPart>(&p)) ctx_->metrics.tool_call(c->name, "returned");
    Warnings encode_warnings;
    auto body = codec_.encode_response(resp, encode_warnings);
    if (!body) return fail(body.error());
    for (auto& w : encode_warnings) warnings_.push_back(std::move(w));
    done_ = true;
    timer_.cancel();
    http::Headers h;
    std::string v = format_warnings(warnings_, {});
    if (!v.empty()) h.emplace_back("toolwire-warnings", std::move(v));
    ex_->respond(200, "application/json", *body, h);
    ctx_->metrics.bytes_out(body->size());
    finish_metrics(200);
  }

  // Before the first byte: an error response; after: an error event that
  // ends the stream, in the caller's dialect.
  void fail(const Error& e) {
    if (done_) return;
    if (!begun_) {
      done_ = true;
      timer_.cancel();
      return reject(e);
    }
    buf_.clear();
    encoder_->encode(ir::ErrorEvent{stream_error_type(e), e.to_string()}, buf_);
    write(buf_);
    end(e.http_status > 0 ? e.http_status : codec_.encode_error(e).http_status);
  }

  void end(int status) {
    done_ = true;
    timer_.cancel();
    ex_->end_stream();
    ctx_->metrics.stream_closed();
    finish_metrics(status);
  }

  void client_gone() {
    if (done_) return;
    done_ = true;
    ++gen_;  // whatever the upstream still says is dropped
    timer_.cancel();
    call_.cancel();
    if (begun_) ctx_->metrics.stream_closed();
    finish_metrics(499);
  }

  // One timer serves both stream deadlines: the keep-alive (nothing written
  // for stream_keepalive) and the upstream's content idle time.
  void arm_timer() {
    if (done_) return;  // an in-process provider may have answered already
    auto now = Clock::now();
    if (last_content_ == Clock::time_point{}) last_content_ = now;
    auto next = last_content_ + ctx_->options.upstream_content_idle;
    if (begun_) next = std::min(next, last_write_ + ctx_->options.stream_keepalive);
    timer_.expires_at(next);
    timer_.async_wait([self = shared_from_this()](boost::system::error_code ec) {
      if (ec || self->done_) return;
      self->on_timer();
    });
  }

  void on_timer() {
    auto now = Clock::now();
    if (now - last_content_ >= ctx_->options.upstream_content_idle) {
      ++gen_;
      call_.cancel();
      auto ms = std::chrono::duration_cast<std::chrono::milliseconds>(
                    ctx_->options.upstream_content_idle)
                    .count();
      Error e = make_error(ErrorCode::deadline_exceeded,
                           "upstream " + targets_[target_].name + " sent no content for " +
                               std::to_string(ms) + " ms");
      e.http_status = 504;
      ctx_->metrics.upstream_attempt(targets_[target_].name, "idle_timeout");
      return fail(e);
    }
    if (begun_ && now - last_write_ >= ctx_->options.stream_keepalive)
      write(dialect_ == Dialect::anthropic_messages ? "event: ping\ndata: {\"type\": \"ping\"}\n\n"
                                                    : ": keep-alive\n\n");
    arm_timer();
  }

  void finish_metrics(int status) {
    auto now = Clock::now();
    double secs = std::chrono::duration<double>(now - start_).count();
    std::string_view model = model_.empty() ? std::string_view("unknown") : model_;
    ctx_->metrics.request(route_, model, status, secs);
    if (ctx_->options.log_requests && ctx_->options.log) {
      char line[512];
      std::snprintf(line, sizeof line, "%s model=%.*s upstream=%s status=%d %s ms=%.3f", route_.data(),
                    static_cast<int>(model.size()), model.data(),
                    targets_.empty() ? "-" : targets_[target_].name.c_str(), status,
                    stream_ ? "stream" : "whole", secs * 1e3);
      ctx_->log(line);
    }
  }

  std::shared_ptr<RouteContext> ctx_;
  Dialect dialect_;
  const codec::Codec& codec_;
  std::string_view route_;
  std::shared_ptr<http::Exchange> ex_;
  asio::steady_timer timer_;
  Clock::time_point start_{}, upstream_start_{}, last_write_{}, last_content_{};
  Warnings warnings_;
  ir::Request request_;
  std::string model_;
  bool stream_ = false;
  std::vector<RouteTarget> targets_;
  size_t target_ = 0;
  uint64_t gen_ = 0;
  provider::ProviderCall call_;
  std::unique_ptr<codec::StreamEncoder> encoder_;
  bool begun_ = false;
  bool done_ = false;
  std::string buf_;
};

}  // namespace

void handle_model_call(std::shared_ptr<RouteContext> ctx, Dialect dialect, std::string_view route,
                       std::shared_ptr<http::Exchange> ex, http::Request&& req) {
  auto call = std::make_shared<ModelCall>(std::move(ctx), dialect, route, std::move(ex));
  call->start(std::move(req));
}

}  // namespace toolwire::server::routes
