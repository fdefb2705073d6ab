// The gateway's counters, gauges and histograms, written as Prometheus text
// (exposition format 0.0.4) on GET /metrics.
//
// Label values come from clients too (model names a glob route accepts,
// tool names): past kMaxSeries series in a family, new values are counted
// as "other", so a client cannot grow the exposition without bound.
#pragma once

#include <array>
#include <atomic>
#include <map>
#include <mutex>
#include <string>
#include <string_view>

namespace toolwire::gateway {

class Metrics {
 public:
  // One answered request.
  void request(std::string_view route, std::string_view model, int status, double seconds);
  // One upstream attempt; `error_kind` empty on success.
  void upstream_attempt(std::string_view upstream, std::string_view error_kind);
  // A tool call seen by the gateway: outcome "returned" (passed to the
  // client), "ok", "error", "timeout", "cancelled".
  void tool_call(std::string_view name, std::string_view outcome);
  // A translation warning (a dropped or approximated field) given for a
  // request on `route`: `stage` "header" when the answer's
  // `toolwire-warnings` header named it, "stream" when a stream found it
  // after its headers were sent (trace and log only, docs/translation.md).
  void translation_warning(std::string_view route, std::string_view code, std::string_view stage);
  void bytes_in(size_t n) { bytes_in_.fetch_add(n, std::memory_order_relaxed); }
  void bytes_out(size_t n) { bytes_out_.fetch_add(n, std::memory_order_relaxed); }
  void stream_opened() { active_streams_.fetch_add(1, std::memory_order_relaxed); }
  void stream_closed() { active_streams_.fetch_sub(1, std::memory_order_relaxed); }
  void connection_opened() { connections_.fetch_add(1, std::memory_order_relaxed); }
  void connection_closed() { connections_.fetch_sub(1, std::memory_order_relaxed); }
  // A client cut because it did not take its output within the write timeout.
  void slow_client_cut() { slow_clients_cut_.fetch_add(1, std::memory_order_relaxed); }
  int64_t connections() const { return connections_.load(std::memory_order_relaxed); }
  // A connection closed at accept: over max_connections, over the per-address
  // limit, or accepted only to be closed while descriptors ran out.
  enum class Refused { max_connections, per_address, descriptors };
  void connection_refused(Refused why) {
    refused_[static_cast<size_t>(why)].fetch_add(1, std::memory_order_relaxed);
  }

  std::string text() const;

  static constexpr size_t kMaxSeries = 500;

  // Latency buckets (seconds), upper bounds; +Inf implied.
  static constexpr std::array<double, 14> kBuckets = {
      0.0005, 0.001, 0.0025, 0.005, 0.01, 0.025, 0.05, 0.1, 0.25, 0.5, 1, 2.5, 5, 10};

 private:
  struct Histogram {
    std::array<uint64_t, kBuckets.size()> counts{};
    uint64_t count = 0;
    double sum = 0;
  };
  mutable std::mutex mu_;
  // Series by key: the label values, length-prefixed (metrics.cc).
  template <class T>
  using Family = std::map<std::string, T, std::less<>>;
  Family<Histogram> requests_;
  Family<uint64_t> upstream_;  // attempts
  Family<uint64_t> upstream_errors_;
  Family<uint64_t> tools_;
  Family<uint64_t> warnings_;  // translation warnings
  std::atomic<uint64_t> bytes_in_{0}, bytes_out_{0}, slow_clients_cut_{0};
  std::atomic<int64_t> active_streams_{0}, connections_{0};
  std::array<std::atomic<uint64_t>, 3> refused_{};
};

}  // namespace toolwire::gateway
