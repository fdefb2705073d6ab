// What every route shares: the router (model → upstreams), the options, the
// metrics, and the count of upstream calls still in flight (the gateway does
// not tear down its executor while one may still post back to it).
#pragma once

#include <atomic>
#include <condition_variable>
#include <deque>
#include <memory>
#include <mutex>
#include <unordered_map>

#include "gateway/metrics/metrics.h"
#include "gateway/routes/response_store.h"
#include "gateway/routes/tool_executors.h"
#include "gateway/shared_state/shared_state.h"
#include "toolwire/gateway/auth.h"
#include "toolwire/gateway/gateway.h"
#include "toolwire/telemetry/otlp_exporter.h"
#include "toolwire/telemetry/trace_store.h"

namespace toolwire::gateway::conductor {
class Conductor;
}

namespace toolwire::gateway::routes {

class McpEndpoint;

class InFlight {
 public:
  void begin() {
    std::lock_guard lock(mu_);
    ++n_;
  }
  void end() {
    std::lock_guard lock(mu_);
    if (--n_ == 0) cv_.notify_all();
  }
  // Waits (bounded) until no call is in flight.
  bool wait_idle(std::chrono::milliseconds limit) {
    std::unique_lock lock(mu_);
    return cv_.wait_for(lock, limit, [&] { return n_ == 0; });
  }

 private:
  std::mutex mu_;
  std::condition_variable cv_;
  long n_ = 0;
};

// Mixed mode: when a turn called server and client tools, the client gets
// its calls back; the server calls and their results are kept here (bounded,
// oldest evicted) under the client calls' ids, and spliced back into the
// history when the client's next request carries those ids.
class ContinuationStore {
 public:
  struct Entry {
    ir::Message assistant;  // the whole turn: text, server and client calls
    std::vector<ir::ToolResultPart> server_results;
  };
  void put(const std::vector<std::string>& client_call_ids, Entry e) {
    auto shared = std::make_shared<const Entry>(std::move(e));
    std::lock_guard lock(mu_);
    for (const auto& id : client_call_ids) {
      if (map_.emplace(id, shared).second) order_.push_back(id);
    }
    while (order_.size() > kMax) {
      map_.erase(order_.front());
      order_.pop_front();
    }
  }
  std::shared_ptr<const Entry> find(const std::string& id) const {
    std::lock_guard lock(mu_);
    auto it = map_.find(id);
    return it == map_.end() ? nullptr : it->second;
  }
  static constexpr size_t kMax = 10'000;

 private:
  mutable std::mutex mu_;
  std::unordered_map<std::string, std::shared_ptr<const Entry>> map_;
  std::deque<std::string> order_;
};

// What a gateway key's stored state is scoped by (responses, mixed-mode
// continuations): its hash, "" when the gateway takes no keys. One key never
// finds another's entries; to it they do not exist.
inline std::string key_scope(const GatewayKey* key) {
  return key ? key->config().sha256_hex : std::string();
}

// An id within a key's scope.
inline std::string scoped_id(std::string_view scope, std::string_view id) {
  if (scope.empty()) return std::string(id);
  return std::string(scope) + "/" + std::string(id);
}

struct RouteContext {
  GatewayOptions options;
  std::shared_ptr<const ModelRouter> router;
  std::shared_ptr<const KeyRing> keys;  // null or empty: no gateway key required
  Metrics metrics;
  InFlight upstream_calls;
  std::atomic<bool> ready{false};                 // false before start and while draining
  std::unique_ptr<ToolExecutors> tool_executors;  // server tools' handlers
  ContinuationStore continuations;
  ResponseStore response_store;  // previous_response_id (Ingress::response_store)
  std::shared_ptr<conductor::Conductor> conductor;  // GET /v1/conductor
  std::shared_ptr<McpEndpoint> mcp;                 // POST/DELETE /mcp
  std::shared_ptr<telemetry::TraceStore> traces;    // null: no traces (GET /v1/traces)
  std::shared_ptr<telemetry::OtlpExporter> otlp;    // null: no OTLP export
  // Limits and the response store shared with other replicas (Redis); null
  // without --redis.
  std::shared_ptr<shared_state::SharedState> shared;
  void log(std::string_view line) const {
    if (options.log) options.log(line);
  }
};

}  // namespace toolwire::gateway::routes
