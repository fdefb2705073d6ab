#include "gateway/metrics/metrics.h"

#include <cstdio>

namespace toolwire::gateway {
namespace {

// A label value as Prometheus text wants it: backslash, quote and newline
// escaped. The format has no escape for other control bytes (a raw CR or NUL
// breaks scrapers), so each is written as the four visible characters \xHH
// (an escaped backslash, then xHH).
void label(std::string& out, std::string_view key, std::string_view value) {
  if (out.size() > 0 && out.back() != '{') out += ',';
  out += key;
  out += "=\"";
  for (char c : value) {
    auto u = static_cast<unsigned char>(c);
    if (c == '\\' || c == '"') {
      out += '\\';
    } else if (c == '\n') {
      out += "\\n";
      continue;
    } else if (u < 0x20 || u == 0x7f) {
      char hex[8];
      std::snprintf(hex, sizeof hex, "\\\\x%02x", u);
      out += hex;
      continue;
    }
    out += c;
  }
  out += '"';
}

std::string labels(std::initializer_list<std::pair<std::string_view, std::string_view>> kv) {
  std::string out = "{";
  for (const auto& [k, v] : kv) label(out, k, v);
  out += '}';
  return out;
}

std::string number(double v) {
  char buf[32];
  std::snprintf(buf, sizeof buf, "%.9g", v);
  return buf;
}

}  // namespace

void Metrics::request(std::string_view route, std::string_view model, int status, double seconds) {
  std::string st = std::to_string(status);
  std::string key = labels({{"route", route}, {"model", model}, {"status", st}});
  std::lock_guard lock(mu_);
  auto it = requests_.find(key);
  if (it == requests_.end() && requests_.size() >= kMaxSeries)
    key = labels({{"route", route}, {"model", "other"}, {"status", st}});
  Histogram& h = it != requests_.end() ? it->second : requests_[key];
  for (size_t i = 0; i < kBuckets.size(); ++i)
    if (seconds <= kBuckets[i]) ++h.counts[i];
  ++h.count;
  h.sum += seconds;
}

void Metrics::upstream_attempt(std::string_view upstream, std::string_view error_kind) {
  std::lock_guard lock(mu_);
  ++upstream_[labels({{"upstream", upstream}})];
  if (!error_kind.empty())
    ++upstream_errors_[labels({{"upstream", upstream}, {"kind", error_kind}})];
}

void Metrics::tool_call(std::string_view name, std::string_view outcome) {
  std::string key = labels({{"tool", name}, {"outcome", outcome}});
  std::lock_guard lock(mu_);
  if (tools_.size() >= kMaxSeries && !tools_.contains(key))
    key = labels({{"tool", "other"}, {"outcome", outcome}});
  ++tools_[key];
}

void Metrics::translation_warning(std::string_view route, std::string_view code,
                                  std::string_view stage) {
  std::string key = labels({{"route", route}, {"code", code}, {"stage", stage}});
  std::lock_guard lock(mu_);
  if (warnings_.size() >= kMaxSeries && !warnings_.contains(key))
    key = labels({{"route", route}, {"code", "other"}, {"stage", stage}});
  ++warnings_[key];
}

std::string Metrics::text() const {
  std::string out;
  out.reserve(4096);
  std::lock_guard lock(mu_);
  out +=
      "# HELP toolwire_request_duration_seconds From a whole request to the end of its answer.\n"
      "# TYPE toolwire_request_duration_seconds histogram\n";
  for (const auto& [key, h] : requests_) {
    // key is "{...}": bucket lines add le= inside it.
    std::string inner = key.substr(1, key.size() - 2);
    for (size_t i = 0; i < kBuckets.size(); ++i)
      out += "toolwire_request_duration_seconds_bucket{" + inner + ",le=\"" + number(kBuckets[i]) +
             "\"} " + std::to_string(h.counts[i]) + "\n";
    out += "toolwire_request_duration_seconds_bucket{" + inner + ",le=\"+Inf\"} " +
           std::to_string(h.count) + "\n";
    out += "toolwire_request_duration_seconds_sum" + key + " " + number(h.sum) + "\n";
    out += "toolwire_request_duration_seconds_count" + key + " " + std::to_string(h.count) + "\n";
  }
  out +=
      "# HELP toolwire_requests_total Requests answered, by route, model and HTTP status.\n"
      "# TYPE toolwire_requests_total counter\n";
  for (const auto& [key, h] : requests_)
    out += "toolwire_requests_total" + key + " " + std::to_string(h.count) + "\n";
  out +=
      "# HELP toolwire_upstream_attempts_total Requests sent to an upstream.\n"
      "# TYPE toolwire_upstream_attempts_total counter\n";
  for (const auto& [key, n] : upstream_)
    out += "toolwire_upstream_attempts_total" + key + " " + std::to_string(n) + "\n";
  out +=
      "# HELP toolwire_upstream_errors_total Failed upstream attempts, by kind.\n"
      "# TYPE toolwire_upstream_errors_total counter\n";
  for (const auto& [key, n] : upstream_errors_)
    out += "toolwire_upstream_errors_total" + key + " " + std::to_string(n) + "\n";
  out +=
      "# HELP toolwire_tool_calls_total Tool calls seen by the gateway, by name and outcome.\n"
      "# TYPE toolwire_tool_calls_total counter\n";
  for (const auto& [key, n] : tools_)
    out += "toolwire_tool_calls_total" + key + " " + std::to_string(n) + "\n";
  out +=
      "# HELP toolwire_translation_warnings_total Fields a translation dropped or approximated, "
      "by route, warning code and stage (header: named in the toolwire-warnings header; stream: "
      "found after a stream's headers).\n"
      "# TYPE toolwire_translation_warnings_total counter\n";
  for (const auto& [key, n] : warnings_)
    out += "toolwire_translation_warnings_total" + key + " " + std::to_string(n) + "\n";
  out +=
      "# HELP toolwire_active_streams Streamed answers in progress.\n"
      "# TYPE toolwire_active_streams gauge\n"
      "toolwire_active_streams " +
      std::to_string(active_streams_.load()) +
      "\n# HELP toolwire_open_connections Client connections open.\n"
      "# TYPE toolwire_open_connections gauge\n"
      "toolwire_open_connections " +
      std::to_string(connections_.load()) +
      "\n# HELP toolwire_connections_refused_total Connections closed at accept, by reason.\n"
      "# TYPE toolwire_connections_refused_total counter\n"
      "toolwire_connections_refused_total{reason=\"max_connections\"} " +
      std::to_string(refused_[0].load()) +
      "\ntoolwire_connections_refused_total{reason=\"per_address\"} " +
      std::to_string(refused_[1].load()) +
      "\ntoolwire_connections_refused_total{reason=\"descriptors\"} " +
      std::to_string(refused_[2].load()) +
      "\n# HELP toolwire_bytes_received_total Request bytes read from clients.\n"
      "# TYPE toolwire_bytes_received_total counter\n"
      "toolwire_bytes_received_total " +
      std::to_string(bytes_in_.load()) +
      "\n# HELP toolwire_bytes_sent_total Response bytes queued to clients.\n"
      "# TYPE toolwire_bytes_sent_total counter\n"
      "toolwire_bytes_sent_total " +
      std::to_string(bytes_out_.load()) +
      "\n# HELP toolwire_slow_clients_cut_total Clients cut for taking none of their output "
      "within the write timeout.\n"
      "# TYPE toolwire_slow_clients_cut_total counter\n"
      "toolwire_slow_clients_cut_total " +
      std::to_string(slow_clients_cut_.load()) + "\n";
  return out;
}

}  // namespace toolwire::gateway
