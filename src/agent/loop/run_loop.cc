// RunLoop: a queue of posted functions and a deadline-ordered timer map,
// both under one mutex; the owner's thread takes one function at a time and
// runs it with the mutex released, so posted code may post again.
#include "toolwire/agent/run_loop.h"

#include <condition_variable>
#include <deque>
#include <map>
#include <mutex>
#include <unordered_map>
#include <utility>
#include <vector>

namespace toolwire::agent {

using Clock = std::chrono::steady_clock;

struct RunLoop::State {
  std::mutex mu;
  std::condition_variable cv;
  std::deque<std::function<void()>> ready;
  struct Timer {
    uint64_t id = 0;
    std::function<void()> fn;
  };
  std::multimap<Clock::time_point, Timer> timers;
  std::unordered_map<uint64_t, std::multimap<Clock::time_point, Timer>::iterator> by_id;
  uint64_t next_id = 0;
  bool closed = false;

  // The next function to run: a posted one, else a due timer's. Waits up to
  // `until` when `wait`; empty when there is none.
  std::function<void()> take(bool wait, Clock::time_point until) {
    std::unique_lock<std::mutex> lock(mu);
    while (true) {
      Clock::time_point now = Clock::now();
      while (!timers.empty() && timers.begin()->first <= now) {
        by_id.erase(timers.begin()->second.id);
        ready.push_back(std::move(timers.begin()->second.fn));
        timers.erase(timers.begin());
      }
      if (!ready.empty()) {
        std::function<void()> f = std::move(ready.front());
        ready.pop_front();
        return f;
      }
      if (!wait || now >= until) return {};
      Clock::time_point wake = until;
      if (!timers.empty()) wake = std::min(wake, timers.begin()->first);
      if (wake == Clock::time_point::max())
        cv.wait(lock);
      else
        cv.wait_until(lock, wake);
    }
  }
};

RunLoop::RunLoop() : state_(std::make_shared<State>()) {}

RunLoop::~RunLoop() {
  std::deque<std::function<void()>> ready;
  std::multimap<Clock::time_point, State::Timer> timers;
  {
    std::lock_guard<std::mutex> lock(state_->mu);
    state_->closed = true;
    ready.swap(state_->ready);
    timers.swap(state_->timers);
    state_->by_id.clear();
  }
  // Destroyed here, outside the lock: they may hold the last reference to a run.
}

Scheduler RunLoop::scheduler() const {
  Scheduler s;
  std::weak_ptr<State> weak = state_;
  s.post = [weak](std::function<void()> f) {
    auto st = weak.lock();
    if (!st) return;
    {
      std::lock_guard<std::mutex> lock(st->mu);
      if (st->closed) return;  // `f` is destroyed after the lock is released
      st->ready.push_back(std::move(f));
    }
    st->cv.notify_all();
  };
  s.post_after = [weak](std::chrono::milliseconds d, std::function<void()> f) -> TimerHandle {
    auto st = weak.lock();
    if (!st) return {};
    uint64_t id;
    {
      std::lock_guard<std::mutex> lock(st->mu);
      if (st->closed) return {};
      id = ++st->next_id;
      st->by_id[id] = st->timers.emplace(Clock::now() + d, State::Timer{id, std::move(f)});
    }
    st->cv.notify_all();
    return TimerHandle([weak, id] {
      auto st = weak.lock();
      if (!st) return;
      std::function<void()> dropped;
      std::lock_guard<std::mutex> lock(st->mu);
      auto it = st->by_id.find(id);
      if (it == st->by_id.end()) return;
      dropped = std::move(it->second->second.fn);
      st->timers.erase(it->second);
      st->by_id.erase(it);
    });
  };
  return s;
}

void RunLoop::run_until(const std::function<bool()>& done) {
  run_until(done, Clock::time_point::max());
}

bool RunLoop::run_until(const std::function<bool()>& done, Clock::time_point deadline) {
  while (!done()) {
    std::function<void()> f = state_->take(/*wait=*/true, deadline);
    if (!f) return done();
    f();
  }
  return true;
}

size_t RunLoop::poll() {
  size_t n = 0;
  while (std::function<void()> f = state_->take(/*wait=*/false, Clock::time_point::max())) {
    f();
    ++n;
  }
  return n;
}

}  // namespace toolwire::agent
