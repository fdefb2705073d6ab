// toolwire/tools/bfcl.h — importing Gorilla/BFCL-style function docs.
//
// The Berkeley Function Calling Leaderboard (and tools written for it) use
// Python type names in "parameters": dict, float, tuple, any, and Java/JS
// names in its Java and JavaScript sets. from_bfcl_parameters() turns such a
// schema into JSON Schema (mapping table in docs/tools.md):
//
//   dict/HashMap/Map -> object     float/double/Double -> number
//   tuple/Array/ArrayList/List -> array     any / "" / unknown -> {} (any value)
//   long/int/Integer -> integer    String/char -> string    Boolean -> boolean
//
// It also drops what would make a strict validator or a provider reject the
// schema: the non-standard "optional" keyword, `required` names missing from
// `properties`, and `default` values whose JSON type contradicts `type`.
//
//   auto schema = tools::from_bfcl_parameters(doc["parameters"]);
//   spec.input_schema = schema.dump();
#pragma once

#include <nlohmann/json.hpp>

namespace toolwire::tools {

nlohmann::ordered_json from_bfcl_parameters(const nlohmann::ordered_json& parameters);

}  // namespace toolwire::tools
