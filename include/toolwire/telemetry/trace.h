// toolwire/telemetry/trace.h — what the gateway keeps of one request or one
// conductor turn: a trace of spans, one per model call and one per tool call.
//
//   telemetry::Trace t = telemetry::Trace::begin("request", "/v1/chat/completions");
//   telemetry::Span& s = t.add_span("chat gpt-4o", "model_call");
//   s.set("gen_ai.request.model", "gpt-4o");
//   s.set("gen_ai.usage.input_tokens", int64_t{12});
//   t.end(200);
//   store.submit(std::move(t));      // trace_store.h: written off the request path
//
// Attribute names follow the OpenTelemetry GenAI semantic conventions where
// one exists (gen_ai.operation.name, gen_ai.request.model,
// gen_ai.usage.input_tokens, gen_ai.tool.name, gen_ai.tool.call.id, ...) and
// are `toolwire.*` otherwise (docs/traces.md lists them). A trace never holds
// a key, only the gateway key's name; content (messages, arguments, results)
// only when the route captures it, and then through redact().
#pragma once

#include <chrono>
#include <cstddef>
#include <cstdint>
#include <string>
#include <string_view>
#include <utility>
#include <variant>
#include <vector>

namespace toolwire::telemetry {

using Value = std::variant<std::string, int64_t, double, bool>;

// Microseconds since the Unix epoch, now.
int64_t unix_micros();
// `bytes` random bytes as lower-case hex (trace ids: 16, span ids: 8).
std::string random_hex_id(size_t bytes);

// An attribute's name: a string literal (the conventions' names are fixed),
// so a span keeps a view of it instead of a copy per attribute per request.
// Only character arrays known at compile time convert: a std::string, which
// could dangle, does not, and a name that would need escaping in JSON (a
// quote, a backslash, a control byte) does not compile, so the trace's JSON
// writes names as they are.
struct AttrKey {
  template <size_t N>
  consteval AttrKey(const char (&literal)[N])  // NOLINT(google-explicit-constructor)
      : name(literal, N - 1) {
    for (char c : name)
      if (static_cast<unsigned char>(c) < 0x20 || c == '"' || c == '\\')
        throw "an attribute name must need no JSON escaping";  // a compile error
  }
  std::string_view name;
};

struct Span {
  std::string span_id;  // 16 hex digits
  std::string name;     // "chat MODEL", "execute_tool NAME"
  std::string kind;     // "model_call" | "tool_call"
  int64_t start_us = 0;
  int64_t duration_us = 0;
  bool error = false;
  std::string status_message;  // why it failed (never a secret: redact()ed)
  std::vector<std::pair<std::string_view, Value>> attributes;  // names: AttrKey literals

  void set(AttrKey key, Value v);
  const Value* get(std::string_view key) const;
  // The span ends now (duration from start_us).
  void end(bool failed = false, std::string message = {});
};

struct Trace {
  std::string trace_id;  // 32 hex digits: the start time's µs (16), then random (16)
  std::string kind;      // "request" | "conductor_turn"
  std::string name;      // the caller's endpoint ("/v1/messages", ...) or "conductor"
  std::string key_name;  // the gateway key's name; "" without keys
  std::string model;     // as the caller asked
  int status = 0;        // the answer's HTTP status (a conductor turn: 200 or 500)
  bool error = false;
  int64_t start_us = 0;
  int64_t duration_us = 0;
  std::vector<Span> spans;

  static Trace begin(std::string kind, std::string name);
  Span& add_span(std::string name, std::string kind);
  void end(int http_status);

  // {"trace_id", "kind", "name", "key", "model", "status", "error", "start_us",
  //  "duration_us", "spans": [{"span_id", "name", "kind", "start_us",
  //  "duration_us", "error", "status_message", "attributes": {...}}]}
  std::string to_json() const;
  // The "spans" array of to_json(), alone: what the trace store keeps beside
  // the summary fields it holds in columns (a smaller row: SQLite's cost per
  // insert follows the row's size).
  std::string spans_json() const;
  // to_json()'s object from `summary`'s fields (its spans are not read) and
  // a spans_json() array: the store's get() puts a row back together with it.
  static std::string json_with_spans(const Trace& summary, std::string_view spans);
};

// Secrets out of text that may hold them (captured content, error
// messages): API-key shapes (sk-..., sk-ant-..., AKIA..., AIza..., xox?-...,
// ghp_...), `Bearer <token>` and `Basic <token>`, become "[redacted]".
std::string redact(std::string_view text);

}  // namespace toolwire::telemetry
