// toolwire/tools/executor.h — runs tool calls on a fixed pool.
//
// A fixed pool of `max_concurrency` worker threads and one timer thread
// (created once, no thread per call) takes calls in order. Each call gets a
// deadline when it starts (its tool's timeout or the default); at the
// deadline the timer thread delivers an is_error timeout result and cancels
// the handler's token (cooperative: a handler that ignores it keeps its
// worker until it returns, and what it returns then is dropped). An exclusive
// tool runs only when no other call runs, and nothing else starts while it
// runs.
//
// Asynchronous form: submit() queues one call and returns at once; `on_done`
// runs exactly once, from whichever thread settles the call (a worker, the
// timer thread, the thread that cancels, or the caller when the call fails
// lookup or validation). It must not block: post the result on.
//
//   tools::Executor ex(registry, {.max_concurrency = 8});
//   tools::CallHandle h = ex.submit(call, {}, [loop](ir::ToolResultPart r) {
//     loop.post([r = std::move(r)] { ... });
//   });
//   h.cancel();                                                // any thread
//
// Blocking form, a thin wrapper over submit():
//   std::vector<ir::ToolResultPart> results = ex.run(calls);   // call order
//
// submit()/run() may be called from several threads; all calls share the
// pool and the exclusivity rule. The destructor waits for running handlers
// and settles calls that never started with an error.
#pragma once

#include <chrono>
#include <condition_variable>
#include <deque>
#include <functional>
#include <map>
#include <memory>
#include <mutex>
#include <optional>
#include <span>
#include <thread>
#include <vector>

#include "toolwire/ir/parts.h"
#include "toolwire/tools/registry.h"

namespace toolwire::tools {

struct ExecutorOptions {
  size_t max_concurrency = 4;  // worker threads, >= 1
  std::chrono::milliseconds default_timeout{std::chrono::seconds(30)};
};

struct BatchOptions {
  std::shared_ptr<std::any> session;  // handed to every call's ToolContext
  // When set and cancelled, every unfinished call of the batch gets an error
  // result and its handler's token is cancelled.
  std::optional<CancellationToken> cancel;
};

// Options of one submitted call.
struct CallOptions {
  std::shared_ptr<std::any> session;  // handed to the call's ToolContext
  // Used when the tool sets no timeout of its own; else the executor's default.
  std::optional<std::chrono::milliseconds> timeout;
};

using ResultCallback = std::function<void(ir::ToolResultPart)>;

struct ExecutorJob;  // private to the executor

// A submitted call. Copyable; empty when default-constructed.
class CallHandle {
 public:
  CallHandle() = default;
  // Settles the call now with "tool 'x' cancelled" unless it already has a
  // result (on_done runs inside this call then) and cancels the handler's
  // token. Any thread, any number of times, also after the executor is gone.
  void cancel() const;
  // True once the call has its result.
  bool done() const;

 private:
  friend class Executor;
  explicit CallHandle(std::shared_ptr<ExecutorJob> job) : job_(std::move(job)) {}
  std::shared_ptr<ExecutorJob> job_;
};

class Executor {
 public:
  Executor(const Registry& registry, ExecutorOptions opts = {});
  ~Executor();
  Executor(const Executor&) = delete;
  Executor& operator=(const Executor&) = delete;

  // Prepares the call (lookup, parse, validation) on this thread and queues
  // it. `on_done` gets its result exactly once; see the top of this file.
  CallHandle submit(const ir::ToolCallPart& call, const CallOptions& opts, ResultCallback on_done);

  // Blocking: every call's result, in call order.
  std::vector<ir::ToolResultPart> run(std::span<const ir::ToolCallPart> calls,
                                      const BatchOptions& opts = {});
  ir::ToolResultPart run_one(const ir::ToolCallPart& call, const BatchOptions& opts = {});

  size_t max_concurrency() const { return workers_.size(); }

 private:
  using Job = std::shared_ptr<ExecutorJob>;
  void worker_loop(std::stop_token st);
  void timer_loop(std::stop_token st);
  void arm_timer(const Job& job);
  void disarm_timer(const Job& job);
  bool can_start(const Job& job) const;  // requires mu_

  const Registry& registry_;
  ExecutorOptions opts_;

  std::mutex mu_;
  std::condition_variable_any cv_;
  std::deque<Job> queue_;
  size_t running_ = 0;
  bool exclusive_running_ = false;
  bool stopping_ = false;

  // Deadlines of running calls; one thread settles the expired ones.
  std::mutex timer_mu_;
  std::condition_variable_any timer_cv_;
  std::multimap<Clock::time_point, std::weak_ptr<ExecutorJob>> deadlines_;

  std::jthread timer_;
  std::vector<std::jthread> workers_;
};

}  // namespace toolwire::tools
