#include "telemetry/otlp/span_map.h"

#include <type_traits>

namespace toolwire::telemetry::otlp {
namespace {

uint64_t nanos(int64_t us) { return us > 0 ? static_cast<uint64_t>(us) * 1000u : 0u; }

std::string id_bytes(std::string_view hex, size_t bytes) {
  std::string out = hex_bytes(hex, bytes);
  return out.empty() ? hex_bytes(random_hex_id(bytes), bytes) : out;
}

AnyValue any_of(const Value& v) {
  return std::visit([](const auto& x) -> AnyValue { return x; }, v);
}

// A span's own attributes, typed as the conventions say: finish reasons are
// a string array; the provider is the conventions' name for the profile.
void copy_attributes(const Span& s, Attributes& out) {
  for (const auto& [k, v] : s.attributes) {
    const auto* text = std::get_if<std::string>(&v);
    if (k == "gen_ai.response.finish_reasons" && text)
      out.emplace_back(k, std::vector<std::string>{*text});
    else if (k == "gen_ai.provider.name" && text)
      out.emplace_back(k, std::string(provider_name(*text)));
    else
      out.emplace_back(k, any_of(v));
  }
}

bool has(const Attributes& a, std::string_view key) {
  for (const auto& [k, v] : a)
    if (k == key) return true;
  return false;
}

OtlpSpan root_of(const Trace& t) {
  OtlpSpan r;
  r.trace_id = id_bytes(t.trace_id, 16);
  r.span_id = id_bytes(random_hex_id(8), 8);
  r.kind = SpanKind::server;
  r.start_ns = nanos(t.start_us);
  r.end_ns = nanos(t.start_us + t.duration_us);
  const bool turn = t.kind == "conductor_turn";
  if (turn) {
    // A conductor turn runs an agent: the conventions' invoke_agent span.
    r.name = "invoke_agent " + t.name;
    r.attributes.emplace_back("gen_ai.operation.name", std::string("invoke_agent"));
    r.attributes.emplace_back("gen_ai.agent.name", t.name);
  } else {
    // A gateway request is an HTTP server span: "{method} {route}".
    r.name = "POST " + t.name;
    r.attributes.emplace_back("http.request.method", std::string("POST"));
    r.attributes.emplace_back("http.route", t.name);
    r.attributes.emplace_back("http.response.status_code", int64_t{t.status});
  }
  if (!t.model.empty()) r.attributes.emplace_back("gen_ai.request.model", t.model);
  r.attributes.emplace_back("toolwire.trace.kind", t.kind);
  r.attributes.emplace_back("toolwire.route", t.name);
  if (!t.key_name.empty()) r.attributes.emplace_back("toolwire.key_name", t.key_name);
  // A server span fails on a 5xx (or no answer), not on the caller's 4xx.
  if (t.status >= 500 || t.status == 0) {
    r.status = StatusCode::error;
    r.attributes.emplace_back(
        "error.type", t.status == 0 ? std::string("no_response") : std::to_string(t.status));
  }
  return r;
}

}  // namespace

std::string_view provider_name(std::string_view profile) {
  if (profile == "gemini") return "gcp.gemini";
  if (profile == "bedrock") return "aws.bedrock";
  if (profile == "openai_responses" || profile == "openai_completions") return "openai";
  return profile;
}

std::string hex_bytes(std::string_view hex, size_t bytes) {
  if (hex.size() != bytes * 2) return {};
  auto nibble = [](char c) -> int {
    if (c >= '0' && c <= '9') return c - '0';
    if (c >= 'a' && c <= 'f') return c - 'a' + 10;
    if (c >= 'A' && c <= 'F') return c - 'A' + 10;
    return -1;
  };
  std::string out(bytes, '\0');
  for (size_t i = 0; i < bytes; ++i) {
    int hi = nibble(hex[2 * i]), lo = nibble(hex[2 * i + 1]);
    if (hi < 0 || lo < 0) return {};
    out[i] = static_cast<char>((hi << 4) | lo);
  }
  return out;
}

std::vector<OtlpSpan> map_trace(const Trace& t) {
  std::vector<OtlpSpan> out;
  out.reserve(t.spans.size() + 1);
  out.push_back(root_of(t));
  const OtlpSpan& root = out.front();
  const std::string trace_id = root.trace_id, root_id = root.span_id;
  for (const auto& s : t.spans) {
    OtlpSpan o;
    o.trace_id = trace_id;
    o.span_id = id_bytes(s.span_id, 8);
    o.parent_span_id = root_id;
    o.name = s.name;
    // A model call goes out to an upstream; a tool call runs here (or on a
    // device or the client, which toolwire.tool.runner says).
    o.kind = s.kind == "model_call" ? SpanKind::client : SpanKind::internal;
    o.start_ns = nanos(s.start_us);
    o.end_ns = nanos(s.start_us + s.duration_us);
    copy_attributes(s, o.attributes);
    if (!has(o.attributes, "toolwire.route")) o.attributes.emplace_back("toolwire.route", t.name);
    if (s.error) {
      o.status = StatusCode::error;
      o.status_message = s.status_message;  // redact()ed when the span ended
      if (!has(o.attributes, "error.type")) {
        const Value* outcome = s.get("toolwire.tool.outcome");
        const auto* text = outcome ? std::get_if<std::string>(outcome) : nullptr;
        o.attributes.emplace_back("error.type", text ? *text : std::string("error"));
      }
    }
    out.push_back(std::move(o));
  }
  return out;
}

}  // namespace toolwire::telemetry::otlp
