// One model call over a route's targets: the first target, then, after a
// retryable failure before the first byte reached the client, the next
// (upstream_failure.h). Each attempt's I/O and callbacks run on the
// connection's thread, with what is left of the client's deadline, and an
// attempt is cut when its upstream sends no content for
// upstream_content_idle (a whole answer: when none came within it).
// Used on the connection's thread only.
#pragma once

#include <cstdint>
#include <functional>
#include <memory>
#include <optional>
#include <string>
#include <vector>

#include "gateway/http/exchange.h"
#include "gateway/routes/context.h"
#include "gateway/routes/event_backlog.h"
#include "gateway/traces/request_trace.h"
#include "toolwire/provider/provider.h"
#include "toolwire/transport/timer_wheel.h"

namespace toolwire::gateway::routes {

class UpstreamCall : public std::enable_shared_from_this<UpstreamCall> {
 public:
  // Where one call's answer goes. Dropped once on_done has run, or at cancel().
  struct Sink {
    std::function<void(const ir::StreamEvent&)> on_event;       // streams: each event
    std::function<void(Result<provider::Generation>)> on_done;  // once
    std::function<bool()> may_retry;  // false once the client has bytes (or left)
  };

  UpstreamCall(std::shared_ptr<RouteContext> ctx, std::shared_ptr<http::Exchange> ex,
               std::vector<RouteTarget> targets, bool stream,
               std::optional<int64_t> client_deadline_ms, http::Clock::time_point received);

  // Starts a call at the first target (again for each round of server tools).
  void start(ir::Request request, Sink sink);
  // Cancels the call out, if any; no callback after this either way.
  void cancel();
  // Flow control: the client is behind (true) or has caught up (false); also
  // applies to the attempts that follow.
  void set_paused(bool paused);
  // What adapting the request for the upstream dropped (the answer's head).
  const Warnings& warnings() const { return call_.warnings(); }
  // The target of the current (or last) attempt, for logs.
  const std::string& target_name() const { return targets_[target_].name; }
  // The request's trace: each start() is a model-call span (null: none).
  std::shared_ptr<traces::RequestTrace> trace;
  std::string caller_dialect;  // for the span

 private:
  struct Hold;
  void attempt();
  void on_event(uint64_t gen, const ir::StreamEvent& e);
  void on_done(uint64_t gen, Result<provider::Generation> result);
  void finish(Result<provider::Generation> result);
  void arm_timer();
  void disarm_timer();
  void on_timer();

  std::shared_ptr<RouteContext> ctx_;
  std::shared_ptr<http::Exchange> ex_;
  std::vector<RouteTarget> targets_;
  bool stream_;
  std::optional<int64_t> client_deadline_ms_;
  http::Clock::time_point received_;
  transport::TimerWheel& wheel_;              // the connection's worker's
  transport::Deadline timer_;                 // the upstream's content idle time
  std::shared_ptr<UpstreamCall> armed_self_;  // while timer_ is armed
  http::Clock::time_point last_content_{};
  ir::Request request_;  // kept for the next target while one may follow
  Sink sink_;
  size_t target_ = 0;
  uint64_t gen_ = 0;  // attempt number: an earlier attempt's callbacks are dropped
  provider::ProviderCall call_;
  bool paused_ = false;
  // A stream's pause, shared with the transport's thread (event_backlog.h).
  std::shared_ptr<EventBacklog> backlog_;
  size_t span_ = 0;
  bool span_open_ = false;
  bool first_byte_traced_ = false;  // model_first_byte() called for span_
  void end_span(const Result<provider::Generation>& result);
};

}  // namespace toolwire::gateway::routes
