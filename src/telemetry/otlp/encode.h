// OTLP spans as the body of an OTLP/HTTP protobuf export: an
// opentelemetry.proto.collector.trace.v1.ExportTraceServiceRequest with one
// ResourceSpans (service.name and the SDK's attributes) and one ScopeSpans
// ("toolwire"), field numbers as in opentelemetry-proto's trace.proto.
#pragma once

#include <string>
#include <string_view>
#include <vector>

#include "telemetry/otlp/span_map.h"

namespace toolwire::telemetry::otlp {

std::string encode_export_request(const std::vector<OtlpSpan>& spans,
                                  std::string_view service_name);

}  // namespace toolwire::telemetry::otlp
