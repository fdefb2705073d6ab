// toolwire/core/json_depth.h — one nesting limit for every JSON entry point.
//
// A recursive walk over JSON nested 100,000 deep overflows any thread's
// stack. The codecs' simdjson parsers stop at kMaxJsonDepth; every other
// place that parses JSON from outside (conductor frames, MCP messages, tool
// schemas and arguments, configuration) checks the text first:
//
//   if (json_deeper_than(text)) return error("nested more than 1023 levels deep");
//   auto j = nlohmann::json::parse(text, nullptr, false);
#pragma once

#include "toolwire/core/result.h"

#include <cstddef>
#include <string>
#include <string_view>

namespace toolwire {

// Levels of arrays/objects a JSON value may nest (as the codecs count them).
inline constexpr size_t kMaxJsonDepth = 1023;

// True when `text` nests arrays and objects deeper than `max_depth` (brackets
// outside strings; stops at the first level past the cap). Says nothing of
// the text's validity otherwise.
bool json_deeper_than(std::string_view text, size_t max_depth = kMaxJsonDepth);

// The message every entry point gives: "nested more than N levels deep".
std::string json_too_deep_message(size_t max_depth = kMaxJsonDepth);

// Json::parse(text, nullptr, false) (nlohmann::json or ordered_json) that
// gives a discarded value, as for invalid JSON, when `text` nests deeper than
// `max_depth`.
template <class Json>
Json parse_json_bounded(std::string_view text, size_t max_depth = kMaxJsonDepth) {
  if (json_deeper_than(text, max_depth)) return Json(Json::value_t::discarded);
  return Json::parse(text, nullptr, false);
}

// parse_json_bounded of a document that must be one object: `what` names it
// in the error ("<what> is not valid JSON", "<what> must be an object").
template <class Json>
Result<Json> parse_json_object(std::string_view text, std::string_view what) {
  Json j = parse_json_bounded<Json>(text);
  if (j.is_discarded())
    return make_error(ErrorCode::parse_error, std::string(what) + " is not valid JSON", "$");
  if (!j.is_object())
    return make_error(ErrorCode::invalid_argument, std::string(what) + " must be an object", "$");
  return j;
}

}  // namespace toolwire
