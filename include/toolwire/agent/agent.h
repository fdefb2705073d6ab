// toolwire/agent/agent.h — the tool-calling loop.
//
// An Agent holds one conversation (IR history) and runs user turns: send the
// history with the tool definitions, stream the model's answer, run the tool
// calls it makes (in parallel on a fixed pool, each with a timeout), append
// the results, ask again — until the model answers in text, calls the
// end-turn tool, or max_rounds model calls were made.
//
//   tools::Registry registry;  ... registry.add(spec) ...
//   agent::AgentOptions opt;
//   opt.base.model = "gpt-4o-mini";
//   opt.base.system = {{"You are terse."}};
//   opt.remote_tools = {{.definition = {"take_photo", "Takes a photo on the phone"}}};
//   agent::Agent agent(provider, registry, opt);
//   agent::RunResult r = agent.run("What is in ./notes.txt?", [&](const agent::Event& e) {
//     if (auto* t = std::get_if<agent::TextDeltaEvent>(&e)) std::cout << t->text << std::flush;
//     if (auto* c = std::get_if<agent::ToolCallEvent>(&e); c && c->remote)
//       phone.send(c->call);            // the phone answers later with:
//   });                                 //   agent.submit_result(id,
//   tools::ToolOutput::text("..."));
//
// Remote tools are not run here: the loop emits their call and waits until
// submit_result() brings the result (from any thread) or the remote timeout
// passes, after which the model gets a `tool_result_timeout` error result.
// Several remote calls may be pending at once; late and duplicate results are
// ignored (submit_result says so, and the log sink is told).
//
// cancel() (any thread) stops the run at once, at any point, and leaves the
// history valid: a half-streamed model turn is dropped, every tool call that
// was already recorded gets its result — a synthesized "cancelled" error for
// those that had none.
//
// Threading: run() blocks its caller and delivers every event on that thread.
// It is a thin wrapper over the asynchronous AgentRun (agent_run.h), stepped
// by a RunLoop (run_loop.h) on the caller's thread; the Agent owns the tool
// executor's pool. One run at a time per Agent; cancel() and submit_result()
// may come from any thread, event callbacks included.
#pragma once

#include <memory>
#include <string>
#include <string_view>
#include <vector>

#include "toolwire/agent/agent_run.h"
#include "toolwire/agent/events.h"
#include "toolwire/agent/options.h"
#include "toolwire/core/result.h"
#include "toolwire/ir/message.h"
#include "toolwire/provider/provider.h"
#include "toolwire/tools/registry.h"
#include "toolwire/tools/tool.h"

namespace toolwire::agent {

class Agent {
 public:
  Agent(provider::Provider& provider, const tools::Registry& registry, AgentOptions options = {});
  ~Agent();
  Agent(const Agent&) = delete;
  Agent& operator=(const Agent&) = delete;

  // Runs one user turn to its end. Thread: see above.
  RunResult run(std::string user_text, const EventSink& on_event = {});
  RunResult run(ir::Message user_message, const EventSink& on_event = {});

  // Stops the run in progress (no effect when idle). Any thread.
  void cancel();

  // The result of a pending remote call. Any thread. failed_precondition when
  // the call is not pending (late, duplicate or unknown): the result is ignored.
  Status submit_result(std::string_view call_id, tools::ToolOutput output);
  Status submit_error(std::string_view call_id, std::string message) {
    return submit_result(call_id, tools::ToolOutput::error(std::move(message)));
  }
  // Ids of the remote calls waiting for a result.
  std::vector<std::string> pending_remote_calls() const;

  // The whole conversation (not the window). Not while a run is in progress.
  const std::vector<ir::Message>& history() const;
  void set_history(std::vector<ir::Message> messages);
  const AgentOptions& options() const;

 private:
  struct Impl;
  std::unique_ptr<Impl> impl_;
};

}  // namespace toolwire::agent
