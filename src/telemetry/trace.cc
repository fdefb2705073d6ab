#include "toolwire/telemetry/trace.h"

#include <algorithm>
#include <random>
#include <type_traits>

#include "toolwire/core/json_writer.h"

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

void Span::set(AttrKey key, Value v) {
  for (auto& [k, old] : attributes)
    if (k == key.name) {
      old = std::move(v);
      return;
    }
  if (attributes.empty()) attributes.reserve(16);  // a model call's span holds about 15
  attributes.emplace_back(key.name, std::move(v));
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
  t.kind = std::move(kind);
  t.name = std::move(name);
  t.start_us = unix_micros();
  // Time first, then random (as UUIDv7): ids grow with time, so the store's
  // id index takes each new one at its right edge — one page written per
  // batch, not one random page per trace.
  static const char* hex = "0123456789abcdef";
  std::string id(16, '0');
  auto us = static_cast<uint64_t>(t.start_us);
  for (int i = 15; i >= 0; --i, us >>= 4) id[static_cast<size_t>(i)] = hex[us & 15];
  t.trace_id = id + random_hex_id(8);
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

// Written with the codecs' JsonWriter (one pass, no DOM): this runs once per
// trace on the store's writer thread.
std::string Trace::spans_json() const {
  std::string out;
  out.reserve(64 + spans.size() * 640);  // a model call's span is about 900 bytes
  JsonWriter w(out);
  w.begin_array();
  for (const auto& s : spans) {
    w.begin_object();
    w.field("span_id", std::string_view(s.span_id));
    w.field("name", std::string_view(s.name));
    w.field("kind", std::string_view(s.kind));
    w.field("start_us", s.start_us);
    w.field("duration_us", s.duration_us);
    w.field("error", s.error);
    if (!s.status_message.empty()) w.field("status_message", std::string_view(s.status_message));
    w.key("attributes");
    w.begin_object();
    for (const auto& [k, v] : s.attributes) {
      w.plain_key(k);  // an AttrKey: checked plain when it compiled
      std::visit(
          [&](const auto& x) {
            using T = std::decay_t<decltype(x)>;
            if constexpr (std::is_same_v<T, std::string>)
              w.string(x);
            else if constexpr (std::is_same_v<T, bool>)
              w.boolean(x);
            else
              w.number(x);
          },
          v);
    }
    w.end_object();
    w.end_object();
  }
  w.end_array();
  return out;
}

std::string Trace::json_with_spans(const Trace& summary, std::string_view spans) {
  std::string out;
  out.reserve(256 + spans.size());
  JsonWriter w(out);
  w.begin_object();
  w.field("trace_id", std::string_view(summary.trace_id));
  w.field("kind", std::string_view(summary.kind));
  w.field("name", std::string_view(summary.name));
  w.field("key", std::string_view(summary.key_name));
  w.field("model", std::string_view(summary.model));
  w.field("status", summary.status);
  w.field("error", summary.error);
  w.field("start_us", summary.start_us);
  w.field("duration_us", summary.duration_us);
  w.field_raw("spans", spans);
  w.end_object();
  return out;
}

std::string Trace::to_json() const { return json_with_spans(*this, spans_json()); }

}  // namespace toolwire::telemetry
