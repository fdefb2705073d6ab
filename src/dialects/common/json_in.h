// json_in.h — reading wire JSON with simdjson's DOM, with JSON paths in errors.
//
// Private to the codecs. Decoders walk a simdjson DOM (which picks the
// fastest SIMD kernel at run time) and copy only what the IR keeps. A `Path`
// lives on the stack as a chain of frames and is turned into text
// ("$.messages[3].content") only when an error is reported, so the happy path
// pays nothing for it.
#pragma once

#include <simdjson.h>

#include <cstdint>
#include <string>
#include <string_view>

#include "toolwire/core/result.h"
#include "toolwire/ir/source_map.h"

namespace toolwire::dialects::json {

using simdjson::dom::array;
using simdjson::dom::element;
using simdjson::dom::element_type;
using simdjson::dom::object;

// IR message `message` (its part `part`, unless kWhole) of a request, with
// the request's source map (source_place() in source_map.h): a Path frame
// holding one is written as the client's path when the map places it.
struct SourcePlace {
  std::string_view messages;  // empty: no map
  const ir::SourceSpan* spans = nullptr;
  size_t size = 0;
  uint32_t message = 0;
  uint32_t part = ir::SourceSpan::kWhole;
  // Appends the client's path; false if the map does not place it.
  bool append_to(std::string& out) const;
};

class Path {
 public:
  Path() = default;  // the root, "$"
  Path(const Path& parent, std::string_view key) : parent_(&parent), key_(key) {}
  Path(const Path& parent, size_t index) : parent_(&parent), index_(static_cast<int64_t>(index)) {}
  // parent[index], written as `place`'s client path when its map places it
  // (an encoder's IR message or part; `place` outlives the Path).
  Path(const Path& parent, size_t index, const SourcePlace& place)
      : parent_(&parent), index_(static_cast<int64_t>(index)), place_(&place) {}

  std::string str() const;

 private:
  void append_to(std::string& out) const;
  const Path* parent_ = nullptr;
  std::string_view key_;
  int64_t index_ = -1;
  const SourcePlace* place_ = nullptr;
};

// Parses `json` into `parser`'s DOM; errors name the problem (invalid UTF-8,
// nesting too deep, truncated input...).
Result<element> parse(simdjson::dom::parser& parser, std::string_view json);

Error invalid(const Path& path, std::string message);
std::string_view type_name(element_type type);

// Typed access: an error names the path and what was found instead.
// (The success paths are inline: decoders call these for every field.)
Error wrong_type(element e, const Path& path, std::string_view expected);
inline Result<object> as_object(element e, const Path& path) {
  if (e.is_object()) [[likely]]
    return e.get_object().value_unsafe();
  return wrong_type(e, path, "object");
}
inline Result<array> as_array(element e, const Path& path) {
  if (e.is_array()) [[likely]]
    return e.get_array().value_unsafe();
  return wrong_type(e, path, "array");
}
inline Result<std::string_view> as_string(element e, const Path& path) {
  if (e.is_string()) [[likely]]
    return e.get_string().value_unsafe();
  return wrong_type(e, path, "string");
}
Result<int64_t> as_int64(element e, const Path& path);
Result<double> as_double(element e, const Path& path);
Result<bool> as_bool(element e, const Path& path);

// The field's element if present and not null.
inline bool get(object obj, std::string_view key, element& out) {
  auto r = obj[key];
  if (r.error()) return false;
  out = r.value_unsafe();
  return !out.is_null();
}

// A required field.
Result<element> required(object obj, std::string_view key, const Path& path);

// The element serialized back to compact JSON text (simdjson's minifier).
std::string to_json(element e);

}  // namespace toolwire::dialects::json
