// Time buckets of traces: counts, nearest-rank latency percentiles, tokens.
#include "telemetry/store/stats.h"

#include <algorithm>
#include <cmath>
#include <nlohmann/json.hpp>

namespace toolwire::telemetry {
namespace {

using ordered = nlohmann::ordered_json;

struct Bucket {
  int64_t requests = 0, errors = 0, input_tokens = 0, output_tokens = 0;
  std::vector<int64_t> durations_us;
};

// Nearest rank of sorted `v` (ms, 3 decimals); null when empty.
ordered percentile(const std::vector<int64_t>& v, double p) {
  if (v.empty()) return nullptr;
  auto rank = static_cast<size_t>(std::ceil(p * static_cast<double>(v.size())));
  size_t i = std::min(v.size() - 1, rank == 0 ? 0 : rank - 1);
  return std::round(static_cast<double>(v[i]) / 1000.0 * 1000.0) / 1000.0;
}

ordered to_json(Bucket& b) {
  std::sort(b.durations_us.begin(), b.durations_us.end());
  ordered o;
  o["requests"] = b.requests;
  o["errors"] = b.errors;
  o["p50_ms"] = percentile(b.durations_us, 0.50);
  o["p95_ms"] = percentile(b.durations_us, 0.95);
  o["p99_ms"] = percentile(b.durations_us, 0.99);
  o["input_tokens"] = b.input_tokens;
  o["output_tokens"] = b.output_tokens;
  return o;
}

void add(Bucket& b, const StatsRow& r) {
  ++b.requests;
  if (r.error) ++b.errors;
  b.input_tokens += r.input_tokens;
  b.output_tokens += r.output_tokens;
  b.durations_us.push_back(r.duration_us);
}

}  // namespace

std::string stats_json(const StatsQuery& q, int64_t end_us, const std::vector<StatsRow>& rows) {
  const int64_t bucket_us = q.bucket_s * 1'000'000;
  const auto n = static_cast<size_t>((q.window_s + q.bucket_s - 1) / q.bucket_s);
  // The buckets end at the window's end: the last one holds "now".
  const int64_t start_us = end_us - static_cast<int64_t>(n) * bucket_us;
  std::vector<Bucket> buckets(n);
  Bucket total;
  for (const StatsRow& r : rows) {
    if (r.start_us < start_us || r.start_us >= end_us) continue;
    add(buckets[static_cast<size_t>((r.start_us - start_us) / bucket_us)], r);
    add(total, r);
  }
  ordered out;
  out["window_s"] = q.window_s;
  out["bucket_s"] = q.bucket_s;
  out["start_us"] = start_us;
  out["end_us"] = end_us;
  ordered list = ordered::array();
  for (size_t i = 0; i < n; ++i) {
    ordered b;
    b["start_us"] = start_us + static_cast<int64_t>(i) * bucket_us;
    b.update(to_json(buckets[i]));
    list.push_back(std::move(b));
  }
  out["buckets"] = std::move(list);
  out["totals"] = to_json(total);
  return out.dump();
}

}  // namespace toolwire::telemetry
