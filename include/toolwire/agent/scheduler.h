// toolwire/agent/scheduler.h — the executor an asynchronous run is stepped on.
//
// An AgentRun never blocks and never creates a thread: it runs every step
// inside a function handed to `post`, and waits for time (remote-call
// deadlines) through `post_after`. The caller decides where that is: the
// gateway posts to a Boost.Asio strand and arms a steady_timer; the blocking
// Agent::run() uses a RunLoop (run_loop.h) on its own thread.
//
//   agent::Scheduler s;
//   s.post = [strand](std::function<void()> f) { asio::post(strand, std::move(f)); };
//   s.post_after = [strand](std::chrono::milliseconds d, std::function<void()> f) {
//     auto t = std::make_shared<asio::steady_timer>(strand, d);
//     t->async_wait([t, f = std::move(f)](std::error_code ec) { if (!ec) f(); });
//     return agent::TimerHandle([t] { t->cancel(); });   // called on the strand only
//   };
//
// Contract: functions given to `post` and `post_after` run one at a time
// (serialised, never concurrently with each other), never inline inside the
// post/post_after call, in posting order for `post`. `post` is called from
// any thread (provider callbacks, executor workers, submit_result callers);
// `post_after` and TimerHandle::cancel() only from inside posted functions.
// After the executor is gone, posting must be harmless (drop the function).
#pragma once

#include <chrono>
#include <functional>
#include <memory>
#include <utility>

namespace toolwire::agent {

using Post = std::function<void(std::function<void()>)>;

// Cancels a timer armed with Scheduler::post_after. A cancelled timer's
// function may still run if it was already due; the run ignores it then.
class TimerHandle {
 public:
  TimerHandle() = default;
  explicit TimerHandle(std::function<void()> cancel)
      : cancel_(std::make_shared<std::function<void()>>(std::move(cancel))) {}
  void cancel() const {
    if (cancel_ && *cancel_) (*cancel_)();
  }

 private:
  std::shared_ptr<std::function<void()>> cancel_;
};

struct Scheduler {
  Post post;
  std::function<TimerHandle(std::chrono::milliseconds, std::function<void()>)> post_after;
};

}  // namespace toolwire::agent
