// One conductor session: a conversation whose turns are agent runs
// (AgentRun) on this session's strand, with the device's tools as remote
// tools. It outlives its connection: events go to the attached connection
// and into a bounded replay buffer; a detached session waits a grace period
// for a resume, its pending calls still pending.
//
// Every method runs on strand() (post to it); nothing here blocks.
#pragma once

#include <boost/asio/steady_timer.hpp>
#include <deque>
#include <map>
#include <memory>
#include <mutex>
#include <nlohmann/json.hpp>
#include <optional>
#include <string>
#include <unordered_set>
#include <vector>

#include "gateway/conductor/durable.h"
#include "gateway/conductor/protocol.h"
#include "gateway/conductor/rate_limit.h"
#include "gateway/conductor/replay.h"
#include "gateway/traces/request_trace.h"

namespace toolwire::gateway {
class GatewayKey;
namespace shared_state {
class SharedState;
}
}  // namespace toolwire::gateway
#include "gateway/http/socket.h"
#include "toolwire/agent/agent_run.h"
#include "toolwire/gateway/gateway.h"

namespace toolwire::gateway::conductor {

class Connection;
class Conductor;

// What session.start decided (tools, model, options).
struct SessionSetup {
  provider::Provider* provider = nullptr;
  std::string model;  // sent upstream
  std::string system;
  const tools::Registry* registry = nullptr;  // server-side tools (may be empty)
  tools::Executor* executor = nullptr;
  std::vector<agent::RemoteTool> device_tools;  // under their wire names ('.' → "__")
  std::vector<std::string> device_names;        // as the device declared them, same order
  int max_rounds = 8;
  std::chrono::milliseconds tool_timeout{30000};
  size_t history_turns = 20;
  bool delta = false;  // options.partial == "delta"
  bool ui_calls = false;
  agent::TurnProtocol turn_protocol = agent::TurnProtocol::native;  // the route's
  // The gateway key that started the session (null: the gateway takes no
  // keys); only that key may resume it.
  const GatewayKey* owner = nullptr;
  std::string upstream_name;     // the route target's, for traces
  bool capture_content = false;  // the route's: traces keep arguments and results
  // session.start's payload (no apiKey, no resume): what another replica
  // builds this setup from when it takes the session over.
  nlohmann::json start = nlohmann::json::object();
};

// The session's view of its provider: notes how long after the tool.result
// that completed a round the next model request starts (the conductor's
// added latency, GET /metrics).
class ProviderTap final : public provider::Provider {
 public:
  ProviderTap(provider::Provider& inner, Conductor& conductor)
      : inner_(inner), conductor_(conductor) {}
  std::string_view name() const override { return inner_.name(); }
  const provider::Capabilities& capabilities() const override { return inner_.capabilities(); }
  std::string_view default_model() const override { return inner_.default_model(); }
  provider::ProviderCall generate(ir::Request r, provider::DoneCallback done) override;
  provider::ProviderCall stream(ir::Request r, provider::EventCallback on_event,
                                provider::DoneCallback done) override;
  // The arrival of the last accepted tool.result (on the session's strand).
  std::chrono::steady_clock::time_point result_at{};
  // The running turn's trace: each model call a span (null: no traces).
  std::shared_ptr<traces::RequestTrace> trace;
  std::string upstream_name;

 private:
  void note();
  provider::DoneCallback traced(const ir::Request& r, bool stream, provider::DoneCallback done);
  provider::Provider& inner_;
  Conductor& conductor_;
};

class Session : public std::enable_shared_from_this<Session> {
 public:
  Session(Conductor& conductor, http::Strand strand, std::string id, std::string token,
          SessionSetup setup);
  ~Session();

  http::Strand strand() const { return strand_; }
  const std::string& id() const { return id_; }
  const std::string& token() const { return token_; }       // compared in constant time
  const GatewayKey* owner() const { return setup_.owner; }  // SessionSetup::owner
  // The session's frame budget; any thread (a resumed connection goes on with it).
  SharedBucket& bucket() { return bucket_; }

  // `conn` now carries this session: session.ready, then (a resume) the
  // events after `replay_after`. A previous connection is closed.
  void attach(std::shared_ptr<Connection> conn, std::optional<uint64_t> replay_after);
  // The connection went away: the grace period starts.
  void detach(const Connection* conn);
  void on_frame(const Connection* conn, Frame frame);
  // How a session ends here: `ended` (grace period over: gone everywhere),
  // `shutdown` (released in Redis: another replica may take it at once),
  // `moved` (another replica has it now: nothing more is written).
  enum class End { ended, shutdown, moved };
  // The turn is cancelled, the session gone from this replica.
  void expire(End how = End::ended);

