// Server and mixed tool modes (docs/gateway.md, "Tool modes"): one client
// request is one agent::AgentRun over the route's server tools, run by the
// route's tools::Executor, stepped on the connection's thread.
//
// Each round's model call goes through the model call that owns the rounds
// (its fallback, deadlines and stream relay); the client sees one assistant
// turn: the text of every round, its own calls (mixed) renumbered from 0, one
// usage (the sum) and one finish. Server calls are not shown unless the
// client asks (`toolwire-tool-events: comments`: SSE comment lines, ignored by
// SDKs). A turn that calls client tools runs its server calls, then hands the
// client its own; the server calls and their results wait in the
// ContinuationStore for the client's next request, which gets them back
// spliced into its history.
#pragma once

#include <memory>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include "gateway/http/exchange.h"
#include "gateway/routes/context.h"
#include "gateway/traces/request_trace.h"
#include "toolwire/agent/agent_run.h"
#include "toolwire/core/result.h"
#include "toolwire/ir/request.h"
#include "toolwire/ir/response.h"
#include "toolwire/ir/stream.h"
#include "toolwire/provider/provider.h"

namespace toolwire::gateway::routes {

// An agent::Scheduler on the exchange's thread.
agent::Scheduler strand_scheduler(std::shared_ptr<http::Exchange> ex);

class ToolRounds {
 public:
  // The model call the rounds belong to. Every method runs on its thread.
  class Host {
   public:
    virtual ~Host() = default;
    // One round's model call, with the route's fallback; `done` runs once,
    // on that thread. Stream events go to the client through relay().
    virtual provider::ProviderCall call_model(ir::Request request, provider::DoneCallback done) = 0;
    // Stream only: tool-activity comment bytes for the client.
    virtual void write(std::string_view bytes) = 0;
    // The client's one answer for all rounds.
    virtual void finish_stream(const ir::Usage& usage, const ir::FinishReason& finish) = 0;
    virtual void finish_whole(ir::Response response) = 0;
    virtual void fail(const Error& e) = 0;
    virtual agent::Scheduler scheduler() = 0;
  };

  ToolRounds(RouteContext& ctx, std::shared_ptr<const RouteTools> tools,
             std::shared_ptr<const tools::Registry> registry, std::string key_scope, bool stream,
             bool tool_comments);
  ~ToolRounds();
  ToolRounds(const ToolRounds&) = delete;
  ToolRounds& operator=(const ToolRounds&) = delete;

  // Refuses what the mode forbids (client tools on a server route, a client
  // tool named like a server tool) and splices mixed-mode continuations back
  // into the request's history.
  std::optional<Error> prepare(ir::Request& request);
  // Starts the run; `host` owns these rounds and is kept alive until the run ends.
  void start(std::shared_ptr<Host> host, ir::Request request);
  // What of a round's stream event the client sees: false, nothing; else
  // `out` (the event with the client's call numbering).
  bool relay(const ir::StreamEvent& e, ir::StreamEvent& out);
  // What the rounds' streams carried that the client's one answer cannot:
  // the raw extras of a round's usage and finish (the answer has one usage,
  // the sum, and one finish of its own), as the warnings an encoder gives
  // for them. The model call reports them with the stream's other losses.
  const Warnings& lost() const { return lost_; }
  // The client's answer has ended or the client is gone: the run is
  // cancelled (running tools too) and nothing more is reported.
  void stop();
  // The request's trace: a span per server tool call (null: none). The
  // client's own calls are the model call's to note (it hands them back).
  std::shared_ptr<traces::RequestTrace> trace;

 private:
  class RoundProvider;
  void on_round(provider::Generation& g);
  void note_lost(const ir::StreamExtras& extras);
  void on_event(const agent::Event& e);
  void on_run_done(agent::RunResult result, std::vector<ir::Message> history);
  void finish(Host& host, bool client_calls);
  bool is_server_tool(std::string_view name) const;

  RouteContext& ctx_;
  std::shared_ptr<const RouteTools> tools_;
  std::shared_ptr<const tools::Registry> registry_;  // tools_'s, taken once
  std::string scope_;                                // the caller's key (continuations)
  bool stream_;
  bool tool_comments_;
  std::unique_ptr<RoundProvider> provider_;
  std::shared_ptr<Host> host_;  // while the run runs
  std::shared_ptr<agent::AgentRun> run_;
  bool stopped_ = false;
  bool sent_start_ = false;
  std::vector<int> client_index_;  // a round's call index → the client's (-1: a server call)
  int next_client_index_ = 0;
  ir::Usage usage_total_, round_usage_;
  ir::FinishReason last_finish_;
  Warnings lost_;  // see lost()
  ir::Response first_response_;
  std::vector<ir::Part> shown_parts_;  // whole answers: what the client gets, all rounds
};

}  // namespace toolwire::gateway::routes
