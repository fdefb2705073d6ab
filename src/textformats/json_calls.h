// Calls written as JSON objects ({"name": ..., "arguments": {...}} and kin).
#pragma once

#include <array>
#include <initializer_list>
#include <string>
#include <string_view>

#include <simdjson.h>

#include "toolwire/core/result.h"

namespace toolwire::textformats {

struct JsonCall {
  std::string name;
  std::string id;
  std::string arguments;  // minified JSON object text
};

// The keys a family uses, first match wins (empty entries are unused).
struct CallKeys {
  using Keys = std::array<std::string_view, 3>;
  Keys name = {"name"};
  Keys arguments = {"arguments", "parameters"};
  Keys id = {"id"};
};

// One call object. Arguments given as a string holding JSON (OpenAI's
// habit) are parsed; missing arguments are {}. invalid_argument otherwise.
Result<JsonCall> json_call(simdjson::dom::element obj, simdjson::dom::parser& scratch,
                           const CallKeys& keys = {});

// Is `v` an object with a string under one of `keys`?
bool has_string_key(simdjson::dom::element v, std::initializer_list<std::string_view> keys);

}  // namespace toolwire::textformats
