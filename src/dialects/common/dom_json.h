// dom_json.h — serializing a simdjson DOM element back to compact JSON text,
// fast. Private to the codecs.
//
// An object or array of the document json::parse read last on this thread is
// copied from its source text (source_text.h: spaces kept, line breaks
// dropped). Anything else is re-serialized from the DOM straight into one
// std::string with JsonWriter's escaping, about 3x faster than
// simdjson::minify(element) (which goes through a vector<char>).
//
//   std::string raw = dialects::json::compact(input_element);
//   dialects::json::append_compact(out, element);   // appends
//
// Re-serialized numbers keep their kind: integers as integers, doubles with a
// '.' or an exponent (1.0 stays "1.0"), shortest round-trip form; source
// slices keep the source's spelling.
#pragma once

#include <simdjson.h>

#include <string>

namespace toolwire::dialects::json {

void append_compact(std::string& out, simdjson::dom::element e);

inline std::string compact(simdjson::dom::element e) {
  std::string out;
  append_compact(out, e);
  return out;
}

}  // namespace toolwire::dialects::json
