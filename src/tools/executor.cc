// Executor: a fixed worker pool with one FIFO queue and one timer thread.
// A call is settled exactly once, by whoever comes first: its handler's
// return (a worker), its deadline (the timer thread) or a cancel (any
// thread). Whatever comes later is dropped, so a stuck handler holds its
// worker but never its caller.
#include "toolwire/tools/executor.h"

#include <algorithm>
#include <atomic>
#include <string>

namespace toolwire::tools {

struct ExecutorJob {
  std::string call_id;
  std::string wire_name;
  std::optional<PreparedCall> prepared;
  ToolContext ctx;          // the handler's, on its worker only
  CancellationToken token;  // same state as ctx.cancel, for the timer and cancel()
  std::chrono::milliseconds timeout{0};
  bool exclusive = false;
  std::atomic<bool> settled{false};
  ResultCallback on_done;  // moved out by the one settle() that wins
  // Its entry in Executor::deadlines_ while armed; guarded by timer_mu_.
  std::optional<std::multimap<Clock::time_point, std::weak_ptr<ExecutorJob>>::iterator> timer;
};

namespace {

// The first caller wins. `cancel_token`: the handler is told before the
// result goes out, so whoever sees a timeout or cancel result can rely on
// the handler's token being cancelled already.
bool settle(ExecutorJob& job, ir::ToolResultPart result, bool cancel_token = false) {
  if (job.settled.exchange(true, std::memory_order_acq_rel)) return false;
  if (cancel_token) job.token.cancel();
  ResultCallback done = std::move(job.on_done);
  job.on_done = nullptr;
  if (done) done(std::move(result));
  return true;
}

ir::ToolResultPart timeout_result(const ExecutorJob& job) {
  return error_result(job.call_id, "tool '" + job.wire_name + "' timed out after " +
                                       std::to_string(job.timeout.count()) + " ms");
}

}  // namespace

void CallHandle::cancel() const {
  if (!job_) return;
  // Claimed before the token is cancelled, so the result is "cancelled"
  // whatever the handler returns when it notices.
  settle(*job_, error_result(job_->call_id, "tool '" + job_->wire_name + "' cancelled"),
         /*cancel_token=*/true);
}

bool CallHandle::done() const { return job_ && job_->settled.load(std::memory_order_acquire); }

Executor::Executor(const Registry& registry, ExecutorOptions opts)
    : registry_(registry), opts_(opts) {
  timer_ = std::jthread([this](std::stop_token st) { timer_loop(st); });
  size_t n = std::max<size_t>(1, opts_.max_concurrency);
  workers_.reserve(n);
  for (size_t i = 0; i < n; ++i)
    workers_.emplace_back([this](std::stop_token st) { worker_loop(st); });
}

Executor::~Executor() {
  {
    std::lock_guard<std::mutex> lock(mu_);
    stopping_ = true;
  }
  for (auto& w : workers_) w.request_stop();
  cv_.notify_all();
  workers_.clear();  // joins; running handlers finish (the timer still times them out)
  timer_.request_stop();
  timer_cv_.notify_all();
  timer_ = std::jthread();
  std::deque<Job> left;
  {
    std::lock_guard<std::mutex> lock(mu_);
    left.swap(queue_);
  }
  for (auto& j : left)
    settle(*j, error_result(j->call_id, "tool '" + j->wire_name + "' not run: executor shut down"));
}

bool Executor::can_start(const Job& job) const {
  if (exclusive_running_) return false;
  return !job->exclusive || running_ == 0;
}

void Executor::arm_timer(const Job& job) {
  bool first;
  {
    std::lock_guard<std::mutex> lock(timer_mu_);
    job->timer = deadlines_.emplace(job->ctx.deadline, job);
    first = *job->timer == deadlines_.begin();
  }
  if (first) timer_cv_.notify_all();
}

void Executor::disarm_timer(const Job& job) {
  std::lock_guard<std::mutex> lock(timer_mu_);
  if (job->timer) {
    deadlines_.erase(*job->timer);
    job->timer.reset();
  }
}

void Executor::timer_loop(std::stop_token st) {
  std::unique_lock<std::mutex> lock(timer_mu_);
  while (!st.stop_requested()) {
    if (deadlines_.empty()) {
      timer_cv_.wait(lock, st, [&] { return !deadlines_.empty(); });
      continue;
    }
    Clock::time_point first = deadlines_.begin()->first;
    if (first > Clock::now()) {
      // Wakes early when an earlier deadline is armed.
      timer_cv_.wait_until(lock, st, first, [&] {
        return !deadlines_.empty() && deadlines_.begin()->first < first;
      });
      continue;
    }
    std::vector<Job> expired;
    Clock::time_point now = Clock::now();
    while (!deadlines_.empty() && deadlines_.begin()->first <= now) {
      if (Job j = deadlines_.begin()->second.lock()) {
        j->timer.reset();
        expired.push_back(std::move(j));
      }
      deadlines_.erase(deadlines_.begin());
    }
    lock.unlock();
    for (auto& j : expired) settle(*j, timeout_result(*j), /*cancel_token=*/true);
    expired.clear();
    lock.lock();
  }
}

void Executor::worker_loop(std::stop_token st) {
  while (true) {
    Job job;
    {
      std::unique_lock<std::mutex> lock(mu_);
      auto runnable = [&] {
        // Calls cancelled while queued are dropped here, without a worker.
        while (!queue_.empty() && queue_.front()->settled.load(std::memory_order_acquire))
          queue_.pop_front();
        return !queue_.empty() && can_start(queue_.front());
      };
      if (!cv_.wait(lock, st, runnable) || st.stop_requested()) return;
      job = std::move(queue_.front());
      queue_.pop_front();
      ++running_;
      if (job->exclusive) exclusive_running_ = true;
    }
    cv_.notify_all();  // the next call may be startable by another worker

    if (!job->settled.load(std::memory_order_acquire)) {
      job->ctx.deadline = Clock::now() + job->timeout;
      arm_timer(job);
      ToolOutput out = run_handler(*job->prepared, job->ctx);
      disarm_timer(job);
      settle(*job, to_result(job->call_id, std::move(out)));
    }
    {
      std::lock_guard<std::mutex> lock(mu_);
      --running_;
      if (job->exclusive) exclusive_running_ = false;
    }
    cv_.notify_all();
  }
}

CallHandle Executor::submit(const ir::ToolCallPart& call, const CallOptions& opts,
                            ResultCallback on_done) {
  auto job = std::make_shared<ExecutorJob>();
  job->call_id = call.id;
  job->on_done = std::move(on_done);
  Result<PreparedCall> p = registry_.prepare(call);
  if (!p) {
    settle(*job, error_result(call.id, p.error().message));
    return CallHandle(job);
  }
  job->prepared = std::move(*p);
  const Tool& tool = *job->prepared->tool;
  job->wire_name = tool.wire_name();
  job->exclusive = tool.exclusive();
  job->timeout = tool.spec().timeout.value_or(opts.timeout.value_or(opts_.default_timeout));
  job->ctx.call_id = call.id;
  job->ctx.tool_name = tool.name();
  job->ctx.session = opts.session;
  job->token = job->ctx.cancel;
  bool queued = false;
  {
    std::lock_guard<std::mutex> lock(mu_);
    if (!stopping_) {
      queue_.push_back(job);
      queued = true;
    }
  }
  if (queued)
    cv_.notify_all();
  else
    settle(*job,
           error_result(call.id, "tool '" + job->wire_name + "' not run: executor shut down"));
  return CallHandle(job);
}

std::vector<ir::ToolResultPart> Executor::run(std::span<const ir::ToolCallPart> calls,
                                              const BatchOptions& opts) {
  struct Gather {
    std::mutex mu;
    std::condition_variable cv;
    std::vector<std::optional<ir::ToolResultPart>> results;
    size_t remaining = 0;
  };
  auto g = std::make_shared<Gather>();
  g->results.resize(calls.size());
  g->remaining = calls.size();
  CallOptions co{opts.session, std::nullopt};
  std::vector<CallHandle> handles;
  handles.reserve(calls.size());
  for (size_t i = 0; i < calls.size(); ++i)
    handles.push_back(submit(calls[i], co, [g, i](ir::ToolResultPart r) {
      {
        std::lock_guard<std::mutex> lock(g->mu);
        g->results[i] = std::move(r);
        --g->remaining;
      }
      g->cv.notify_all();
    }));
  // The batch token cancels the calls when it fires: no polling.
  uint64_t sub = 0;
  if (opts.cancel)
    sub = opts.cancel->on_cancel([handles] {
      for (const auto& h : handles) h.cancel();
    });
  std::vector<ir::ToolResultPart> out;
  out.reserve(calls.size());
  {
    std::unique_lock<std::mutex> lock(g->mu);
    g->cv.wait(lock, [&] { return g->remaining == 0; });
    for (auto& r : g->results) out.push_back(std::move(*r));
  }
  if (opts.cancel) opts.cancel->remove_on_cancel(sub);
  return out;
}

ir::ToolResultPart Executor::run_one(const ir::ToolCallPart& call, const BatchOptions& opts) {
  return std::move(run(std::span<const ir::ToolCallPart>(&call, 1), opts).front());
}

}  // namespace toolwire::tools
