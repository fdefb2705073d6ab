// The buckets of GET /v1/traces/stats from the rows in its window.
#pragma once

#include <cstdint>
#include <string>
#include <vector>

#include "toolwire/telemetry/trace_store.h"

namespace toolwire::telemetry {

struct StatsRow {
  int64_t start_us = 0;
  int64_t duration_us = 0;
  bool error = false;
  int64_t input_tokens = 0;
  int64_t output_tokens = 0;
};

// {"window_s", "bucket_s", "start_us", "end_us", "buckets": [{"start_us",
//  "requests", "errors", "p50_ms", "p95_ms", "p99_ms", "input_tokens",
//  "output_tokens"}], "totals": {same but start_us}}: every bucket of the
// window, oldest first, empty ones too (their percentiles null); `end_us`
// is the last bucket's end.
std::string stats_json(const StatsQuery& q, int64_t end_us, const std::vector<StatsRow>& rows);

}  // namespace toolwire::telemetry
