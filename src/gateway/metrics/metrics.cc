#include "gateway/metrics/metrics.h"

#include <algorithm>
#include <charconv>
#include <cstdint>
#include <cstdio>
#include <cstring>
#include <vector>

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

// A series' key: its label values, each after its length (4 bytes), so that
// any byte may sit in a value. Built in a thread's reused buffer and looked
// up without a copy; the labels are escaped only when the text is written.
std::string_view key_of(std::initializer_list<std::string_view> values) {
  thread_local std::string key;
  key.clear();
  for (std::string_view v : values) {
    auto n = static_cast<uint32_t>(v.size());
    key.append(reinterpret_cast<const char*>(&n), sizeof n);
    key.append(v);
  }
  return key;
}

// The label set of `key` as Prometheus writes it: {name="value",...}.
std::string labels_of(std::string_view key, std::initializer_list<std::string_view> names) {
  std::string out = "{";
  for (std::string_view name : names) {
    uint32_t n = 0;
    if (key.size() < sizeof n) break;
    std::memcpy(&n, key.data(), sizeof n);
    key.remove_prefix(sizeof n);
    label(out, name, key.substr(0, n));
    key.remove_prefix(std::min<size_t>(n, key.size()));
  }
  out += '}';
  return out;
}

// A family's series as (labels, value), in the order of their label text.
template <class Map>
auto sorted_series(const Map& m, std::initializer_list<std::string_view> names) {
  std::vector<std::pair<std::string, const typename Map::mapped_type*>> out;
  out.reserve(m.size());
  for (const auto& [key, v] : m) out.emplace_back(labels_of(key, names), &v);
  std::sort(out.begin(), out.end(), [](const auto& a, const auto& b) { return a.first < b.first; });
  return out;
}

std::string number(double v) {
  char buf[32];
  std::snprintf(buf, sizeof buf, "%.9g", v);
  return buf;
}

// The series of `key` in a family, capped at `max` series: past it a new
// series counts under the key `overflow()` gives instead.
template <class Map, class Overflow>
typename Map::mapped_type& series(Map& m, std::string_view key, size_t max, Overflow overflow) {
  auto it = m.find(key);
  if (it != m.end()) return it->second;
  if (m.size() >= max) {
    key = overflow();
    it = m.find(key);
    if (it != m.end()) return it->second;
  }
  return m.emplace(std::string(key), typename Map::mapped_type{}).first->second;
}

std::string_view unbounded() { return {}; }

}  // namespace

void Metrics::request(std::string_view route, std::string_view model, int status, double seconds) {
  char st[12];
  auto [end, ec] = std::to_chars(st, st + sizeof st, status);
  std::string_view status_text(st, static_cast<size_t>(end - st));
  std::string_view key = key_of({route, model, status_text});
  std::lock_guard lock(mu_);
  Histogram& h = series(requests_, key, kMaxSeries, [&] {
    return key_of({route, "other", status_text});
  });
  for (size_t i = 0; i < kBuckets.size(); ++i)
    if (seconds <= kBuckets[i]) ++h.counts[i];
  ++h.count;
  h.sum += seconds;
}

void Metrics::upstream_attempt(std::string_view upstream, std::string_view error_kind) {
  std::lock_guard lock(mu_);
  // Upstreams are the configuration's: no cap.
  ++series(upstream_, key_of({upstream}), SIZE_MAX, unbounded);
  if (!error_kind.empty())
    ++series(upstream_errors_, key_of({upstream, error_kind}), SIZE_MAX, unbounded);
}

void Metrics::tool_call(std::string_view name, std::string_view outcome) {
  std::string_view key = key_of({name, outcome});
  std::lock_guard lock(mu_);
  ++series(tools_, key, kMaxSeries, [&] { return key_of({"other", outcome}); });
}

void Metrics::translation_warning(std::string_view route, std::string_view code,
                                  std::string_view stage) {
  std::string_view key = key_of({route, code, stage});
  std::lock_guard lock(mu_);
  ++series(warnings_, key, kMaxSeries, [&] { return key_of({route, "other", stage}); });
}

std::string Metrics::text() const {
  std::string out;
  out.reserve(4096);
  std::lock_guard lock(mu_);
  out +=
      "# HELP toolwire_request_duration_seconds From a whole request to the end of its answer.\n"
      "# TYPE toolwire_request_duration_seconds histogram\n";
  const auto requests = sorted_series(requests_, {"route", "model", "status"});
  for (const auto& [key, hp] : requests) {
    const Histogram& h = *hp;
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
  for (const auto& [key, h] : requests)
    out += "toolwire_requests_total" + key + " " + std::to_string(h->count) + "\n";
  out +=
      "# HELP toolwire_upstream_attempts_total Requests sent to an upstream.\n"
      "# TYPE toolwire_upstream_attempts_total counter\n";
  for (const auto& [key, n] : sorted_series(upstream_, {"upstream"}))
    out += "toolwire_upstream_attempts_total" + key + " " + std::to_string(*n) + "\n";
  out +=
      "# HELP toolwire_upstream_errors_total Failed upstream attempts, by kind.\n"
      "# TYPE toolwire_upstream_errors_total counter\n";
  for (const auto& [key, n] : sorted_series(upstream_errors_, {"upstream", "kind"}))
    out += "toolwire_upstream_errors_total" + key + " " + std::to_string(*n) + "\n";
  out +=
      "# HELP toolwire_tool_calls_total Tool calls seen by the gateway, by name and outcome.\n"
      "# TYPE toolwire_tool_calls_total counter\n";
  for (const auto& [key, n] : sorted_series(tools_, {"tool", "outcome"}))
    out += "toolwire_tool_calls_total" + key + " " + std::to_string(*n) + "\n";
  out +=
      "# HELP toolwire_translation_warnings_total Fields a translation dropped or approximated, "
      "by route, warning code and stage (header: named in the toolwire-warnings header; stream: "
      "found after a stream's headers).\n"
      "# TYPE toolwire_translation_warnings_total counter\n";
  for (const auto& [key, n] : sorted_series(warnings_, {"route", "code", "stage"}))
    out += "toolwire_translation_warnings_total" + key + " " + std::to_string(*n) + "\n";
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
