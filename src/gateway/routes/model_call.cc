// One model call, translated: every ingress dialect's model-call endpoint
// (ingress.h), generic over the caller's codec.
//
// The body is decoded once from the caller's dialect into the IR, routed by
// model to a provider (which encodes the upstream's dialect and decodes its
// answer), and the answer is encoded back: whole, or event by event as the
// upstream's events arrive (stream_relay.h). A retryable upstream failure
// before the first byte reached the client moves on to the route's next
// upstream (upstream_call.h); after it, the stream ends with an error event
// in the caller's dialect. A route with server tools runs its rounds
// (tool_rounds.h) through the same upstream call.
#include "gateway/routes/model_call.h"

#include <chrono>
#include <cstdio>
#include <optional>

#include "gateway/routes/call_request.h"
#include "gateway/routes/errors.h"
#include "gateway/routes/item_references.h"
#include "gateway/routes/previous_response.h"
#include "gateway/routes/stream_relay.h"
#include "gateway/routes/stream_shape.h"
#include "gateway/routes/tool_rounds.h"
#include "gateway/routes/upstream_call.h"
#include "gateway/routes/upstream_failure.h"
#include "gateway/routes/warnings_header.h"
#include "gateway/traces/request_trace.h"
#include "toolwire/dialects/tool_rules.h"

namespace toolwire::gateway::routes {
namespace {

using http::Clock;

int64_t unix_now() {
  return std::chrono::duration_cast<std::chrono::seconds>(
             std::chrono::system_clock::now().time_since_epoch())
      .count();
}

class ModelCall : public ToolRounds::Host, public std::enable_shared_from_this<ModelCall> {
 public:
  ModelCall(std::shared_ptr<RouteContext> ctx, Ingress ingress, GatewayKey* key,
            std::shared_ptr<http::Exchange> ex)
      : key_(key),
        ctx_(std::move(ctx)),
        dialect_(ingress.dialect),
        codec_(codec_for(*ingress.dialect)),
        route_(ingress.route),
        ingress_(std::move(ingress)),
        ex_(std::move(ex)) {}

  void start(http::Request&& req) {
    start_ = req.received;
    if (ctx_->traces || ctx_->otlp)
      trace_ = std::make_shared<traces::RequestTrace>(ctx_->traces, ctx_->otlp, "request",
                                                      std::string(route_),
                                                      key_ ? key_->config().name : "", false);
    ctx_->metrics.bytes_in(req.body.size());
    auto decoded = codec_.decode_request(req.body, warnings_);
    if (!decoded) return reject(decoded.error());
    request_ = std::move(*decoded);
    // A dialect whose path names the model and the stream flag: the path's.
    if (!ingress_.model.empty()) request_.model = ingress_.model;
    if (ingress_.stream) request_.stream = *ingress_.stream;
    if (auto store_error = dialect_->ingress.response_store) {
      const auto& refs = dialect_->ingress.item_references;
      if (auto w = resolve_item_references(ctx_->response_store, request_, key_scope(key_),
                                           req.body, refs, store_error))
        return reject_wire(std::move(*w));
      if (auto w =
              recorder_.begin(ctx_->response_store, request_, key_scope(key_), store_error, refs))
        return reject_wire(std::move(*w));
    }
    if (auto err = check_limits(request_, ctx_->options.limits)) return reject(*err);
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
    if (targets->empty())
      return reject(
          make_error(ErrorCode::not_found, "no upstream for model " + request_.model, "$.model"));
    model_ = request_.model;
    stream_ = request_.stream;
    if (trace_) {
      trace_->trace().model = model_;
      // The route's choice, made once for the request (its first target's).
      trace_->set_capture(targets->front().capture_content);
    }
    // The route's loss policy: here for what reading the request lost, in
    // the provider (before sending) for what translating it would lose.
    request_.on_loss = targets->front().on_loss;
    if (auto e = request_.on_loss.check(warnings_,
                                        "reading the " + std::string(codec_.name()) + " request"))
      return reject(*e);
    const auto tools = targets->front().tools;
    // The route's tools now (an MCP server's list_changed may replace them
    // later; this request keeps these).
    auto registry = tools ? tools->current() : nullptr;
    if (registry && (tools->mode != ToolMode::passthrough ||
                     (tools->builtin_when_client_has_no_tools && request_.tools.empty()))) {
      bool comments =
          req.header("toolwire-tool-events") == "comments" && stream_shape(codec_).sse_comments;
      rounds_ = std::make_unique<ToolRounds>(*ctx_, tools, std::move(registry), key_scope(key_),
                                             stream_, comments);
      if (auto err = rounds_->prepare(request_)) return reject(*err);
      rounds_->trace = trace_;
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
    if (stream_) {
      relay_ = std::make_shared<StreamRelay>(ex_, *ctx_, codec_);
      relay_->on_behind = [weak = weak_from_this()] {
        if (auto self = weak.lock()) self->pause();
      };
    }
    upstream_ = std::make_shared<UpstreamCall>(ctx_, ex_, std::move(*targets), stream_,
                                               client_deadline_ms(req), start_);
    upstream_->trace = trace_;
    upstream_->caller_dialect = std::string(codec_.name());
    ex_->on_close([self = shared_from_this()] { self->client_gone(); });
    if (rounds_) return rounds_->start(shared_from_this(), std::move(request_));
    upstream_->start(std::move(request_), sink(nullptr));
  }

  // ---- ToolRounds::Host ----

  provider::ProviderCall call_model(ir::Request request, provider::DoneCallback done) override {
    upstream_->start(std::move(request), sink(std::move(done)));
    return provider::ProviderCall([up = std::weak_ptr<UpstreamCall>(upstream_), ex = ex_] {
      ex->dispatch([up] {
        if (auto u = up.lock()) u->cancel();  // the round's answer is dropped with it
      });
    });
  }

  void write(std::string_view bytes) override { relay_->write(bytes); }

  void finish_stream(const ir::Usage& usage, const ir::FinishReason& finish) override {
    if (done_) return;
    if (!begun()) begin();
    if (!usage.empty()) relay_->send(ir::UsageEvent{usage}, recorder_);
    relay_->send(ir::Finish{finish}, recorder_);
    end(200);
  }

  void finish_whole(ir::Response response) override { answer(response); }

  // Before the first byte: an error response; after: an error event that
  // ends the stream, in the caller's dialect. An upstream's failure is
  // answered as a bad gateway (gateway_error()).
  void fail(const Error& upstream_or_own) override {
    if (done_) return;
    const Error e = gateway_error(upstream_or_own);
    if (!begun()) {
      done_ = true;
      return reject(e);
    }
    relay_->send_error(e);
    end(e.http_status > 0 ? e.http_status : codec_.encode_error(e).http_status);
  }

  agent::Scheduler scheduler() override { return strand_scheduler(ex_); }

 private:
  bool begun() const { return relay_ && relay_->begun(); }

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
    std::string v = format_warnings(warnings_, upstream_ ? upstream_->warnings() : Warnings{});
    if (!v.empty()) h.emplace_back("toolwire-warnings", std::move(v));
    return h;
  }

