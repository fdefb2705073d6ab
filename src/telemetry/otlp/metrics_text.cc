// The exporter's counters on GET /metrics, in the gateway's Prometheus text.
#include <string>

#include "toolwire/telemetry/otlp_exporter.h"

namespace toolwire::telemetry {

std::string otlp_metrics_text(const OtlpExporter::Counters& c) {
  return "# HELP toolwire_otlp_spans_exported_total Spans an OTLP collector accepted.\n"
         "# TYPE toolwire_otlp_spans_exported_total counter\n"
         "toolwire_otlp_spans_exported_total " +
         std::to_string(c.spans_exported) +
         "\n# HELP toolwire_otlp_spans_dropped_total Spans not exported: the queue was full, or "
         "their batch failed after its attempts.\n"
         "# TYPE toolwire_otlp_spans_dropped_total counter\n"
         "toolwire_otlp_spans_dropped_total{reason=\"queue_full\"} " +
         std::to_string(c.spans_dropped_queue) +
         "\ntoolwire_otlp_spans_dropped_total{reason=\"export_failed\"} " +
         std::to_string(c.spans_dropped_failed) +
         "\n# HELP toolwire_otlp_export_failures_total Batches that failed after their "
         "attempts.\n"
         "# TYPE toolwire_otlp_export_failures_total counter\n"
         "toolwire_otlp_export_failures_total " +
         std::to_string(c.export_failures) + "\n";
}

}  // namespace toolwire::telemetry
