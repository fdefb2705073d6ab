// One model call, translated: every ingress dialect's model-call endpoint
// (ingress.h), generic over the caller's codec.
//
// The body is decoded once from the caller's dialect into the IR, routed by
// model to a provider (which encodes the upstream's dialect and decodes its
// answer), and the answer is encoded back: whole, or event by event as the
// upstream's events arrive — each is encoded and written as soon as it is
// decoded, nothing is buffered. A retryable upstream failure before the
// first byte reached the client moves on to the route's next upstream; after
// it, the stream ends with an error event in the caller's dialect.
#include "gateway/routes/model_call.h"

#include <algorithm>
#include <boost/asio/steady_timer.hpp>
#include <cstdio>
#include <cstdlib>
#include <optional>

#include <boost/asio/post.hpp>
#include "gateway/routes/errors.h"
#include "gateway/routes/previous_response.h"
#include "gateway/routes/stream_shape.h"
#include "gateway/routes/warnings_header.h"
#include "toolwire/dialects/tool_rules.h"
#include "toolwire/tools/registry.h"
#include "toolwire/transport/asio_client.h"

namespace toolwire::gateway::routes {
namespace {

namespace asio = boost::asio;
using http::Clock;

bool retryable(const Error& e) {
  if (e.http_status >= 500 || e.http_status == 429) return true;
  // No answer, or one that could not be read: another upstream may do better.
  if (e.upstream && e.http_status == 0) return true;
  return e.code == ErrorCode::unavailable || e.code == ErrorCode::deadline_exceeded ||
         e.code == ErrorCode::resource_exhausted;
}

std::string_view error_kind(const Error& e) {
  if (e.http_status >= 500) return "http_5xx";
  if (e.http_status == 429) return "rate_limited";
  if (e.http_status >= 400) return "http_4xx";
  switch (e.code) {
    case ErrorCode::deadline_exceeded:
      return "timeout";
    case ErrorCode::unavailable:
      return "unavailable";
    case ErrorCode::cancelled:
      return "cancelled";
    case ErrorCode::parse_error:
    case ErrorCode::invalid_argument:
      return "bad_response";
    default:
      return "other";
  }
}

// An upstream's failure as this gateway's answer (docs/gateway.md,
// "Upstream failures"), as a reverse proxy answers one: never as the caller's
// fault — no 401 (the caller's key was fine), no 429 (every SDK would
// retry at once) and no 400 for an answer the gateway could not read.
//   the upstream refused the request's content (400, 404, 409, 413, 422):
//     passed on, the caller's to fix;
//   it timed out (408, 504, a deadline or idle timeout): 504;
//   it is overloaded or rate-limiting the gateway (429, 503, 529, an
//     overloaded/rate-limit error event), after the gateway's own retries:
//     503, with its `retry-after`;
//   anything else (401/403: its key was refused; 5xx; a reset; a malformed,
//     invalid-UTF-8 or over-limit answer): 502.
Error gateway_error(Error e) {
  if (!e.upstream) return e;
  switch (e.http_status) {
    case 400:
    case 404:
    case 409:
    case 413:
    case 422:
      return e;
    case 429:
    case 503:
    case 529:
      e.code = ErrorCode::unavailable;
      e.http_status = 503;
      break;
    case 408:
    case 504:
      e.code = ErrorCode::deadline_exceeded;
      e.http_status = 504;
      break;
    case 0:
      if (e.code == ErrorCode::deadline_exceeded) {
        e.http_status = 504;
        break;
      }
      [[fallthrough]];
    default:
      e.code = ErrorCode::internal;
      e.http_status = 502;
  }
  e.path.clear();  // a path into the upstream's dialect means nothing to the caller
  return e;
}

// How long the caller waits for its answer, when it says so: SDKs generated
// by Stainless send their request timeout as `x-stainless-timeout`
// (seconds). The upstream call — its retries and their retry-after waits
// included — never runs past it (nor past the upstream's own timeout).
std::optional<int64_t> client_deadline_ms(const http::Request& req) {
  std::string_view v = req.header("x-stainless-timeout");
  if (v.empty() || v.size() > 32) return std::nullopt;
  std::string text(v);
  char* end = nullptr;
  double secs = std::strtod(text.c_str(), &end);
  if (end == text.c_str() || *end != '\0' || !(secs > 0) || secs > 86'400.0) return std::nullopt;
  return static_cast<int64_t>(secs * 1000.0);
}

bool is_content(const ir::StreamEvent& e) {
  return std::holds_alternative<ir::TextDelta>(e) || std::holds_alternative<ir::ThinkingDelta>(e) ||
         std::holds_alternative<ir::ToolCallStart>(e) ||
         std::holds_alternative<ir::ToolCallDelta>(e);
}

class ModelCall;

// See ModelCall::attempt(): the call first, then the in-flight count.
struct UpstreamHold {
  explicit UpstreamHold(std::shared_ptr<ModelCall> call);
  ~UpstreamHold();
  UpstreamHold(const UpstreamHold&) = delete;
  UpstreamHold& operator=(const UpstreamHold&) = delete;
  std::shared_ptr<ModelCall> self;
  std::shared_ptr<RouteContext> ctx;
};

class ModelCall : public std::enable_shared_from_this<ModelCall> {
  friend struct UpstreamHold;

 public:
  ModelCall(std::shared_ptr<RouteContext> ctx, Ingress ingress, GatewayKey* key,
            std::shared_ptr<http::Exchange> ex)
      : key_(key),
        ctx_(std::move(ctx)),
        dialect_(ingress.dialect),
        codec_(codec_for(*ingress.dialect)),
        shape_(stream_shape(codec_)),
        route_(ingress.route),
        ingress_(std::move(ingress)),
        ex_(std::move(ex)),
        timer_(ex_->executor()) {}

  void start(http::Request&& req) {
    start_ = req.received;
    ctx_->metrics.bytes_in(req.body.size());
    auto decoded = codec_.decode_request(req.body, warnings_);
    if (!decoded) return reject(decoded.error());
    request_ = std::move(*decoded);
    // A dialect whose path names the model and the stream flag: the path's.
    if (!ingress_.model.empty()) request_.model = ingress_.model;
    if (ingress_.stream) request_.stream = *ingress_.stream;
    if (auto store_error = dialect_->ingress.response_store) {
      if (auto w = recorder_.begin(ctx_->response_store, request_, key_scope(key_), store_error))
        return reject_wire(std::move(*w));
    }
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
    if (dialect_->ingress.refuse)
      if (auto w = dialect_->ingress.refuse(request_)) return reject_wire(std::move(*w));
    // What the caller's API would refuse, caught before any upstream round
    // trip: non-object tool schemas (the decoder refused them above) and
    // tool names outside the dialect's rule (the encoders' check; a target
    // with a stricter rule refuses in its encoder, still before sending).
    if (Status st = dialects::check_tool_names(codec_.name(), request_); !st)
      return reject(st.error());
    if (request_.model.empty())
      return reject(make_error(ErrorCode::invalid_argument, "model is required", "$.model"));
    auto targets = ctx_->router->resolve(request_.model);
    if (!targets) {
      Error e = targets.error();
      e.http_status = 404;
      if (e.path.empty()) e.path = "$.model";
      return reject(e);
    }
    if (key_ && !key_->allows_model(request_.model))
      return reject(
          make_error(ErrorCode::permission_denied,
                     "key '" + key_->config().name + "' may not use model '" + request_.model + "'",
                     "$.model"));
    targets_ = std::move(*targets);
    if (targets_.empty())
      return reject(
          make_error(ErrorCode::not_found, "no upstream for model " + request_.model, "$.model"));
    model_ = request_.model;
    stream_ = request_.stream;
    client_deadline_ms_ = client_deadline_ms(req);
    tool_comments_ = req.header("toolwire-tool-events") == "comments" && shape_.sse_comments;
    tools_ = targets_.front().tools;
    // The route's tools now (an MCP server's list_changed may replace them
    // later; this request keeps these).
    if (tools_) registry_ = tools_->current();
    if (tools_ && registry_ &&
        (tools_->mode != ToolMode::passthrough ||
         (tools_->builtin_when_client_has_no_tools && request_.tools.empty()))) {
      if (auto err = prepare_loop()) return reject(*err);
    }
    if (stream_ && key_) {
      if (!key_->open_stream()) {
        Error e =
            make_error(ErrorCode::resource_exhausted,
                       "key '" + key_->config().name + "' already has " +
                           std::to_string(key_->config().max_concurrent_streams) + " streams open");
        e.http_status = 429;
        return reject(e);
      }
      holds_stream_slot_ = true;
    }
    if (stream_) encoder_ = codec_.make_stream_encoder();
    ex_->on_close([self = shared_from_this()] { self->client_gone(); });
    attempt();
  }

 private:
  void reject(const Error& e) {
    dialects::WireError w = codec_.encode_error(e);
    // The upstream's own wait, passed on when the gateway gives up.
    if (!e.retry_after.empty()) w.headers.emplace_back("retry-after", e.retry_after);
    reject_wire(std::move(w));
  }

  void reject_wire(dialects::WireError w) {
    http::Headers headers = warning_headers();
    for (auto& h : w.headers) headers.push_back(std::move(h));
    ex_->respond(w.http_status, "application/json", w.body, headers);
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
    bool last = target_ + 1 == targets_.size() && !loop_;   // a loop keeps the conversation
    ir::Request r = last ? std::move(request_) : request_;  // a fallback needs its own copy
    if (!t.upstream_model.empty()) r.model = t.upstream_model;
    if (client_deadline_ms_) {  // what is left of it
      auto spent =
          std::chrono::duration_cast<std::chrono::milliseconds>(Clock::now() - start_).count();
      r.deadline_ms = std::max<int64_t>(1, *client_deadline_ms_ - spent);
    }
    uint64_t gen = ++gen_;
    upstream_start_ = Clock::now();
    // The provider's hold on this call. It counts as in flight until the
    // provider has dropped its callbacks, not merely called them: the last
    // reference may go on the transport's thread after the answer is out, and
    // Gateway::wait() must not let the executor go before that.
    auto hold = std::make_shared<UpstreamHold>(shared_from_this());
    auto done = [hold, gen](Result<provider::Generation> result) {
      auto self = hold->self;
      auto ex = self->ex_;
      ex->dispatch([self, gen, result = std::move(result)]() mutable {
        self->on_done(gen, std::move(result));
      });
    };
    // The upstream call's I/O and callbacks share this connection's strand.
    transport::StrandScope scope(ex_->executor());
    if (stream_) {
      auto on_event = [hold, gen](const ir::StreamEvent& e) {
        const auto& self = hold->self;
        if (self->ex_->on_strand()) {
          if (gen == self->gen_) self->on_event(e);
          return;
        }
        self->ex_->post([self, gen, e] {
          if (gen == self->gen_) self->on_event(e);
        });
      };
      call_ = t.provider->stream(std::move(r), std::move(on_event), std::move(done));
      if (paused_) call_.set_paused(true);  // a later round of a loop, client still behind
      arm_timer();
    } else {
      // The whole answer is due within upstream_content_idle (a non-stream
      // upstream sends nothing before it has all of it).
      awaiting_whole_ = true;
      last_content_ = Clock::now();
      call_ = t.provider->generate(std::move(r), std::move(done));
      arm_timer();
    }
  }

  void begin() {
    begun_ = true;
    http::Headers h = warning_headers();
    h.emplace_back("cache-control", "no-cache");
    h.emplace_back("x-accel-buffering", "no");
    ex_->begin_stream(200, std::string(shape_.media_type), h);
    ctx_->metrics.stream_opened();
    last_write_ = Clock::now();
    arm_timer();  // from now on the timer also sends keep-alives
  }

  void on_event(const ir::StreamEvent& e) {
    if (done_) return;
    if (loop_ && !filter_event(e)) return;
    if (!begun_) begin();
    if (is_content(e)) last_content_ = Clock::now();
    if (const auto* s = std::get_if<ir::ToolCallStart>(&e))
      ctx_->metrics.tool_call(s->name, "returned");
    buf_.clear();
    if (loop_ || !recorder_.id().empty()) {
      ir::StreamEvent out = loop_ ? remap(e) : e;
      recorder_.saw(out);
      encoder_->encode(out, buf_);
    } else {
      encoder_->encode(e, buf_);
    }
    write(buf_);
  }

  void write(std::string_view bytes) {
    if (bytes.empty()) return;
    ex_->write(bytes);
    ctx_->metrics.bytes_out(bytes.size());
    last_write_ = Clock::now();
    if (!paused_ && ex_->queued_bytes() > ex_->max_queued_bytes()) pause();
  }

  // Backpressure: the client is behind by more than max_queued_bytes, so
  // the upstream is no longer read (its bytes wait in TCP buffers, and TCP
  // stops the upstream) until the client has taken half of what is queued.
  // A client that takes nothing is cut by the session's write timeout.
  void pause() {
    paused_ = true;
    call_.set_paused(true);
    ex_->on_drained([weak = weak_from_this()] {
      if (auto self = weak.lock()) self->resume();
    });
  }

  void resume() {
    if (!paused_) return;
    paused_ = false;
    last_content_ = Clock::now();  // the pause was the client's, not the upstream's idle time
    if (!done_) call_.set_paused(false);
  }

  void on_done(uint64_t gen, Result<provider::Generation> result) {
    if (gen != gen_ || done_) return;
    awaiting_whole_ = false;
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
    if (loop_) return on_round_done(std::move(*result));
    if (stream_) {
      if (!begun_) begin();
      return end(200);
    }
    for (auto& w : result->warnings) warnings_.push_back(std::move(w));
    ir::Response& resp = result->response;
    if (!recorder_.id().empty()) resp.id = recorder_.id();
    for (const auto& p : resp.parts)
      if (const auto* c = std::get_if<ir::ToolCallPart>(&p))
        ctx_->metrics.tool_call(c->name, "returned");
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
    recorder_.done(ctx_->response_store, resp);
    finish_metrics(200);
  }

  // Before the first byte: an error response; after: an error event that
  // ends the stream, in the caller's dialect. An upstream's failure is
  // answered as a bad gateway (gateway_error()).
  void fail(const Error& upstream_or_own) {
    if (done_) return;
    const Error e = gateway_error(upstream_or_own);
    if (!begun_) {
      done_ = true;
      timer_.cancel();
      return reject(e);
    }
    buf_.clear();
    encoder_->encode(ir::ErrorEvent{dialects::stream_error_type(e), e.to_string()}, buf_);
    write(buf_);
    end(e.http_status > 0 ? e.http_status : codec_.encode_error(e).http_status);
  }

  void end(int status) {
    if (status == 200) recorder_.stream_done(ctx_->response_store);
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
    cancel_tools("cancelled: the client went away");
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
    if (!stream_ && !awaiting_whole_) return;  // between a loop's rounds: tools run
    auto now = Clock::now();
    if (paused_) last_content_ = now;  // waiting for the client, not for the upstream
    if (now - last_content_ >= ctx_->options.upstream_content_idle) {
      ++gen_;
      awaiting_whole_ = false;
      call_.cancel();
      auto ms =
          std::chrono::duration_cast<std::chrono::milliseconds>(ctx_->options.upstream_content_idle)
              .count();
      const std::string who = "upstream '" + targets_[target_].name + "' timed out: ";
      Error e = make_error(ErrorCode::deadline_exceeded,
                           stream_ ? who + "it sent no content for " + std::to_string(ms) + " ms"
                                   : who + "no answer within " + std::to_string(ms) + " ms");
      e.http_status = 504;
      e.upstream = true;
      ctx_->metrics.upstream_attempt(targets_[target_].name, "idle_timeout");
      return fail(e);
    }
    if (begun_ && now - last_write_ >= ctx_->options.stream_keepalive) {
      if (shape_.keepalive.empty())
        last_write_ = now;  // nothing valid to send: wait another period
      else
        write(shape_.keepalive);
    }
    arm_timer();
  }

  void finish_metrics(int status) {
    if (holds_stream_slot_) {
      holds_stream_slot_ = false;
      key_->close_stream();
    }
    auto now = Clock::now();
    double secs = std::chrono::duration<double>(now - start_).count();
    std::string_view model = model_.empty() ? std::string_view("unknown") : model_;
    ctx_->metrics.request(route_, model, status, secs);
    if (ctx_->options.log_requests && ctx_->options.log) {
      char line[512];
      std::snprintf(line, sizeof line, "%s model=%.*s upstream=%s status=%d %s ms=%.3f",
                    route_.data(), static_cast<int>(model.size()), model.data(),
                    targets_.empty() ? "-" : targets_[target_].name.c_str(), status,
                    stream_ ? "stream" : "whole", secs * 1e3);
      ctx_->log(line);
    }
  }

  GatewayKey* key_;  // owned by the gateway's KeyRing, which outlives every call
  bool holds_stream_slot_ = false;
  std::shared_ptr<RouteContext> ctx_;
  const dialects::Dialect* dialect_;
  const dialects::Codec& codec_;
  StreamShape shape_;
  std::string_view route_;
  Ingress ingress_;
  ResponseRecorder recorder_;  // previous_response_id and the store
  std::shared_ptr<http::Exchange> ex_;
  asio::steady_timer timer_;
  Clock::time_point start_{}, upstream_start_{}, last_write_{}, last_content_{};
  Warnings warnings_;
  ir::Request request_;
  std::optional<int64_t> client_deadline_ms_;  // client_deadline_ms()
  std::string model_;
  bool stream_ = false;
  std::vector<RouteTarget> targets_;
  size_t target_ = 0;
  uint64_t gen_ = 0;
  provider::ProviderCall call_;
  std::unique_ptr<dialects::StreamEncoder> encoder_;
  bool begun_ = false;
  bool done_ = false;
  bool paused_ = false;          // the upstream is not read: the client is behind (pause())
  bool awaiting_whole_ = false;  // a non-stream upstream call is out (its timer runs)
  std::string buf_;

  // ---- server and mixed tool modes: the loop ---------------------------
  //
  // Rounds of model call → server calls run here (on the tool pool, each
  // with a timeout) → results appended → model again, until the model
  // answers without server calls. The client sees one assistant turn: text
  // of every round, its own calls (mixed) renumbered from 0, one usage (the
  // sum) and one finish. Server calls are not shown unless the client asks
  // for them (`toolwire-tool-events: comments`: SSE comment lines, ignored
  // by SDKs, readable by people and scripts).

  std::optional<Error> prepare_loop() {
    const tools::Registry& reg = *registry_;
    if (tools_->mode == ToolMode::server && !request_.tools.empty())
      return make_error(ErrorCode::invalid_argument,
                        "this route runs tools on the server and takes none from the client "
                        "(route the model to a mixed route to bring your own tools)",
                        "$.tools");
    for (size_t i = 0; i < request_.tools.size(); ++i)
      if (reg.find(request_.tools[i].name))
        return make_error(ErrorCode::invalid_argument,
                          "tool name '" + request_.tools[i].name +
                              "' clashes with a server tool of this route (rename it, or give the "
                              "route's server tools a prefix)",
                          "$.tools[" + std::to_string(i) + "]");
    splice_continuations();
    for (auto& d : reg.definitions()) request_.tools.push_back(std::move(d));
    loop_ = true;
    return std::nullopt;
  }

  // Mixed mode: an assistant turn the client echoes back without the server
  // calls we ran in it gets them back, with their results.
  void splice_continuations() {
    auto& msgs = request_.messages;
    for (size_t i = 0; i < msgs.size(); ++i) {
      if (msgs[i].role != ir::Role::assistant) continue;
      const ir::ToolCallPart* first = nullptr;
      for (const auto& p : msgs[i].parts)
        if ((first = std::get_if<ir::ToolCallPart>(&p))) break;
      if (!first) continue;
      auto entry = ctx_->continuations.find(scoped_id(key_scope(key_), first->id));
      if (!entry) continue;
      msgs[i] = entry->assistant;
      ir::Message results{ir::Role::tool, {}, {}};
      for (const auto& r : entry->server_results) results.parts.emplace_back(r);
      msgs.insert(msgs.begin() + static_cast<ptrdiff_t>(i) + 1, std::move(results));
      ++i;
    }
  }

  bool is_server_tool(std::string_view name) const { return registry_->find(name) != nullptr; }

  // Decides what of a round's stream the client sees; false: nothing.
  bool filter_event(const ir::StreamEvent& e) {
    if (std::holds_alternative<ir::MessageStart>(e)) {
      if (sent_start_) return false;
      sent_start_ = true;
      return true;
    }
    if (const auto* u = std::get_if<ir::UsageEvent>(&e)) {
      round_usage_ = u->usage;  // cumulative within a round; summed at its end
      return false;
    }
    if (std::holds_alternative<ir::Finish>(e)) return false;
    if (const auto* s = std::get_if<ir::ToolCallStart>(&e)) {
      bool server = is_server_tool(s->name);
      if (static_cast<size_t>(s->index) >= client_index_.size())
        client_index_.resize(s->index + 1, -1);
      if (server) {
        client_index_[s->index] = -1;
        if (tool_comments_) write(": toolwire.tool_call " + s->name + " " + s->id + "\n\n");
        return false;
      }
      client_index_[s->index] = next_client_index_++;
      return true;
    }
    int index = -1;
    if (const auto* d = std::get_if<ir::ToolCallDelta>(&e)) index = d->index;
    if (const auto* d = std::get_if<ir::ToolCallEnd>(&e)) index = d->index;
    if (index >= 0)
      return static_cast<size_t>(index) < client_index_.size() && client_index_[index] >= 0;
    return true;
  }

  // The client's numbering of its calls across rounds.
  ir::StreamEvent remap(const ir::StreamEvent& e) const {
    ir::StreamEvent out = e;
    std::visit(
        [&](auto& v) {
          using T = std::decay_t<decltype(v)>;
          if constexpr (std::is_same_v<T, ir::ToolCallStart> ||
                        std::is_same_v<T, ir::ToolCallDelta> || std::is_same_v<T, ir::ToolCallEnd>)
            v.index = client_index_[v.index];
        },
        out);
    return out;
  }

  static void add_usage(ir::Usage& total, const ir::Usage& u) {
    auto add = [](std::optional<int64_t>& a, const std::optional<int64_t>& b) {
      if (b) a = a.value_or(0) + *b;
    };
    add(total.input_tokens, u.input_tokens);
    add(total.output_tokens, u.output_tokens);
    add(total.cache_read_tokens, u.cache_read_tokens);
    add(total.cache_write_tokens, u.cache_write_tokens);
    if (u.estimated) total.estimated = true;
  }

  void on_round_done(provider::Generation g) {
    ir::Response& r = g.response;
    add_usage(usage_total_, stream_ ? (r.usage.empty() ? round_usage_ : r.usage) : r.usage);
    round_usage_ = {};
    client_index_.clear();
    if (first_response_.id.empty() && first_response_.model.empty()) {
      first_response_.id = r.id;
      first_response_.model = r.model;
      first_response_.created = r.created;
    }
    std::vector<ir::ToolCallPart> server_calls;
    std::vector<std::string> client_ids;
    for (const auto& p : r.parts) {
      if (const auto* c = std::get_if<ir::ToolCallPart>(&p)) {
        if (is_server_tool(c->name))
          server_calls.push_back(*c);
        else
          client_ids.push_back(c->id);
      }
      if (!stream_ && !std::holds_alternative<ir::ToolCallPart>(p)) shown_parts_.push_back(p);
      if (!stream_)
        if (const auto* c = std::get_if<ir::ToolCallPart>(&p); c && !is_server_tool(c->name))
          shown_parts_.push_back(p);
    }
    last_finish_ = r.finish;
    ++rounds_;
    if (server_calls.empty()) return finish_loop(!client_ids.empty());
    round_message_ = ir::Message{ir::Role::assistant, r.parts, {}};
    round_client_ids_ = std::move(client_ids);
    run_server_calls(std::move(server_calls));
  }

  void run_server_calls(std::vector<ir::ToolCallPart> calls) {
    pending_calls_ = std::move(calls);
    results_.assign(pending_calls_.size(), std::nullopt);
    outstanding_ = pending_calls_.size();
    tokens_.assign(pending_calls_.size(), tools::CancellationToken());
    tool_timers_.clear();
    auto self = shared_from_this();
    auto registry = registry_;
    uint64_t batch = ++batch_;
    for (size_t i = 0; i < pending_calls_.size(); ++i) {
      const ir::ToolCallPart& call = pending_calls_[i];
      if (tool_comments_ && stream_)
        write(": toolwire.tool_run " + call.name + " " + call.id + "\n\n");
      auto timer = std::make_shared<asio::steady_timer>(ex_->executor());
      timer->expires_after(tools_->tool_timeout);
      timer->async_wait([self, i, batch](boost::system::error_code ec) {
        if (ec || self->done_ || batch != self->batch_ || self->results_[i]) return;
        self->tokens_[i].cancel();
        auto ms = std::chrono::duration_cast<std::chrono::milliseconds>(self->tools_->tool_timeout)
                      .count();
        auto res = tools::error_result(self->pending_calls_[i].id,
                                       "tool_result_timeout: " + self->pending_calls_[i].name +
                                           " did not finish within " + std::to_string(ms) + " ms");
        self->ctx_->metrics.tool_call(self->pending_calls_[i].name, "timeout");
        self->tool_done(i, std::move(res));
      });
      tool_timers_.push_back(timer);
      tools::ToolContext tc;
      tc.call_id = call.id;
      tc.tool_name = call.name;
      tc.cancel = tokens_[i];
      tc.deadline = tools::Clock::now() + tools_->tool_timeout;
      boost::asio::post(*ctx_->tool_pool, [self, registry, call, tc, i, batch]() mutable {
        ir::ToolResultPart res = registry->dispatch(call, tc);
        self->ex_->post([self, i, batch, res = std::move(res)]() mutable {
          if (self->done_ || batch != self->batch_ || self->results_[i]) return;
          self->ctx_->metrics.tool_call(self->pending_calls_[i].name,
                                        res.is_error ? "error" : "ok");
          self->tool_done(i, std::move(res));
        });
      });
    }
  }

  void tool_done(size_t i, ir::ToolResultPart res) {
    tool_timers_[i]->cancel();
    if (tool_comments_ && stream_)
      write(": toolwire.tool_result " + pending_calls_[i].id + (res.is_error ? " error" : " ok") +
            "\n\n");
    results_[i] = std::move(res);
    if (--outstanding_ > 0) return;
    std::vector<ir::ToolResultPart> results;
    for (auto& r : results_) results.push_back(std::move(*r));
    if (!round_client_ids_.empty()) {
      // Mixed turn: the client gets its calls now; ours stay for its next request.
      // Kept for this key only: another key echoing these ids gets nothing spliced.
      std::vector<std::string> ids;
      for (const auto& id : round_client_ids_) ids.push_back(scoped_id(key_scope(key_), id));
      ctx_->continuations.put(ids, {round_message_, results});
      return finish_loop(true);
    }
    request_.messages.push_back(std::move(round_message_));
    ir::Message tool_msg{ir::Role::tool, {}, {}};
    for (auto& r : results) tool_msg.parts.emplace_back(std::move(r));
    request_.messages.push_back(std::move(tool_msg));
    if (rounds_ >= tools_->max_rounds) {
      ctx_->log("route tool loop stopped after " + std::to_string(rounds_) +
                " model calls (max_rounds)");
      last_finish_ = ir::FinishReason{ir::FinishReason::Kind::length, "max_tool_rounds"};
      return finish_loop(false);
    }
    target_ = 0;
    attempt();
  }

  void cancel_tools(const std::string& why) {
    ++batch_;
    for (auto& t : tokens_) t.cancel();
    for (auto& t : tool_timers_) t->cancel();
    (void)why;
  }

  // The client's one answer for all rounds.
  void finish_loop(bool client_calls) {
    if (client_calls)
      last_finish_ = ir::FinishReason{ir::FinishReason::Kind::tool_calls, "tool_calls"};
    if (stream_) {
      if (!begun_) begin();
      buf_.clear();
      ir::StreamEvent usage = ir::UsageEvent{usage_total_}, finish = ir::Finish{last_finish_};
      if (!usage_total_.empty()) {
        recorder_.saw(usage);
        encoder_->encode(usage, buf_);
      }
      recorder_.saw(finish);
      encoder_->encode(finish, buf_);
      write(buf_);
      return end(200);
    }
    ir::Response resp;
    resp.id = recorder_.id().empty() ? first_response_.id : recorder_.id();
    resp.model = first_response_.model;
    resp.created = first_response_.created;
    resp.parts = std::move(shown_parts_);
    resp.finish = last_finish_;
    resp.usage = usage_total_;
    Warnings encode_warnings;
    auto body = codec_.encode_response(resp, encode_warnings);
    if (!body) return fail(body.error());
    done_ = true;
    timer_.cancel();
    http::Headers h;
    std::string v = format_warnings(warnings_, encode_warnings);
    if (!v.empty()) h.emplace_back("toolwire-warnings", std::move(v));
    ex_->respond(200, "application/json", *body, h);
    ctx_->metrics.bytes_out(body->size());
    recorder_.done(ctx_->response_store, resp);
    finish_metrics(200);
  }

  std::shared_ptr<const RouteTools> tools_;
  std::shared_ptr<const tools::Registry> registry_;  // tools_'s, taken once
  bool loop_ = false;
  bool tool_comments_ = false;
  bool sent_start_ = false;
  int rounds_ = 0;
  std::vector<int> client_index_;  // a round's call index → the client's (-1: a server call)
  int next_client_index_ = 0;
  ir::Usage usage_total_, round_usage_;
  ir::FinishReason last_finish_;
  ir::Response first_response_;
  std::vector<ir::Part> shown_parts_;  // non-stream: what the client gets, all rounds
  ir::Message round_message_;
  std::vector<std::string> round_client_ids_;
  std::vector<ir::ToolCallPart> pending_calls_;
  std::vector<std::optional<ir::ToolResultPart>> results_;
  std::vector<tools::CancellationToken> tokens_;
  std::vector<std::shared_ptr<asio::steady_timer>> tool_timers_;
  size_t outstanding_ = 0;
  uint64_t batch_ = 0;
};

UpstreamHold::UpstreamHold(std::shared_ptr<ModelCall> call)
    : self(std::move(call)), ctx(self->ctx_) {
  ctx->upstream_calls.begin();
}

UpstreamHold::~UpstreamHold() {
  self.reset();  // the call may end here, while the executor is still there
  ctx->upstream_calls.end();
}

}  // namespace

void handle_model_call(std::shared_ptr<RouteContext> ctx, Ingress ingress, GatewayKey* key,
                       std::shared_ptr<http::Exchange> ex, http::Request&& req) {
  auto call = std::make_shared<ModelCall>(std::move(ctx), std::move(ingress), key, std::move(ex));
  call->start(std::move(req));
}

}  // namespace toolwire::gateway::routes