  // Where the upstream's answer goes: the client, or (`round_done`) the
  // server-tool round that asked. It holds this call until the answer is in.
  UpstreamCall::Sink sink(provider::DoneCallback round_done) {
    auto self = shared_from_this();
    UpstreamCall::Sink s;
    s.on_event = [self](const ir::StreamEvent& e) { self->on_event(e); };
    s.may_retry = [self] { return !self->begun() && !self->ex_->closed(); };
    if (round_done)
      s.on_done = [self, done = std::move(round_done)](Result<provider::Generation> r) {
        done(std::move(r));
      };
    else
      s.on_done = [self](Result<provider::Generation> r) { self->on_done(std::move(r)); };
    return s;
  }

  void begin() { relay_->begin(warning_headers()); }

  void on_event(const ir::StreamEvent& e) {
    if (done_) return;
    if (const auto* start = std::get_if<ir::MessageStart>(&e); start && start->created == 0) {
      ir::MessageStart dated = *start;  // the upstream gave no time: now
      dated.created = unix_now();
      return on_event(ir::StreamEvent{std::move(dated)});
    }
    if (!rounds_) return send(e, e);
    ir::StreamEvent shown;  // what the client sees of a round
    if (rounds_->relay(e, shown)) send(e, shown);
  }

  void send(const ir::StreamEvent& e, const ir::StreamEvent& shown) {
    if (!begun()) begin();
    if (const auto* s = std::get_if<ir::ToolCallStart>(&shown)) {
      ctx_->metrics.tool_call(s->name, "returned");
      if (trace_) trace_->tool_returned(s->name, s->id);
    }
    if (rounds_ || !recorder_.id().empty())
      relay_->send(shown, recorder_);
    else
      relay_->send(e);
  }

  // Backpressure: the client is behind by more than max_queued_bytes, so
  // the upstream is no longer read (its bytes wait in TCP buffers, and TCP
  // stops the upstream) until the client has taken half of what is queued.
  // A client that takes nothing is cut by the session's write timeout.
  void pause() {
    if (paused_) return;
    paused_ = true;
    upstream_->set_paused(true);
    ex_->on_drained([weak = weak_from_this()] {
      if (auto self = weak.lock()) self->resume();
    });
  }

