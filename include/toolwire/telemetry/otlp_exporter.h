// toolwire/telemetry/otlp_exporter.h — finished traces sent to an
// OpenTelemetry collector over OTLP/HTTP (protobuf), off the request path.
//
//   auto url = telemetry::otlp_traces_url("http://collector:4318");  // .../v1/traces
//   auto exp = telemetry::OtlpExporter::start({.url = *url, .headers = {{"x-team", "a"}}});
//   exp->submit(trace);   // never blocks: queued, or dropped (counted) when full
//
// One sender thread takes the queue in batches (batch_size spans, or what
// came within flush_interval), maps each trace to OTLP spans (a SERVER root
// for the request or conductor turn, a CLIENT span per model call, an
// INTERNAL span per tool call; names and attributes of the OpenTelemetry
// GenAI semantic conventions) and POSTs them as an ExportTraceServiceRequest
// with bounded retries. A full queue drops the new trace; a batch that still
// fails after its attempts is dropped. Both are counted, never waited for.
// The destructor sends what is queued within shutdown_timeout, then cancels.
#pragma once

#include <chrono>
#include <cstdint>
#include <memory>
#include <string>
#include <string_view>
#include <utility>
#include <vector>

#include "toolwire/core/result.h"
#include "toolwire/telemetry/trace.h"

namespace toolwire::telemetry {

// The URL to POST traces to: a URL without a path (or with "/") gets
// "/v1/traces"; one that ends in "/v1/traces" is kept; any other path is a
// base that "/v1/traces" is appended to. Only http:// and https:// URLs
// with a host; an error names what is wrong.
Result<std::string> otlp_traces_url(std::string_view endpoint);
// What is wrong with a header for the collector: a name that is not an
// HTTP token, a value with a line break or NUL; "" when it is fine.
std::string otlp_header_problem(std::string_view name, std::string_view value);

struct OtlpOptions {
  std::string url;                                           // from otlp_traces_url()
  std::vector<std::pair<std::string, std::string>> headers;  // e.g. a collector's auth
  std::string service_name = "toolwire";                     // resource service.name
  size_t batch_size = 512;                                   // spans per POST at most
  std::chrono::milliseconds flush_interval{1000};            // a partial batch waits this long
  size_t queue_limit = 8192;                                 // spans waiting; more are dropped
  std::chrono::milliseconds timeout{10000};  // one batch's export, its retries included
  int max_attempts = 3;                      // per batch (connection failures, 429, 5xx)
  std::chrono::milliseconds shutdown_timeout{3000};
};

class OtlpExporter {
 public:
  static std::unique_ptr<OtlpExporter> start(OtlpOptions options);
  ~OtlpExporter();
  OtlpExporter(const OtlpExporter&) = delete;
  OtlpExporter& operator=(const OtlpExporter&) = delete;

  // Queues a copy of `t`'s spans for export; false (counted as dropped)
  // when the queue is full. O(1) under a short lock.
  bool submit(Trace t);
  // Sends what is queued now and waits for it, at most `within` (tests).
  // True when the queue is empty and nothing is in flight.
  bool flush(std::chrono::milliseconds within);

  struct Counters {
    uint64_t spans_exported = 0;        // accepted by the collector (2xx)
    uint64_t spans_dropped_queue = 0;   // the queue was full
    uint64_t spans_dropped_failed = 0;  // their batch failed after its attempts
    uint64_t export_failures = 0;       // batches that failed after their attempts
  };
  Counters counters() const;
  const OtlpOptions& options() const;

  struct Impl;

 private:
  explicit OtlpExporter(std::unique_ptr<Impl> impl);
  std::unique_ptr<Impl> impl_;
};

// The exporter's counters as Prometheus text (toolwire_otlp_*_total).
std::string otlp_metrics_text(const OtlpExporter::Counters& c);

}  // namespace toolwire::telemetry
