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

#include <algorithm>
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
    req_ = std::move(req);
    start_ = req_.received;
    if (ctx_->traces || ctx_->otlp)
      trace_ = std::make_shared<traces::RequestTrace>(ctx_->traces, ctx_->otlp, "request",
                                                      std::string(route_),
                                                      key_ ? key_->config().name : "", false);
    ctx_->metrics.bytes_in(req_.body.size());
    auto decoded = codec_.decode_request(req_.body, warnings_);
    if (!decoded) return reject(decoded.error());
    request_ = std::move(*decoded);
    // A dialect whose path names the model and the stream flag: the path's.
    if (!ingress_.model.empty()) request_.model = ingress_.model;
    if (ingress_.stream) request_.stream = *ingress_.stream;
    if (dialect_->ingress.response_store && ctx_->shared && ctx_->response_store.enabled())
      return fetch_shared();
    resolve(ctx_->response_store);
  }

 private:
  // With shared state, the answers this request names are fetched from
  // Redis first (one MGET), into a store of this request's own, which also
  // writes its answer through to Redis.
  void fetch_shared() {
    const auto& refs = dialect_->ingress.item_references;
    std::string scope = key_scope(key_);
    std::string previous;
    if (auto id = previous_response_id(request_)) previous = scoped_response_id(scope, *id);
    std::vector<std::string> items;
    if (refs.id_of)
      for (const auto& m : request_.messages)
        for (const auto& p : m.parts)
          if (auto id = refs.id_of(p)) items.push_back(scoped_response_id(scope, *id));
    shared_store_ = std::make_unique<ResponseStore>();
    shared_store_->set_limits(SIZE_MAX, SIZE_MAX);
    auto write_through = [weak = weak_from_this()](const std::string& id,
                                                   const ResponseStore::Conversation& c,
                                                   const ResponseStore::Items& i) {
      auto self = weak.lock();
      if (!self) return;
      self->storing_ = true;
      self->ctx_->shared->store(id, c, i, [weak] {
        if (auto s = weak.lock()) s->ex_->post([s] { s->finish_now(); });
      });
    };
    if (previous.empty() && items.empty()) {
      shared_store_->set_on_put(std::move(write_through));
      return resolve(*shared_store_);
    }
    ctx_->shared->fetch(previous, items,
                        [self = shared_from_this(), previous, items,
                         write_through](Result<shared_state::SharedState::Found> r) {
                          self->ex_->post([self, previous, items, write_through, r = std::move(r)] {
                            if (self->ex_->closed()) return self->gone_early();
                            if (!r) {
                              Error e = r.error();
                              e.http_status = 503;
                              return self->reject(e);
                            }
                            ResponseStore& store = *self->shared_store_;
                            if (r->conversation) store.put(previous, std::move(*r->conversation));
                            for (size_t i = 0; i < items.size() && i < r->items.size(); ++i)
                              if (r->items[i])
                                store.put(
                                    "\x01" + items[i], {},
                                    {dialects::StoredItem{items[i], std::move(*r->items[i])}});
                            store.set_on_put(write_through);
                            self->resolve(store);
                          });
                        });
  }

  ResponseStore& store() { return shared_store_ ? *shared_store_ : ctx_->response_store; }

  // previous_response_id and item_references from `store`, then the rest.
  void resolve(ResponseStore& store) {
    if (auto store_error = dialect_->ingress.response_store) {
      const auto& refs = dialect_->ingress.item_references;
      if (auto w = resolve_item_references(store, request_, key_scope(key_), req_.body, refs,
                                           store_error))
        return reject_wire(std::move(*w));
      if (auto w = recorder_.begin(store, request_, key_scope(key_), store_error, refs))
        return reject_wire(std::move(*w));
    }
    proceed();
  }

  void proceed() {
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
    targets_ = std::move(*targets);
    model_ = request_.model;
    stream_ = request_.stream;
    if (trace_) {
      trace_->trace().model = model_;
      // The route's choice, made once for the request (its first target's).
      trace_->set_capture(targets_.front().capture_content);
    }
    // The route's loss policy: here for what reading the request lost, in
    // the provider (before sending) for what translating it would lose.
    request_.on_loss = targets_.front().on_loss;
    if (auto e = request_.on_loss.check(warnings_,
                                        "reading the " + std::string(codec_.name()) + " request"))
      return reject(*e);
    const auto tools = targets_.front().tools;
    // The route's tools now (an MCP server's list_changed may replace them
    // later; this request keeps these).
    auto registry = tools ? tools->current() : nullptr;
    if (registry && (tools->mode != ToolMode::passthrough ||
                     (tools->builtin_when_client_has_no_tools && request_.tools.empty()))) {
      bool comments =
          req_.header("toolwire-tool-events") == "comments" && stream_shape(codec_).sse_comments;
      rounds_ = std::make_unique<ToolRounds>(*ctx_, tools, std::move(registry), key_scope(key_),
                                             stream_, comments);
      if (auto err = rounds_->prepare(request_)) return reject(*err);
      rounds_->trace = trace_;
    }
    if (stream_ && key_) {
      if (ctx_->shared && key_->config().max_concurrent_streams > 0) return open_shared_slot();
      if (!key_->open_stream()) return reject(streams_full());
      holds_stream_slot_ = true;
    }
    launch();
  }

  Error streams_full() const {
    Error e =
        make_error(ErrorCode::resource_exhausted,
                   "key '" + key_->config().name + "' already has " +
                       std::to_string(key_->config().max_concurrent_streams) + " streams open");
    e.http_status = 429;
    return e;
  }

  // max_concurrent_streams across replicas: a lease in Redis (one round trip).
  void open_shared_slot() {
    ctx_->shared->open_stream(
        *key_, [self = shared_from_this()](Result<std::optional<shared_state::StreamSlot>> r) {
          self->ex_->post([self, r = std::move(r)] {
            if (r && *r) {
              self->slot_ = std::move(**r);
              self->holds_shared_slot_ = true;
            }
            if (self->ex_->closed()) return self->gone_early();
            if (!r) {  // Redis failed and the limits fail closed
              Error e = r.error();
              e.http_status = 503;
              return self->reject(e);
            }
            if (!*r) return self->reject(self->streams_full());
            self->launch();
          });
        });
  }

  // The client left while Redis answered: nothing was started.
  void gone_early() {
    if (done_) return;
    done_ = true;
    finish_metrics(499);
  }

  void launch() {
    if (stream_) {
      relay_ = std::make_shared<StreamRelay>(ex_, *ctx_, codec_);
      relay_->on_behind = [weak = weak_from_this()] {
        if (auto self = weak.lock()) self->pause();
      };
    }
    upstream_ = std::make_shared<UpstreamCall>(ctx_, ex_, std::move(targets_), stream_,
                                               client_deadline_ms(req_), start_);
    upstream_->trace = trace_;
    upstream_->caller_dialect = std::string(codec_.name());
    std::string().swap(req_.body);  // decoded: not held for the answer's whole life
    ex_->on_close([self = shared_from_this()] { self->client_gone(); });
    if (rounds_) return rounds_->start(shared_from_this(), std::move(request_));
    upstream_->start(std::move(request_), sink(nullptr));
  }

 public:
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
    if (rounds_) keep_round_warnings(rounds_->lost());
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
        if (r) self->keep_round_warnings(r->warnings);
        done(std::move(r));
      };
    else
      s.on_done = [self](Result<provider::Generation> r) { self->on_done(std::move(r)); };
    return s;
  }

  void begin() {
    count_warnings(warnings_, "header");
    if (upstream_) count_warnings(upstream_->warnings(), "header");
    relay_->begin(warning_headers());
  }

  void count_warnings(const Warnings& ws, std::string_view stage) {
    for (const auto& w : ws) ctx_->metrics.translation_warning(route_, w.code, stage);
  }

  // A stream's losses found after its headers went out: what the upstream's
  // stream carried that its events could not (the decoder's warnings, in
  // `decoded` after the request's own, which the header named) and what the
  // caller's dialect could not say of the events (the relay's encoder). No
  // header can name them and `on_loss: error` cannot refuse them any more:
  // they go to the model call's span (`toolwire.stream_warnings`), the
  // metrics (stage "stream") and the log. docs/translation.md, "Streams".
  void report_stream_warnings() {
    if (!relay_ || !relay_->begun()) return;
    Warnings late;
    auto named = [&](const Warning& w, const Warnings& in) {
      return std::any_of(in.begin(), in.end(),
                         [&](const Warning& x) { return x.code == w.code && x.path == w.path; });
    };
    for (const auto& w : stream_decoded_)
      if (!named(w, warnings_) && !(upstream_ && named(w, upstream_->warnings())) &&
          !named(w, late))
        late.push_back(w);
    for (const auto& w : relay_->warnings())
      if (!named(w, late)) late.push_back(w);
    if (late.empty()) return;
    count_warnings(late, "stream");
    std::string items = format_warnings(late, {});
    if (trace_) trace_->stream_warnings(items);
    ctx_->log(std::string(route_) + " stream: lost after the headers were sent: " + items);
  }

  // A server-tool round's losses (its request's and its answer's decoding):
  // reported with the client's one answer as a passthrough call's are, in
  // the header of a whole answer, else by report_stream_warnings().
  void keep_round_warnings(const Warnings& round) {
    Warnings& into = stream_ ? stream_decoded_ : warnings_;
    for (const auto& w : round)
      if (std::none_of(into.begin(), into.end(),
                       [&](const Warning& x) { return x.code == w.code && x.path == w.path; }))
        into.push_back(w);
  }

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
      if (trace_) trace_->tool_returned(s->name, s->id, {}, s->index);
    } else if (const auto* d = std::get_if<ir::ToolCallDelta>(&shown); d && trace_) {
      trace_->tool_returned_arguments(d->index, d->fragment);
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
      stream_decoded_ = std::move(result->warnings);
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
          trace_->tool_returned(c->name, c->id, c->arguments);
    Warnings encode_warnings;
    auto body = codec_.encode_response(resp, encode_warnings);
    if (!body) return fail(body.error());
    done_ = true;
    count_warnings(warnings_, "header");
    count_warnings(encode_warnings, "header");
    http::Headers h;
    std::string v = format_warnings(warnings_, encode_warnings);
    if (!v.empty()) h.emplace_back("toolwire-warnings", std::move(v));
    after_store([self = shared_from_this(), body = std::move(*body), h = std::move(h)] {
      self->ex_->respond(200, "application/json", body, h);
      self->ctx_->metrics.bytes_out(body.size());
      self->finish_metrics(200);
    });
    recorder_.done(store(), resp);
    stored();
  }

  void end(int status) {
    done_ = true;
    report_stream_warnings();
    after_store([self = shared_from_this(), status] {
      self->relay_->end();
      self->finish_metrics(status);
    });
    if (status == 200) recorder_.stream_done(store());
    stored();
  }

  // The answer's end waits, with shared state, until Redis has the answer:
  // once a client has the whole answer, every replica finds its id.
  void after_store(std::function<void()> finish) {
    finish_ = std::move(finish);
    storing_ = false;
  }
  // After the recorder ran: finishes now unless a write to Redis is under
  // way (its reply or its deadline finishes).
  void stored() {
    if (!storing_) finish_now();
  }
  void finish_now() {
    if (!finish_) return;
    auto f = std::move(finish_);
    finish_ = nullptr;
    f();
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
    if (holds_shared_slot_) {
      holds_shared_slot_ = false;
      ctx_->shared->close_stream(*key_, slot_);
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
  bool holds_shared_slot_ = false;
  shared_state::StreamSlot slot_;  // with shared state: the lease (or this replica's slot)
  http::Request req_;
  std::vector<RouteTarget> targets_;
  std::unique_ptr<ResponseStore> shared_store_;  // with shared state: this request's answers
  std::function<void()> finish_;                 // the answer's end, once it is stored
  bool storing_ = false;                         // a write to Redis is under way
  std::shared_ptr<RouteContext> ctx_;
  const dialects::Dialect* dialect_;
  const dialects::Codec& codec_;
  std::string_view route_;
  Ingress ingress_;
  ResponseRecorder recorder_;  // previous_response_id and the store
  std::shared_ptr<http::Exchange> ex_;
  Clock::time_point start_{};
  Warnings warnings_;
  Warnings stream_decoded_;  // a stream's Generation::warnings (report_stream_warnings)
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
