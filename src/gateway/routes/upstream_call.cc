#include "gateway/routes/upstream_call.h"

#include <algorithm>

#include "gateway/routes/upstream_failure.h"
#include "toolwire/transport/asio_client.h"

namespace toolwire::gateway::routes {
namespace {

using http::Clock;

bool is_content(const ir::StreamEvent& e) {
  return std::holds_alternative<ir::TextDelta>(e) || std::holds_alternative<ir::ThinkingDelta>(e) ||
         std::holds_alternative<ir::ToolCallStart>(e) ||
         std::holds_alternative<ir::ToolCallDelta>(e);
}

}  // namespace

// The provider's hold on an attempt. It counts as in flight until the
// provider has dropped its callbacks, not merely called them: the last
// reference may go on the transport's thread after the answer is out, and
// Gateway::wait() must not let the executor go before that.
struct UpstreamCall::Hold {
  explicit Hold(std::shared_ptr<UpstreamCall> c) : call(std::move(c)), ctx(call->ctx_) {
    ctx->upstream_calls.begin();
  }
  ~Hold() {
    call.reset();  // the call may end here, while the executor is still there
    ctx->upstream_calls.end();
  }
  Hold(const Hold&) = delete;
  Hold& operator=(const Hold&) = delete;
  std::shared_ptr<UpstreamCall> call;
  std::shared_ptr<RouteContext> ctx;
};

UpstreamCall::UpstreamCall(std::shared_ptr<RouteContext> ctx, std::shared_ptr<http::Exchange> ex,
                           std::vector<RouteTarget> targets, bool stream,
                           std::optional<int64_t> client_deadline_ms, Clock::time_point received)
    : ctx_(std::move(ctx)),
      ex_(std::move(ex)),
      targets_(std::move(targets)),
      stream_(stream),
      client_deadline_ms_(client_deadline_ms),
      received_(received),
      wheel_(transport::TimerWheel::of(ex_->io_context())) {}

void UpstreamCall::start(ir::Request request, Sink sink) {
  request_ = std::move(request);
  sink_ = std::move(sink);
  target_ = 0;
  if (trace) {
    const RouteTarget& t = targets_[0];
    span_ = trace->model_begin(t.upstream_model.empty() ? request_.model : t.upstream_model, t.name,
                               t.provider->name(), caller_dialect, stream_);
    span_open_ = true;
    first_byte_traced_ = false;
  }
  attempt();
}

void UpstreamCall::cancel() {
  bool out = static_cast<bool>(sink_.on_done);  // a finished call is not cancelled
  if (out) end_span(make_error(ErrorCode::cancelled, "cancelled"));
  sink_ = {};
  ++gen_;
  disarm_timer();
  if (out) call_.cancel();
}

void UpstreamCall::set_paused(bool paused) {
  paused_ = paused;
  if (!paused) last_content_ = Clock::now();  // the client's time, not the upstream's idle time
  if (!sink_.on_done) return;
  if (backlog_)
    backlog_->set_client_paused(paused);
  else
    call_.set_paused(paused);
}

void UpstreamCall::attempt() {
  const RouteTarget& t = targets_[target_];
  bool last = target_ + 1 == targets_.size();
  ir::Request r = last ? std::move(request_) : request_;  // a fallback needs its own copy
  if (!t.upstream_model.empty()) r.model = t.upstream_model;
  if (client_deadline_ms_) {  // what is left of it
    auto spent =
        std::chrono::duration_cast<std::chrono::milliseconds>(Clock::now() - received_).count();
    r.deadline_ms = std::max<int64_t>(1, *client_deadline_ms_ - spent);
  }
  uint64_t gen = ++gen_;
  last_content_ = Clock::now();
  auto hold = std::make_shared<Hold>(shared_from_this());
  auto done = [hold, gen](Result<provider::Generation> result) {
    auto self = hold->call;
    auto ex = self->ex_;
    ex->dispatch([self, gen, result = std::move(result)]() mutable {
      self->on_done(gen, std::move(result));
    });
  };
  // The upstream call's I/O and callbacks run on this connection's thread.
  transport::StrandScope scope(ex_->executor());
  if (stream_) {
    auto backlog = std::make_shared<EventBacklog>(ex_->max_queued_bytes());
    backlog->set_client_paused(paused_);  // a later round, the client still behind
    auto on_event = [hold, gen, backlog](const ir::StreamEvent& e) {
      const auto& self = hold->call;
      if (self->ex_->on_strand()) return self->on_event(gen, e);
      // From the transport's own thread: counted until handled here.
      const size_t n = EventBacklog::bytes_of(e);
      backlog->posted(n);
      self->ex_->post([self, gen, e, n, backlog] {
        self->on_event(gen, e);
        backlog->handled(n);
      });
    };
    backlog_ = backlog;
    call_ = t.provider->stream(std::move(r), std::move(on_event), std::move(done));
    backlog->attach(call_);
  } else {
    backlog_.reset();
    call_ = t.provider->generate(std::move(r), std::move(done));
  }
  arm_timer();
}

void UpstreamCall::on_event(uint64_t gen, const ir::StreamEvent& e) {
  if (gen != gen_ || !sink_.on_event) return;
  if (is_content(e)) {
    last_content_ = Clock::now();
    // Once per span: the span's lookup of the attribute at every content
    // event was 2 k instructions per streamed request.
    if (span_open_ && !first_byte_traced_) {
      first_byte_traced_ = true;
      trace->model_first_byte(span_);
    }
  }
  sink_.on_event(e);
}

void UpstreamCall::on_done(uint64_t gen, Result<provider::Generation> result) {
  if (gen != gen_ || !sink_.on_done) return;
  disarm_timer();
  const RouteTarget& t = targets_[target_];
  if (!result) {
    const Error& e = result.error();
    ctx_->metrics.upstream_attempt(t.name, error_kind(e));
    if (retryable(e) && target_ + 1 < targets_.size() && sink_.may_retry()) {
      ctx_->log("upstream " + t.name + " failed (" + std::string(error_kind(e)) +
                "), trying the next one: " + e.to_string());
      ++target_;
      return attempt();
    }
  } else {
    ctx_->metrics.upstream_attempt(t.name, "");
  }
  finish(std::move(result));
}

void UpstreamCall::end_span(const Result<provider::Generation>& result) {
  if (!span_open_ || !trace) return;
  span_open_ = false;
  const RouteTarget& t = targets_[target_];
  trace->model_end(span_, t.name, t.provider->name(), static_cast<int>(target_) + 1, result,
                   call_.warnings());
}

void UpstreamCall::finish(Result<provider::Generation> result) {
  end_span(result);
  Sink sink = std::move(sink_);  // the callback may start the next call, or cancel
  sink_ = {};
  sink.on_done(std::move(result));
}

// On the worker's timer wheel: arming and cancelling it costs no Asio timer
// operation per request. While armed the call holds itself (as a pending
// Asio wait did), so it never ends armed, which could be on the transport's
// thread, away from the wheel's.
void UpstreamCall::arm_timer() {
  if (!sink_.on_done) return;  // an in-process provider may have answered already
  if (!armed_self_) armed_self_ = shared_from_this();
  timer_.arm(
      wheel_, last_content_ + ctx_->options.upstream_content_idle,
      [](void* p) {
        auto self = std::move(static_cast<UpstreamCall*>(p)->armed_self_);
        if (self->sink_.on_done) self->on_timer();
      },
      this);
}

void UpstreamCall::disarm_timer() {
  timer_.cancel();
  armed_self_.reset();  // the caller holds the call too
}

void UpstreamCall::on_timer() {
  auto now = Clock::now();
  if (paused_) last_content_ = now;  // waiting for the client, not for the upstream
  const auto idle = ctx_->options.upstream_content_idle;
  if (now - last_content_ < idle) return arm_timer();
  ++gen_;
  call_.cancel();
  auto ms = std::chrono::duration_cast<std::chrono::milliseconds>(idle).count();
  const std::string who = "upstream '" + targets_[target_].name + "' timed out: ";
  Error e = make_error(ErrorCode::deadline_exceeded,
                       stream_ ? who + "it sent no content for " + std::to_string(ms) + " ms"
                               : who + "no answer within " + std::to_string(ms) + " ms");
  e.http_status = 504;
  e.upstream = true;
  ctx_->metrics.upstream_attempt(targets_[target_].name, "idle_timeout");
  finish(e);
}

}  // namespace toolwire::gateway::routes
