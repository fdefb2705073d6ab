#include "toolwire/telemetry/trace.h"

#include <nlohmann/json.hpp>
#include <random>

namespace toolwire::telemetry {

int64_t unix_micros() {
  return std::chrono::duration_cast<std::chrono::microseconds>(
             std::chrono::system_clock::now().time_since_epoch())
      .count();
}

// Ids only need to be unique, not secret: a per-thread generator seeded
// from the system's entropy once (no lock, no system call per id).
std::string random_hex_id(size_t bytes) {
  thread_local std::mt19937_64 rng = [] {
    std::seed_seq seq{std::random_device{}(), std::random_device{}(), std::random_device{}(),
                      std::random_device{}()};
    return std::mt19937_64(seq);
  }();
  static const char* hex = "0123456789abcdef";
  std::string out(bytes * 2, '0');
  for (size_t i = 0; i < bytes; i += 8) {
    uint64_t v = rng();
    for (size_t k = 0; k < 8 && i + k < bytes; ++k, v >>= 8) {
      out[2 * (i + k)] = hex[(v >> 4) & 15];
      out[2 * (i + k) + 1] = hex[v & 15];
    }
  }
  return out;
}

void Span::set(std::string key, Value v) {
  for (auto& [k, old] : attributes)
    if (k == key) {
      old = std::move(v);
      return;
    }
  attributes.emplace_back(std::move(key), std::move(v));
}

const Value* Span::get(std::string_view key) const {
  for (const auto& [k, v] : attributes)
    if (k == key) return &v;
  return nullptr;
}

void Span::end(bool failed, std::string message) {
  duration_us = std::max<int64_t>(0, unix_micros() - start_us);
  error = failed;
  status_message = redact(message);
}

Trace Trace::begin(std::string kind, std::string name) {
  Trace t;
  t.trace_id = random_hex_id(16);
  t.kind = std::move(kind);
  t.name = std::move(name);
  t.start_us = unix_micros();
  return t;
}

Span& Trace::add_span(std::string name, std::string kind) {
  Span& s = spans.emplace_back();
  s.span_id = random_hex_id(8);
  s.name = std::move(name);
  s.kind = std::move(kind);
  s.start_us = unix_micros();
  return s;
}

void Trace::end(int http_status) {
  status = http_status;
  duration_us = std::max<int64_t>(0, unix_micros() - start_us);
  error = error || http_status >= 400 || http_status == 0;
  for (const auto& s : spans) error = error || s.error;
}

std::string Trace::to_json() const {
  using nlohmann::ordered_json;
  ordered_json j;
  j["trace_id"] = trace_id;
  j["kind"] = kind;
  j["name"] = name;
  j["key"] = key_name;
  j["model"] = model;
  j["status"] = status;
  j["error"] = error;
  j["start_us"] = start_us;
  j["duration_us"] = duration_us;
  ordered_json spans_json = ordered_json::array();
  for (const auto& s : spans) {
    ordered_json sj;
    sj["span_id"] = s.span_id;
    sj["name"] = s.name;
    sj["kind"] = s.kind;
    sj["start_us"] = s.start_us;
    sj["duration_us"] = s.duration_us;
    sj["error"] = s.error;
    if (!s.status_message.empty()) sj["status_message"] = s.status_message;
    ordered_json attrs = ordered_json::object();
    for (const auto& [k, v] : s.attributes) std::visit([&](const auto& x) { attrs[k] = x; }, v);
    sj["attributes"] = std::move(attrs);
    spans_json.push_back(std::move(sj));
  }
  j["spans"] = std::move(spans_json);
  return j.dump(-1, ' ', false, ordered_json::error_handler_t::replace);
}

}  // namespace toolwire::telemetry
