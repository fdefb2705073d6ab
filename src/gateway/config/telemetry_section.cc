#include "gateway/config/telemetry_section.h"

#include "toolwire/telemetry/otlp_exporter.h"

namespace toolwire::gateway::config_yaml {
namespace {

Status read_otlp(const Reader& r, const YAML::Node& n, OtlpConfig& o) {
  const std::string p = "telemetry.otlp";
  TW_TRY(r.keys(n, p,
                {"endpoint", "headers", "service_name", "batch_size", "queue_limit", "timeout_ms",
                 "flush_ms"}));
  std::string endpoint;
  TW_TRY(r.str(n, p, "endpoint", endpoint));
  if (endpoint.empty()) return r.error(n, p, "needs an endpoint (the collector's URL)");
  auto url = telemetry::otlp_traces_url(endpoint);
  if (!url) return r.error(n["endpoint"], p + ".endpoint", url.error().message);
  o.url = *url;
  if (YAML::Node h = n["headers"]) {
    if (!h.IsMap()) return r.error(h, p + ".headers", "expected a mapping of header: value");
    o.headers.clear();
    for (const auto& kv : h) {
      const std::string name = kv.first.as<std::string>();
      if (!kv.second.IsScalar())
        return r.error(kv.second, p + ".headers." + name, "expected a string");
      if (auto why = telemetry::otlp_header_problem(name, kv.second.Scalar()); !why.empty())
        return r.error(kv.first, p + ".headers." + name, why);
      o.headers.emplace_back(name, kv.second.Scalar());
    }
  }
  TW_TRY(r.str(n, p, "service_name", o.service_name));
  if (o.service_name.empty()) return r.error(n["service_name"], p + ".service_name", "is empty");
  TW_TRY(r.integer_as(n, p, "batch_size", 1, 100'000, o.batch_size));
  TW_TRY(r.integer_as(n, p, "queue_limit", 1, 10'000'000, o.queue_limit));
  TW_TRY(r.millis(n, p, "timeout_ms", 100, 600'000, o.timeout));
  TW_TRY(r.millis(n, p, "flush_ms", 1, 600'000, o.flush_interval));
  if (o.queue_limit < o.batch_size) return r.error(n, p, "queue_limit must be at least batch_size");
  return Status::Ok();
}

}  // namespace

Status read_telemetry(const Reader& r, const YAML::Node& t, TelemetryConfig& c) {
  TW_TRY(r.keys(t, "telemetry", {"traces", "data_dir", "max_traces", "max_mb", "otlp"}));
  if (t["traces"]) {
    bool on = true;
    TW_TRY(r.boolean(t, "telemetry", "traces", on));
    c.traces = on;
  }
  TW_TRY(r.str(t, "telemetry", "data_dir", c.data_dir));
  TW_TRY(r.integer_as(t, "telemetry", "max_traces", 1, 10'000'000, c.max_traces));
  TW_TRY(r.integer_as(t, "telemetry", "max_mb", 1, 1 << 20, c.max_mb));
  if (YAML::Node o = t["otlp"]) TW_TRY(read_otlp(r, o, c.otlp));
  return Status::Ok();
}

}  // namespace toolwire::gateway::config_yaml
