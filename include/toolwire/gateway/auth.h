// toolwire/gateway/auth.h — gateway keys: who may call, which models, how often.
//
// Keys are configured as SHA-256 hashes (`sha256:<64 hex>`; make one with
// `toolwire serve --hash-key`), never in clear. A request presents its key as
// its dialect's SDKs send it (dialects::presented_key); it is hashed and
// compared in constant time.
//
//   gateway::KeyRing ring;
//   ring.add({.name = "ci", .sha256_hex = "…", .models = {"gpt-*"}, .requests_per_minute = 600});
//   auto key = ring.authenticate(bearer_or_x_api_key);   // nullptr: unknown
#pragma once

#include <atomic>
#include <chrono>
#include <memory>
#include <mutex>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include "toolwire/core/result.h"

namespace toolwire::gateway {

struct KeyConfig {
  std::string name;                 // for logs and metrics; never the key
  std::string sha256_hex;           // 64 lower-case hex digits
  std::vector<std::string> models;  // globs of the models this key may use; empty: all
  int requests_per_minute = 0;      // 0: no limit
  int max_concurrent_streams = 0;   // 0: no limit
};

// One configured key with its live counters.
class GatewayKey {
 public:
  explicit GatewayKey(KeyConfig c);
  const KeyConfig& config() const { return c_; }
  // The key's name in shared state (Redis): a hash of its hash, so neither
  // the key nor its configured hash appears there.
  const std::string& shared_id() const { return shared_id_; }
  bool allows_model(std::string_view model) const;
  // Takes one request from the per-minute bucket; when it is empty, the
  // seconds until one is back (for `retry-after`).
  std::optional<int> take_request(std::chrono::steady_clock::time_point now);
  // A stream slot; false when the key already has its maximum open.
  bool open_stream();
  void close_stream();

 private:
  KeyConfig c_;
  std::string shared_id_;
  std::mutex mu_;
  double tokens_ = 0;
  std::chrono::steady_clock::time_point refilled_{};
  std::atomic<int> streams_{0};
};

class KeyRing {
 public:
  Status add(KeyConfig c);  // invalid_argument for a malformed hash
  bool empty() const { return keys_.empty(); }
  // The key whose hash matches `presented`, or nullptr.
  GatewayKey* authenticate(std::string_view presented) const;

 private:
  std::vector<std::unique_ptr<GatewayKey>> keys_;
  std::vector<std::array<unsigned char, 32>> hashes_;
};

// SHA-256 of `text` as 64 lower-case hex digits.
std::string sha256_hex(std::string_view text);

}  // namespace toolwire::gateway