  void resume() {
    if (!paused_) return;
    paused_ = false;
    if (!done_) upstream_->set_paused(false);
  }

  void on_done(Result<provider::Generation> result) {
    if (done_) return;
    if (!result) return fail(result.error());
    if (stream_) {
      if (!begun()) begin();
      return end(200);
    }
    for (auto& w : result->warnings) warnings_.push_back(std::move(w));
    for (const auto& p : result->response.parts)
      if (const auto* c = std::get_if<ir::ToolCallPart>(&p))
        ctx_->metrics.tool_call(c->name, "returned");
    answer(result->response);
  }

  // A whole answer, in the caller's dialect.
  void answer(ir::Response& resp) {
    if (done_) return;
    if (!recorder_.id().empty()) resp.id = recorder_.id();
    if (resp.created == 0) resp.created = unix_now();  // the upstream gave no time: the answer's
    if (trace_)  // the calls the client runs: the answer hands them back
      for (const auto& p : resp.parts)
        if (const auto* c = std::get_if<ir::ToolCallPart>(&p))
          trace_->tool_returned(c->name, c->id);
    Warnings encode_warnings;
    auto body = codec_.encode_response(resp, encode_warnings);
    if (!body) return fail(body.error());
    done_ = true;
    http::Headers h;
    std::string v = format_warnings(warnings_, encode_warnings);
    if (!v.empty()) h.emplace_back("toolwire-warnings", std::move(v));
    ex_->respond(200, "application/json", *body, h);
    ctx_->metrics.bytes_out(body->size());
    recorder_.done(ctx_->response_store, resp);
    finish_metrics(200);
  }

  void end(int status) {
    if (status == 200) recorder_.stream_done(ctx_->response_store);
    done_ = true;
    relay_->end();
    finish_metrics(status);
  }

  void client_gone() {
    if (done_) return;
    done_ = true;
    if (upstream_) upstream_->cancel();  // whatever the upstream still says is dropped
    if (relay_) relay_->cancel();
    finish_metrics(499);
  }

  // Every answer's end (and a client's departure): the rounds' run, if
  // any, is cancelled with its running tools, and no callback holds this.
  void finish_metrics(int status) {
    if (upstream_) upstream_->cancel();  // nothing out by now but a cut one
    if (rounds_) rounds_->stop();
    if (holds_stream_slot_) {
      holds_stream_slot_ = false;
      key_->close_stream();
    }
    auto now = Clock::now();
    double secs = std::chrono::duration<double>(now - start_).count();
    std::string_view model = model_.empty() ? std::string_view("unknown") : model_;
    ctx_->metrics.request(route_, model, status, secs);
    if (trace_) {
      trace_->finish(status);  // to the store's queue: written off this thread
      trace_.reset();
    }
    if (ctx_->options.log_requests && ctx_->options.log) {
      char line[512];
      std::snprintf(line, sizeof line, "%s model=%.*s upstream=%s status=%d %s ms=%.3f",
                    route_.data(), static_cast<int>(model.size()), model.data(),
                    upstream_ ? upstream_->target_name().c_str() : "-", status,
                    stream_ ? "stream" : "whole", secs * 1e3);
      ctx_->log(line);
    }
  }

  GatewayKey* key_;  // owned by the gateway's KeyRing, which outlives every call
  bool holds_stream_slot_ = false;
  std::shared_ptr<RouteContext> ctx_;
  const dialects::Dialect* dialect_;
  const dialects::Codec& codec_;
  std::string_view route_;
  Ingress ingress_;
  ResponseRecorder recorder_;  // previous_response_id and the store
  std::shared_ptr<http::Exchange> ex_;
  Clock::time_point start_{};
  Warnings warnings_;
  ir::Request request_;
  std::string model_;
  bool stream_ = false;
  std::shared_ptr<UpstreamCall> upstream_;       // once routed
  std::shared_ptr<StreamRelay> relay_;           // streams only
  std::unique_ptr<ToolRounds> rounds_;           // server and mixed tool modes
  std::shared_ptr<traces::RequestTrace> trace_;  // null: no trace store
  bool done_ = false;
  bool paused_ = false;  // the upstream is not read: the client is behind (pause())
};

}  // namespace

void handle_model_call(std::shared_ptr<RouteContext> ctx, Ingress ingress, GatewayKey* key,
                       std::shared_ptr<http::Exchange> ex, http::Request&& req) {
  auto call = std::make_shared<ModelCall>(std::move(ctx), std::move(ingress), key, std::move(ex));
  call->start(std::move(req));
}

}  // namespace toolwire::gateway::routes
