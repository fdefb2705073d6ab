// toolwire/telemetry/trace_store.h — traces in SQLite, written off the
// request path and bounded.
//
//   auto store = telemetry::TraceStore::open({.path = dir + "/traces.db"});
//   store->submit(std::move(trace));          // never blocks: queued, or dropped when full
//   auto page = store->list(*telemetry::parse_trace_query("model=gpt-4o&errors=true"));
//   auto one = store->get(trace_id);          // the trace's JSON (Trace::to_json)
//
// One writer thread takes the queue and writes in batches (one transaction
// each), then drops the oldest traces past `max_traces` or `max_bytes`.
// A full queue drops the new trace (counted in dropped()); the request that
// made it is never held up. Reads use their own connection (WAL: they do
// not wait for a write).
#pragma once

#include <cstdint>
#include <memory>
#include <optional>
#include <string>
#include <string_view>

#include "toolwire/core/result.h"
#include "toolwire/telemetry/trace.h"

namespace toolwire::telemetry {

struct TraceStoreOptions {
  std::string path;              // the SQLite file (its folder is created)
  size_t max_traces = 10000;     // oldest dropped past this
  size_t max_bytes = 64u << 20;  // of the rows' JSON (their spans); oldest dropped past this
  size_t max_queued = 4096;      // traces waiting for the writer; more are dropped
};

// GET /v1/traces's filters, from its query string.
struct TraceQuery {
  std::string key;    // the gateway key's name
  std::string model;  // as the caller asked
  int status = 0;     // an HTTP status; 0: any
  bool errors_only = false;
  size_t limit = 50;  // 1..1000, newest first
};

// "key=ci&model=gpt-4o&status=502&errors=true&limit=20" (percent-encoded
// values). An unknown or repeated parameter, or a bad value, is an error
// naming it.
Result<TraceQuery> parse_trace_query(std::string_view query);

// GET /v1/traces/stats: the traces that started in the last `window_s`
// seconds, counted in buckets of `bucket_s` (the console's charts).
struct StatsQuery {
  std::string key;          // the gateway key's name; "": every key
  int64_t window_s = 3600;  // 60 .. 7 days
  int64_t bucket_s = 60;    // 1 .. window_s, at most 1000 buckets
  int64_t now_us = 0;       // 0: now; the last bucket is the one that holds it
};

// "window=3600&bucket=60&key=ci" (seconds). Checked like parse_trace_query.
Result<StatsQuery> parse_stats_query(std::string_view query);

class TraceStore {
 public:
  static Result<std::unique_ptr<TraceStore>> open(TraceStoreOptions options);
  // Writes what is queued, then closes.
  ~TraceStore();
  TraceStore(const TraceStore&) = delete;
  TraceStore& operator=(const TraceStore&) = delete;

  // Queues `t` for the writer; false (counted) when the queue is full.
  bool submit(Trace t);
  // The newest traces that pass `q`, as {"traces": [summary...]} JSON.
  Result<std::string> list(const TraceQuery& q) const;
  // Per bucket of `q`: requests, errors, latency p50/p95/p99 (ms, null when
  // empty) and tokens in and out, as JSON (docs/console.md).
  Result<std::string> stats(const StatsQuery& q) const;
  // One trace's JSON and its key's name; nullopt when there is none with that id.
  struct Stored {
    std::string key_name;
    std::string json;
  };
  Result<std::optional<Stored>> get(std::string_view trace_id) const;
  // Waits until everything submitted so far is written (tests, shutdown).
  void flush();
  uint64_t dropped() const;
  uint64_t written() const;
  // The two counts above in Prometheus' text format, for /metrics:
  // toolwire_traces_written_total and toolwire_traces_dropped_total.
  std::string metrics_text() const;

  struct Impl;

 private:
  explicit TraceStore(std::unique_ptr<Impl> impl);
  std::unique_ptr<Impl> impl_;
};

}  // namespace toolwire::telemetry