  // With Redis (docs/deploy.md#conductor-sessions): the session's durable
  // steps are written there. `shared` null: nothing is.
  void make_durable(std::shared_ptr<shared_state::SharedState> shared);
  // Another replica's session, taken over (Conductor::start): its state
  // from `rec`, `conn` attached (resumed, its replay), and its turn goes on
  // from the last durable step.
  void adopt(std::shared_ptr<shared_state::SharedState> shared, SessionRecord rec,
             std::shared_ptr<Connection> conn, uint64_t replay_after);
  // GET /v1/conductor/sessions: this session now. Any thread (a copy under
  // view_mu_, kept by the strand's own changes).
  nlohmann::json describe() const;

 private:
  // A device tool call sent and not answered yet.
  struct PendingCall {
    std::string call_id, name;
    int64_t since_us = 0, deadline_us = 0;
  };
  void note_state(std::string_view state);
  void emit(std::string_view type, nlohmann::json payload, bool keep = true);
  void reply_error(std::string_view code, std::string message, bool retryable,
                   const std::string& ref);
  void start_turn(std::string text);
  void run_turn(std::vector<ir::Message> history, std::optional<ir::Message> user, int max_rounds);
  // Durability (durable_session.cc).
  SessionRecord record() const;
  void checkpoint(bool release_held);
  void saved(Result<long long> n, bool release_held);
  void flush_held();
  void schedule_renewal();
  void renewed(Result<long long> n);
  void close_round();
  void adopted_result(const std::string& call_id, ir::ToolResultPart r);
  void finish_adopted_round();
  void cancel_adopted(const std::vector<std::string>& ids);
  void resume_run();
  void on_agent_event(const agent::Event& e);
  void turn_done(agent::RunResult result, std::vector<ir::Message> history);
  void on_tool_result(const Frame& f);
  void send_ui_calls(const std::string& text);
  agent::Scheduler scheduler();

  Conductor& conductor_;
  http::Strand strand_;
  std::string id_;
  std::string token_;
  SessionSetup setup_;
  ProviderTap tap_;
  SharedBucket bucket_;
  std::shared_ptr<Connection> conn_;
  boost::asio::steady_timer grace_;
  ReplayBuffer replay_;
  uint64_t seq_ = 0;
  bool expired_ = false;

  std::vector<ir::Message> history_;
  std::shared_ptr<agent::AgentRun> run_;
  std::shared_ptr<agent::AgentRun> last_run_;  // classifies late results after a turn
  std::deque<std::string> queued_;
  std::string round_text_;
  bool speaking_ = false;
  std::unordered_set<std::string> ui_call_ids_;
  uint64_t ui_seq_ = 0;

  // What describe() reads.
  mutable std::mutex view_mu_;
  std::string view_state_ = "idle";
  bool view_attached_ = false;
  uint64_t view_turns_ = 0;
  int64_t view_created_us_ = 0, view_active_us_ = 0;
  std::string view_trace_id_;  // the running turn's trace ("" without traces)
  std::vector<PendingCall> view_pending_;
  // ---- durability (durable_session.cc) ----
  std::shared_ptr<shared_state::SharedState> shared_;  // null: nothing is written
  bool durable_ = false;                               // still written (not lost, not moved)
  boost::asio::steady_timer lease_;                    // renews the session's lease
  // The running turn's durable state (SessionRecord's).
  bool in_turn_ = false;
  std::vector<ir::Message> turn_msgs_;
  int turn_rounds_ = 0;
  std::string call_text_;  // the round's text before its calls
  std::vector<ir::ToolCallPart> calls_;
  std::vector<bool> call_remote_;
  std::vector<int64_t> call_deadline_;
  std::vector<ir::ToolResultPart> results_;
  // A round's tool.call frames wait (held_) until Redis has the round, so a
  // device only ever runs a call another replica would know about.
  bool hold_queued_ = false;  // the round's write is posted, not yet sent
  bool holding_ = false;
  std::vector<std::pair<uint64_t, std::string>> held_;
  // Taken over while device calls were pending: their deadlines, before the
  // turn goes on (no AgentRun meanwhile).
  std::map<std::string, std::shared_ptr<boost::asio::steady_timer>> adopted_;
};

}  // namespace toolwire::gateway::conductor
