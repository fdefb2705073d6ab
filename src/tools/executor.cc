// Executor: a fixed worker pool with one FIFO queue. The caller of run()
// prepares (parses, validates) each call, queues the good ones, then watches
// deadlines: a call that runs past its deadline gets its timeout result right
// away and its token cancelled, whatever its handler does.
#include "toolwire/tools/executor.h"

#include <algorithm>
#include <string>

namespace toolwire::tools {

struct Executor::Batch {
  struct Slot {
    std::optional<PreparedCall> prepared;
    ToolContext ctx;                 // owned by the worker while running
    CancellationToken token;         // same state as ctx.cancel, for the watcher
    std::chrono::milliseconds timeout{0};
    bool started = false;
    Clock::time_point deadline = Clock::time_point::max();
    std::optional<ir::ToolResultPart> result;
  };
  std::vector<Slot> slots;
  std::mutex mu;
  std::condition_variable cv;
  size_t remaining = 0;
};

Executor::Executor(const Registry& registry, ExecutorOptions opts) : registry_(registry), opts_(opts) {
  size_t n = std::max<size_t>(1, opts_.max_concurrency);
  workers_.reserve(n);
  for (size_t i = 0; i < n; ++i) workers_.emplace_back([this](std::stop_token st) { worker_loop(st); });
}

Executor::~Executor() {
  for (auto& w : workers_) w.request_stop();
  cv_.notify_all();
  workers_.clear();  // joins; waits for handlers still running
}

bool Executor::is_exclusive(const Task& t) const {
  const auto& p = t.batch->slots[t.index].prepared;
  return p && p->tool->exclusive();
}

bool Executor::can_start(const Task& t) const {
  if (exclusive_running_) return false;
  return !is_exclusive(t) || running_ == 0;
}

void Executor::worker_loop(std::stop_token st) {
  while (true) {
    Task task;
    bool exclusive = false;
    {
      std::unique_lock<std::mutex> lock(mu_);
      bool ready = cv_.wait(lock, st, [&] { return !queue_.empty() && can_start(queue_.front()); });
      if (!ready) return;  // stop requested with nothing runnable
      task = std::move(queue_.front());
      queue_.pop_front();
      exclusive = is_exclusive(task);
      ++running_;
      exclusive_running_ = exclusive;
    }
    cv_.notify_all();  // the next task may be startable by another worker

    Batch& b = *task.batch;
    Batch::Slot& slot = b.slots[task.index];
    bool skip;
    {
      std::lock_guard<std::mutex> lock(b.mu);
      skip = slot.result.has_value();  // batch cancelled before this call started
      if (!skip) {
        slot.started = true;
        slot.deadline = Clock::now() + slot.timeout;
        slot.ctx.deadline = slot.deadline;
      }
    }
    if (!skip) {
      b.cv.notify_all();
      ToolOutput out = run_handler(*slot.prepared, slot.ctx);
      {
        std::lock_guard<std::mutex> lock(b.mu);
        if (!slot.result) {
          slot.result = to_result(slot.ctx.call_id, std::move(out));
          --b.remaining;
        }
      }
      b.cv.notify_all();
    }
    {
      std::lock_guard<std::mutex> lock(mu_);
      --running_;
      if (exclusive) exclusive_running_ = false;
    }
    cv_.notify_all();
  }
}

std::vector<ir::ToolResultPart> Executor::run(std::span<const ir::ToolCallPart> calls, const BatchOptions& opts) {
  auto batch = std::make_shared<Batch>();
  Batch& b = *batch;
  b.slots.resize(calls.size());
  std::vector<Task> tasks;
  for (size_t i = 0; i < calls.size(); ++i) {
    Batch::Slot& slot = b.slots[i];
    Result<PreparedCall> p = registry_.prepare(calls[i]);
    if (!p) {
      slot.result = error_result(calls[i].id, p.error().message);
      continue;
    }
    slot.prepared = std::move(*p);
    slot.ctx.call_id = calls[i].id;
    slot.ctx.tool_name = slot.prepared->tool->name();
    slot.ctx.session = opts.session;
    slot.token = slot.ctx.cancel;
    slot.timeout = slot.prepared->tool->spec().timeout.value_or(opts_.default_timeout);
    tasks.push_back(Task{batch, i});
  }
  b.remaining = tasks.size();
  if (!tasks.empty()) {
    {
      std::lock_guard<std::mutex> lock(mu_);
      for (auto& t : tasks) queue_.push_back(std::move(t));
    }
    cv_.notify_all();
  }

  std::unique_lock<std::mutex> lock(b.mu);
  while (b.remaining > 0) {
    auto now = Clock::now();
    if (opts.cancel && opts.cancel->cancelled()) {
      for (auto& s : b.slots) {
        if (s.result) continue;
        s.token.cancel();
        s.result = error_result(s.ctx.call_id, "tool '" + s.prepared->tool->wire_name() + "' cancelled");
        --b.remaining;
      }
      break;
    }
    auto next = Clock::time_point::max();
    for (auto& s : b.slots) {
      if (s.result || !s.started) continue;
      if (s.deadline <= now) {
        s.token.cancel();
        s.result = error_result(s.ctx.call_id, "tool '" + s.prepared->tool->wire_name() + "' timed out after " +
                                                   std::to_string(s.timeout.count()) + " ms");
        --b.remaining;
      } else {
        next = std::min(next, s.deadline);
      }
    }
    if (b.remaining == 0) break;
    // A batch cancel token has no way to wake us, so poll it while waiting.
    if (opts.cancel) next = std::min(next, now + std::chrono::milliseconds(10));
    if (next == Clock::time_point::max()) b.cv.wait(lock);
    else b.cv.wait_until(lock, next);
  }
  std::vector<ir::ToolResultPart> out;
  out.reserve(b.slots.size());
  for (auto& s : b.slots) out.push_back(*s.result);  // copy: a late worker may still look at the slot
  return out;
}

ir::ToolResultPart Executor::run_one(const ir::ToolCallPart& call, const BatchOptions& opts) {
  return std::move(run(std::span<const ir::ToolCallPart>(&call, 1), opts).front());
}

}  // namespace toolwire::tools
