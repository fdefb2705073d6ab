// What the replicas behind one balancer share, through Redis (`--redis`,
// docs/deploy.md): the keys' requests_per_minute and max_concurrent_streams
// and the response store. One per gateway, on its io_context; absent
// without `--redis` (everything stays in process).
//
// Every call answers through its callback exactly once, on the Redis
// client's strand (post back to your own), within the command timeout.
// Limits fall back to the replica's own counters when Redis fails (or are
// refused, limits_fail_open: false); the store's lookups fail (503) and its
// writes are dropped, counted and logged.
#pragma once

#include <atomic>
#include <functional>
#include <map>
#include <memory>
#include <mutex>
#include <optional>
#include <set>
#include <string>
#include <vector>

#include "toolwire/core/result.h"
#include "toolwire/dialects/ingress.h"
#include "toolwire/gateway/auth.h"
#include "toolwire/gateway/gateway.h"
#include "toolwire/ir/message.h"
#include "toolwire/redis/client.h"

namespace boost::asio {
class io_context;
}

namespace toolwire::gateway::shared_state {

// A stream slot a request holds until its stream ends.
struct StreamSlot {
  bool shared = false;  // a lease in Redis; false: the replica's own counter
  std::string set;      // the key's lease set
  std::string id;       // the lease
};

class SharedState : public std::enable_shared_from_this<SharedState> {
 public:
  SharedState(boost::asio::io_context& ioc, SharedStateOptions options,
              std::function<void(std::string_view)> log);
  void start();
  void stop();
  bool connected() const { return redis_->connected(); }
  const SharedStateOptions& options() const { return o_; }

  // requests_per_minute: nullopt taken, else the seconds to wait; an error
  // only when Redis failed and the limits fail closed.
  using TakeDone = std::function<void(Result<std::optional<int>>)>;
  void take_request(GatewayKey& key, TakeDone done);
  // max_concurrent_streams: a slot, or nullopt when the key has all open.
  using OpenDone = std::function<void(Result<std::optional<StreamSlot>>)>;
  void open_stream(GatewayKey& key, OpenDone done);
  void close_stream(GatewayKey& key, const StreamSlot& slot);

  // The response store. Values by scoped id (routes/previous_response.h);
  // nullopt where nothing is stored (or what is stored is unreadable).
  struct Found {
    std::optional<std::vector<ir::Message>> conversation;
    std::vector<std::optional<std::vector<ir::Part>>> items;  // in the order asked
  };
  void fetch(const std::string& response_id, const std::vector<std::string>& item_ids,
             std::function<void(Result<Found>)> done);
  // `done` once Redis has it (or the write failed: counted and logged).
  void store(const std::string& response_id, const std::vector<ir::Message>& conversation,
             const std::vector<dialects::StoredItem>& items, std::function<void()> done);

  // Conductor sessions (conductor_store.cc). `fields`: name/value pairs
  // of the session's hash. Answers: see scripts.h (kSaveSession...).
  const std::string& replica_id() const { return replica_; }
  void save_session(const std::string& id, std::vector<std::string> fields,
                    std::chrono::milliseconds ttl, std::function<void(Result<long long>)> done);
  void renew_session(const std::string& id, std::chrono::milliseconds ttl,
                     std::function<void(Result<long long>)> done);
  struct Claim {
    int status = -1;  // 1 claimed, 0 owner alive, -1 unknown, -2 wrong token
    std::map<std::string, std::string> fields;
  };
  void claim_session(const std::string& id, const std::string& token_hash,
                     const std::string& key_name, std::function<void(Result<Claim>)> done);
  // drop: the session ended; else released for another replica at once.
  void release_session(const std::string& id, bool drop);

  // MCP sessions (mcp_store.cc): the session's key (a hash) and negotiated
  // version under a hash of its id. fetch: nullopt when unknown.
  struct McpSession {
    std::string key;
    std::string version;
  };
  void save_mcp_session(const std::string& id, const McpSession& s, std::chrono::milliseconds ttl,
                        std::function<void()> done);
  void fetch_mcp_session(const std::string& id,
                         std::function<void(Result<std::optional<McpSession>>)> done);
  void touch_mcp_session(const std::string& id, std::chrono::milliseconds ttl);
  void drop_mcp_session(const std::string& id);

  std::string metrics_text() const;

 private:
  struct Script {
    std::string_view body;
    std::string sha;
  };
  void eval(const Script& s, std::vector<std::string> keys_args, int nkeys, redis::Callback done);
  // One log line per feature per 10 s, with the count since.
  void fallback(int feature, const Error& why);
  void renew();
  void schedule_renewal();
  std::string key_name(std::string_view kind, std::string_view id) const;

  SharedStateOptions o_;
  std::function<void(std::string_view)> log_;
  std::shared_ptr<redis::Client> redis_;
  Script take_, open_, renew_;
  Script save_session_, renew_session_, claim_session_, release_session_;
  std::string replica_;  // random: this replica's lease ids
  std::atomic<uint64_t> next_lease_{0};
  struct Renewal;
  std::shared_ptr<Renewal> renewal_;
  std::mutex mu_;
  std::map<std::string, std::set<std::string>> leases_;  // this replica's, by set
  // Features: 0 requests_per_minute, 1 max_concurrent_streams, 2 store
  // lookups, 3 store writes.
  std::array<std::atomic<uint64_t>, 4> fallbacks_{};
  std::array<std::atomic<int64_t>, 4> last_log_{};
  std::atomic<uint64_t> refused_{0}, stored_{0}, too_big_{0};
  std::atomic<uint64_t> session_writes_{0}, session_write_failures_{0}, takeovers_{0};
};

}  // namespace toolwire::gateway::shared_state
