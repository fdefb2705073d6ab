// toolwire/agent/run_loop.h — a single-threaded Scheduler driven by its owner.
//
// The functions posted to a RunLoop and its due timers run on the thread that
// calls run_until()/poll(), one at a time. Agent::run() steps its AgentRun on
// one of these, so every event of a blocking run is delivered on run()'s
// caller thread. A condition variable and a deadline heap; no thread.
//
//   agent::RunLoop loop;
//   bool done = false;
//   auto run = agent::AgentRun::start({..., .scheduler = loop.scheduler(),
//                                      .on_done = [&](agent::RunResult, auto) { done = true; }});
//   loop.run_until([&] { return done; });
//
// post() is safe from any thread, also after the loop is destroyed (the
// function is dropped then: late provider callbacks of a finished run).
#pragma once

#include <chrono>
#include <functional>
#include <memory>

#include "toolwire/agent/scheduler.h"

namespace toolwire::agent {

class RunLoop {
 public:
  RunLoop();
  ~RunLoop();  // drops what was posted and not run
  RunLoop(const RunLoop&) = delete;
  RunLoop& operator=(const RunLoop&) = delete;

  // post and post_after bound to this loop (they keep its queue alive, not the loop).
  Scheduler scheduler() const;

  // Runs posted functions and due timers, waiting when there are none, until
  // `done()` is true (checked before each wait and after each function).
  void run_until(const std::function<bool()>& done);
  // Like run_until, giving up at `deadline`; true when `done()` became true.
  bool run_until(const std::function<bool()>& done, std::chrono::steady_clock::time_point deadline);
  // Runs what is ready now without waiting; the number of functions run.
  size_t poll();

 private:
  struct State;
  std::shared_ptr<State> state_;
};

}  // namespace toolwire::agent
