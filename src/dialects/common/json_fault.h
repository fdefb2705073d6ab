// json_fault.h — where a JSON text first goes wrong, for error messages.
//
// Private to the codecs. simdjson's DOM parser says what kind of error it
// met but not where, so json::parse calls this only after a parse failed
// (never on the happy path): one validating pass over the text, with
// simdjson's own rules (RFC 8259; depth limit as simdjson counts it — a
// non-empty container opens a level; integers must fit int64 or uint64,
// doubles must be finite), stopping at the first byte that cannot be part of
// a valid document.
//
//   if (auto f = find_json_fault(text, parser.max_depth()))
//     ... f->offset, f->reason; line_column(text, f->offset) ...
#pragma once

#include <cstddef>
#include <optional>
#include <string>
#include <string_view>

namespace toolwire::dialects::json {

struct JsonFault {
  size_t offset = 0;   // byte offset of the first bad byte (text.size(): it ends too early)
  std::string reason;  // "expected ',' or '}'", "invalid escape", ...
};

// The first fault of `text` as a JSON document, or nullopt when it is valid.
std::optional<JsonFault> find_json_fault(std::string_view text, size_t max_depth);

// The offset of the first byte that is not part of valid UTF-8, if any.
std::optional<size_t> find_invalid_utf8(std::string_view text);

// 1-based line and column of `offset`; columns count characters (UTF-8 lead
// bytes), lines end at '\n'.
struct LineColumn {
  size_t line = 1;
  size_t column = 1;
};
LineColumn line_column(std::string_view text, size_t offset);

}  // namespace toolwire::dialects::json
