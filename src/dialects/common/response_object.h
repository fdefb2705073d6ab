// response_object.h — the opening every response decoder shares: parse,
// require an object, mark the dialect. (The encoders' frame: request_object.h.)
#pragma once

#include <simdjson.h>

#include <string>
#include <string_view>

#include "dialects/common/json_in.h"
#include "dialects/common/placed_member.h"
#include "dialects/common/style.h"
#include "toolwire/core/json_writer.h"
#include "toolwire/core/result.h"
#include "toolwire/ir/response.h"

namespace toolwire::dialects {

// The body's top-level object, parsed with one parser per thread (the
// response IR copies what it keeps); `resp.source_dialect` is set.
inline Result<json::object> open_response(std::string_view body, std::string_view dialect,
                                          ir::Response& resp) {
  thread_local simdjson::dom::parser parser;
  TW_ASSIGN(json::element root, json::parse(parser, body));
  TW_ASSIGN(json::object obj, json::as_object(root, json::Path()));
  resp.source_dialect.assign(dialect);
  return obj;
}

// A response's extras, after `skip(extra)` ones the encoder writes itself:
// written back when the response came from the encoder's own dialect
// (`same`), else each dropped with a warning ("has no <target> equivalent").
template <class Skip>
void write_response_extras(JsonWriter& w, const ir::Response& resp, bool same,
                           std::string_view target, Warnings& warnings, Skip&& skip) {
  const json::Path root;
  for (const auto& e : resp.extra) {
    if (skip(e)) continue;
    if (is_placed_key(e.key)) [[unlikely]] {
      // A nested member (placed_member.h): its own dialect's encoder wrote it
      // in place (each encoder of a dialect that keeps them does); any other
      // drops it at its path.
      if (!same && !placed_value_is_empty(e.raw_json))
        warn(warnings, "dropped_unknown_field", e.key,
             "field '" + std::string(placed_member_name(e.key)) + "' has no " +
                 std::string(target) + " equivalent");
      continue;
    }
    if (same)
      w.field_raw(e.key, e.raw_json);
    else
      warn(warnings, "dropped_unknown_field", json::Path(root, e.key),
           "field '" + e.key + "' has no " + std::string(target) + " equivalent");
  }
}
inline void write_response_extras(JsonWriter& w, const ir::Response& resp, bool same,
                                  std::string_view target, Warnings& warnings) {
  write_response_extras(w, resp, same, target, warnings, [](const auto&) { return false; });
}

}  // namespace toolwire::dialects
