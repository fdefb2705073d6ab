// toolwire/tools/executor.h — runs a batch of tool calls concurrently.
//
// A fixed pool of `max_concurrency` worker threads (created once, no thread
// per call) takes calls in order. Results come back in call order with their
// call ids. Each call gets a deadline when it starts (its tool's timeout or
// the default); at the deadline the result becomes an is_error timeout and
// the handler's token is cancelled (cooperative: a handler that ignores it
// keeps its worker until it returns). An exclusive tool runs only when no
// other call runs, and nothing else starts while it runs.
//
//   tools::Executor ex(registry, {.max_concurrency = 8});
//   std::vector<ir::ToolResultPart> results = ex.run(calls);   // blocks
//
// run() may be called from several threads; all batches share the pool and
// the exclusivity rule. The destructor waits for running handlers.
#pragma once

#include <chrono>
#include <condition_variable>
#include <deque>
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
  size_t max_concurrency = 4;                                   // worker threads, >= 1
  std::chrono::milliseconds default_timeout{std::chrono::seconds(30)};
};

struct BatchOptions {
  std::shared_ptr<std::any> session;  // handed to every call's ToolContext
  // When set and cancelled, every unfinished call of the batch gets an error
  // result and its handler's token is cancelled.
  std::optional<CancellationToken> cancel;
};

class Executor {
 public:
  Executor(const Registry& registry, ExecutorOptions opts = {});
  ~Executor();
  Executor(const Executor&) = delete;
  Executor& operator=(const Executor&) = delete;

  std::vector<ir::ToolResultPart> run(std::span<const ir::ToolCallPart> calls,
                                      const BatchOptions& opts = {});
  ir::ToolResultPart run_one(const ir::ToolCallPart& call, const BatchOptions& opts = {});

  size_t max_concurrency() const { return workers_.size(); }

 private:
  struct Batch;
  struct Task {
    std::shared_ptr<Batch> batch;
    size_t index;
  };
  void worker_loop(std::stop_token st);
  bool can_start(const Task& t) const;  // requires mu_
  bool is_exclusive(const Task& t) const;

  const Registry& registry_;
  ExecutorOptions opts_;
  std::mutex mu_;
  std::condition_variable_any cv_;
  std::deque<Task> queue_;
  size_t running_ = 0;
  bool exclusive_running_ = false;
  std::vector<std::jthread> workers_;
};

}  // namespace toolwire::tools
