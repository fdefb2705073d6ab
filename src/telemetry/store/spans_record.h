// The trace store's row form of a trace's spans: compact bytes instead of
// their JSON. A model call's span was about 900 bytes of JSON, two thirds of
// it attribute names, and SQLite's cost per insert follows the row's size;
// here a known name is one byte, numbers are varints, nothing is escaped.
//
//   record  = 0x01 (the form; a JSON row starts with '{' or '[') varint(n) span*n
//   span    = str(span_id) str(name) str(kind) zigzag(start_us)
//             zigzag(duration_us) byte(error) str(status_message)
//             varint(attributes) attribute*
//   attribute = varint(k) [str(name) if k == 0: a name not in the table; else
//               the table's name k-1] value
//   value   = 0 str | 1 zigzag(int) | 2 8 bytes (double, little-endian) |
//             3 false | 4 true
//   str     = varint(length) bytes
//
// get() turns a record back into Trace::spans_json()'s bytes exactly.
#pragma once

#include <deque>
#include <string>
#include <string_view>
#include <vector>

#include "toolwire/core/result.h"
#include "toolwire/telemetry/trace.h"

namespace toolwire::telemetry {

inline constexpr unsigned char kSpansRecordForm = 0x01;

// Appends the record of `spans` to `out`.
void append_spans_record(const std::vector<Span>& spans, std::string& out);

// Spans read back from a record. Their attribute names point into the
// table's literals or into `names` (names the table lacks): keep this
// object while the spans are used.
struct DecodedSpans {
  std::vector<Span> spans;
  std::deque<std::string> names;
};

// The spans of a record (its first byte kSpansRecordForm), or an error for
// bytes that are not one: cut short, a length past the end, an unknown tag,
// a name that would need escaping in JSON, bytes left over.
Result<DecodedSpans> decode_spans_record(std::string_view record);

// A record as Trace::spans_json() writes its spans.
Result<std::string> spans_record_json(std::string_view record);

}  // namespace toolwire::telemetry
