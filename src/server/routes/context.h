// What every route shares: the router (model → upstreams), the options, the
// metrics, and the count of upstream calls still in flight (the gateway does
// not tear down its executor while one may still post back to it).
#pragma once

#include <atomic>
#include <condition_variable>
#include <memory>
#include <mutex>

#include "server/metrics/metrics.h"
#include "toolwire/server/gateway.h"

namespace toolwire::server::routes {

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

struct RouteContext {
  GatewayOptions options;
  std::shared_ptr<const ModelRouter> router;
  Metrics metrics;
  InFlight upstream_calls;
  std::atomic<bool> ready{false};  // false before start and while draining
  void log(std::string_view line) const {
    if (options.log) options.log(line);
  }
};

}  // namespace toolwire::server::routes
