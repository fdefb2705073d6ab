// toolwire/agent/agent_run.h — one user turn of the agent loop, asynchronous.
//
// An AgentRun is the loop of agent.h as a state machine: it is stepped by
// provider callbacks, tool completions, remote results and timers, each
// posted to the caller's serialised executor (scheduler.h). It never blocks
// and creates no thread, per run or per pending call: local tools run on a
// shared tools::Executor pool and report by posting, remote calls wait as
// entries in a map with a timer each. A server holds thousands of them on one
// strand; Agent::run() is this plus a RunLoop on the caller's thread.
//
//   auto run = agent::AgentRun::start({
//       .provider = provider, .registry = registry, .executor = executor,
//       .scheduler = scheduler, .options = options,
//       .history = std::move(history), .user = std::move(user_message),
//       .on_event = [ws](const agent::Event& e) { ws->send(agent::to_json(e)); },
//       .on_done = [](agent::RunResult r, std::vector<ir::Message> history) { ... },
//   });
//   run->submit_result(call_id, tools::ToolOutput::text("photo.jpg"));   // any thread
//   run->cancel();                                                       // any thread
//
// Semantics are Agent's (agent.h, events.h): the same options, events in the
// same order, the same history invariants, the same messages for late,
// duplicate and unknown remote results.
//
// Threading: every step, every on_event call and the one on_done call run
// inside functions handed to scheduler.post / post_after, so never
// concurrently with each other and never before start() returns. cancel(),
// submit_result() and pending_remote_calls() are safe from any thread,
// on_event included. provider, registry and executor must outlive the run
// (until on_done has run and the provider has called `done`).
//
// cancel() is the one path for every state (client gone, barge-in,
// shutdown): the model call is cancelled and its half turn dropped; local
// calls are cancelled (their tokens too) and answered "tool 'x' cancelled";
// pending remote calls are closed with "cancelled"; then on_done runs once
// with StopReason::cancelled and a valid history. After on_done, cancel()
// does nothing.
#pragma once

#include <functional>
#include <memory>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include "toolwire/agent/options.h"
#include "toolwire/agent/scheduler.h"
#include "toolwire/core/result.h"
#include "toolwire/ir/message.h"
#include "toolwire/provider/provider.h"
#include "toolwire/tools/executor.h"
#include "toolwire/tools/registry.h"
#include "toolwire/tools/tool.h"

namespace toolwire::agent {

// The run's end: its result and the whole history (prior + this turn).
using RunCompletion = std::function<void(RunResult result, std::vector<ir::Message> history)>;

struct AgentRunParams {
  provider::Provider& provider;
  const tools::Registry& registry;
  // Runs the local calls; may be shared by many runs. AgentOptions::tool_timeout
  // applies to tools without a timeout of their own; max_concurrency bounds
  // this run's calls in flight (the pool bounds all of them).
  tools::Executor& executor;
  Scheduler scheduler;
  AgentOptions options;
  std::vector<ir::Message> history;  // the conversation so far
  // This turn's user message; none: the history already ends with the
  // turn's input (a gateway client's conversation, tool results last).
  std::optional<ir::Message> user;
  EventSink on_event;     // may be empty
  RunCompletion on_done;  // may be empty
};

class AgentRun {
 public:
  virtual ~AgentRun() = default;

  // Creates the run and posts its first step; nothing runs before this returns.
  static std::shared_ptr<AgentRun> start(AgentRunParams params);

  // Stops the run (see above). Any thread; no effect once it has finished.
  virtual void cancel() = 0;

  // The result of a pending remote call. Any thread. failed_precondition when
  // the call is not pending (late, duplicate or unknown): ignored and logged.
  virtual Status submit_result(std::string_view call_id, tools::ToolOutput output) = 0;
  Status submit_error(std::string_view call_id, std::string message) {
    return submit_result(call_id, tools::ToolOutput::error(std::move(message)));
  }
  // Ids of the remote calls waiting for a result, sorted.
  virtual std::vector<std::string> pending_remote_calls() const = 0;
  // True once on_done has run.
  virtual bool finished() const = 0;
};

}  // namespace toolwire::agent
