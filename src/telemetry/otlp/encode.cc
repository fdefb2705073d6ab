#include "telemetry/otlp/encode.h"

#include <type_traits>

#include "telemetry/otlp/protobuf_writer.h"

namespace toolwire::telemetry::otlp {
namespace {

// opentelemetry.proto.common.v1.AnyValue: a oneof, so a default value
// (0, false, "") is still written.
void any_value(ProtoWriter& w, const AnyValue& v) {
  std::visit(
      [&](const auto& x) {
        using T = std::decay_t<decltype(x)>;
        if constexpr (std::is_same_v<T, std::string>)
          w.bytes_field(1, x, true);  // string_value
        else if constexpr (std::is_same_v<T, bool>)
          w.bool_field(2, x, true);  // bool_value
        else if constexpr (std::is_same_v<T, int64_t>)
          w.int_field(3, x, true);  // int_value
        else if constexpr (std::is_same_v<T, double>)
          w.double_field(4, x, true);  // double_value
        else
          w.message(5, [&](ProtoWriter& arr) {  // array_value: ArrayValue.values
            for (const auto& s : x)
              arr.message(1, [&](ProtoWriter& e) { e.bytes_field(1, s, true); });
          });
      },
      v);
}

// KeyValue { string key = 1; AnyValue value = 2; }, repeated as `field`.
void attributes(ProtoWriter& w, uint32_t field, const Attributes& attrs) {
  for (const auto& attr : attrs)  // not a structured binding: clang 14 cannot capture one
    w.message(field, [&](ProtoWriter& kv) {
      kv.bytes_field(1, attr.first);
      kv.message(2, [&](ProtoWriter& a) { any_value(a, attr.second); });
    });
}

void span(ProtoWriter& w, const OtlpSpan& s) {
  w.bytes_field(1, s.trace_id);
  w.bytes_field(2, s.span_id);
  w.bytes_field(4, s.parent_span_id);
  w.bytes_field(5, s.name);
  w.int_field(6, static_cast<int>(s.kind));
  w.fixed64_field(7, s.start_ns);
  w.fixed64_field(8, s.end_ns);
  attributes(w, 9, s.attributes);
  if (s.status != StatusCode::unset || !s.status_message.empty())
    w.message(15, [&](ProtoWriter& st) {
      st.bytes_field(2, s.status_message);
      st.int_field(3, static_cast<int>(s.status));
    });
}

}  // namespace

std::string encode_export_request(const std::vector<OtlpSpan>& spans,
                                  std::string_view service_name) {
  std::string out;
  ProtoWriter w(out);
  w.message(1, [&](ProtoWriter& rs) {      // ExportTraceServiceRequest.resource_spans
    rs.message(1, [&](ProtoWriter& res) {  // ResourceSpans.resource
      attributes(res, 1,
                 {{"service.name", std::string(service_name)},
                  {"telemetry.sdk.name", std::string("toolwire")},
                  {"telemetry.sdk.language", std::string("cpp")}});
    });
    rs.message(2, [&](ProtoWriter& ss) {  // ResourceSpans.scope_spans
      ss.message(1, [&](ProtoWriter& scope) { scope.bytes_field(1, "toolwire"); });
      for (const auto& s : spans) ss.message(2, [&](ProtoWriter& sw) { span(sw, s); });
    });
  });
  return out;
}

}  // namespace toolwire::telemetry::otlp
