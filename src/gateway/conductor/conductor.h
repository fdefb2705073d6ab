// The conductor: GET /v1/conductor upgrades to a WebSocket on the gateway's
// own server (docs/conductor.md). This object is the shared part: options,
// the sessions by id (resume tokens, grace period), the open connections
// (closed on shutdown) and the executors of server-side tools.
//
// Threads: a connection's work runs on its socket's strand; a session's on
// its own strand (it outlives connections); this object's maps sit under
// one mutex. No thread per session, connection or pending call.
#pragma once

#include <condition_variable>
#include <memory>
#include <mutex>
#include <optional>
#include <string>
#include <unordered_map>
#include <vector>

#include "gateway/conductor/protocol.h"
#include "gateway/conductor/rate_limit.h"
#include "gateway/conductor/session.h"
#include "gateway/http/exchange.h"
#include "gateway/shared_state/shared_state.h"
#include "toolwire/gateway/auth.h"
#include "toolwire/gateway/gateway.h"
#include "toolwire/tools/executor.h"
#include "toolwire/tools/registry.h"

namespace toolwire::gateway::routes {
struct RouteContext;
}

namespace toolwire::gateway::conductor {

class Connection;
class Session;

class Conductor {
 public:
  explicit Conductor(routes::RouteContext& ctx);
  ~Conductor();

  // GET /v1/conductor: checks the upgrade, origin and a header key, then
  // takes the connection over from the HTTP session.
  void handle(std::shared_ptr<http::Exchange> ex, http::Request&& req);

  // session.start on `conn` (its strand): a fresh session or a resumed one.
  void start(const std::shared_ptr<Connection>& conn, const Frame& frame);

  // One frame from `key`'s shared bucket (always true without a per-key limit).
  bool take_key_frame(const GatewayKey* key, std::chrono::steady_clock::time_point now);

  void forget_session(const std::string& id);
  void forget_connection(const Connection* conn);
  // Gateway stop: closes every connection and ends every session.
  void shutdown();
  // After shutdown(), blocks (not on an io thread) until every connection has
  // ended (its close handshake done: the device saw 1001) and every turn has
  // completed (a cancelled upstream call reported back), at most `limit`;
  // connections still open then are cut. False when something was left.
  bool wait_closed(std::chrono::milliseconds limit);
  // AgentRuns in progress (Session::start_turn → its on_done).
  void run_started();
  void run_finished();

  const ConductorOptions& options() const;
  routes::RouteContext& context() { return ctx_; }
  size_t session_count() const;
  // GET /v1/conductor/sessions: {"sessions": [Session::describe()...]},
  // the longest-lived first.
  std::string sessions_json() const;
  // tool.result arrival → the next model request of its session.
  void note_result_latency(std::chrono::steady_clock::duration d);
  // Lines for GET /metrics (Prometheus text).
  std::string metrics_text() const;

 private:
  tools::Executor& executor_for(const tools::Registry& registry);
  // A fresh session from session.start (errors sent on `conn`).
  void start_fresh(const std::shared_ptr<Connection>& conn, const Frame& frame);
  std::optional<SessionSetup> build_setup(const std::shared_ptr<Connection>& conn,
                                          const nlohmann::json& payload,
                                          const std::string& frame_id);
  // A resume of another replica's session (docs/deploy.md#conductor-sessions).
  void take_over(std::shared_ptr<Connection> conn, Frame frame, std::string sid, std::string token,
                 uint64_t after, std::chrono::steady_clock::time_point deadline);
  void claimed(std::shared_ptr<Connection> conn, Frame frame, std::string sid, std::string token,
               uint64_t after, std::chrono::steady_clock::time_point deadline,
               Result<shared_state::SharedState::Claim> c);

  routes::RouteContext& ctx_;
  mutable std::mutex mu_;
  std::unordered_map<std::string, std::shared_ptr<Session>> sessions_;
  std::unordered_map<const Connection*, std::weak_ptr<Connection>> connections_;
  std::unordered_map<const tools::Registry*, std::unique_ptr<tools::Executor>> executors_;
  tools::Registry no_tools_;
  std::mutex key_mu_;
  std::unordered_map<const GatewayKey*, std::unique_ptr<SharedBucket>> key_buckets_;
  bool stopped_ = false;
  size_t live_runs_ = 0;
  std::condition_variable idle_cv_;  // connections_, sessions_ or live_runs_ shrank
  mutable std::mutex lat_mu_;
  std::vector<uint32_t> latency_ns_;  // the last kLatencyWindow samples (ring)
  size_t latency_next_ = 0;
  uint64_t latency_count_ = 0;
  static constexpr size_t kLatencyWindow = 65536;
};

}  // namespace toolwire::gateway::conductor
