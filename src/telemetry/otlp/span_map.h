// A finished trace as OTLP spans, named and attributed by the OpenTelemetry
// GenAI semantic conventions: a root span for the request (SERVER,
// "POST /v1/chat/completions") or the conductor turn (SERVER,
// "invoke_agent conductor"), and under it a CLIENT span per model call
// ("chat MODEL") and an INTERNAL span per tool call ("execute_tool NAME").
#pragma once

#include <cstdint>
#include <string>
#include <string_view>
#include <utility>
#include <variant>
#include <vector>

#include "toolwire/telemetry/trace.h"

namespace toolwire::telemetry::otlp {

// An attribute's value: OTLP's AnyValue, less what no span here carries.
using AnyValue = std::variant<std::string, int64_t, double, bool, std::vector<std::string>>;
using Attributes = std::vector<std::pair<std::string, AnyValue>>;

// opentelemetry.proto.trace.v1.Span.SpanKind and Status.StatusCode.
enum class SpanKind : int { internal = 1, server = 2, client = 3 };
enum class StatusCode : int { unset = 0, ok = 1, error = 2 };

struct OtlpSpan {
  std::string trace_id;        // 16 bytes
  std::string span_id;         // 8 bytes
  std::string parent_span_id;  // 8 bytes; empty: a root
  std::string name;
  SpanKind kind = SpanKind::internal;
  uint64_t start_ns = 0;  // Unix nanoseconds
  uint64_t end_ns = 0;
  Attributes attributes;
  StatusCode status = StatusCode::unset;
  std::string status_message;
};

// The root first, then the trace's spans in their order, each a child of
// the root. Ids that are not hex of the right size get random ones.
std::vector<OtlpSpan> map_trace(const Trace& t);

// The GenAI conventions' gen_ai.provider.name for a toolwire profile
// ("gemini" → "gcp.gemini", "bedrock" → "aws.bedrock"; others as they are).
std::string_view provider_name(std::string_view profile);

// Lower- or upper-case hex to bytes; "" when it is not hex of `bytes` bytes.
std::string hex_bytes(std::string_view hex, size_t bytes);

}  // namespace toolwire::telemetry::otlp
