// Realistic model outputs per family and what they must parse to. Shared by
// families_test.cc (one piece) and incremental_test.cc (every split).
#pragma once

#include <string>
#include <vector>

namespace toolwire::textformats::testing {

struct Call {
  std::string name;
  std::string arguments;  // JSON, compared as values
  std::string id = {};
};

struct Case {
  std::string family;
  std::string name;
  std::string input;
  std::string content;
  std::string reasoning;
  std::vector<Call> calls;               // complete calls only
  std::vector<std::string> errors = {};  // substrings, one per error, in order
  bool tools = false;                    // parse with kTools
  bool reasoning_open = false;           // the prompt ended inside the reasoning block
};

// get_weather(city: string, days: integer), set_flag(on: boolean),
// configure(options: object, tags: array), list_files().
inline constexpr const char* kTools = R"([
 {"type":"function","function":{"name":"get_weather","parameters":{"type":"object",
   "properties":{"city":{"type":"string"},"days":{"type":"integer"}},"required":["city"]}}},
 {"type":"function","function":{"name":"set_flag","parameters":{"type":"object",
   "properties":{"on":{"type":"boolean"}}}}},
 {"type":"function","function":{"name":"configure","parameters":{"type":"object",
   "properties":{"options":{"type":"object"},"tags":{"type":"array"}}}}},
 {"type":"function","function":{"name":"list_files","parameters":{"type":"object","properties":{}}}}
])";

const std::vector<Case>& all_cases();
// cases_real.cc: what real model output adds to the textbook markup.
void add_real_output_cases(std::vector<Case>& c);

}  // namespace toolwire::textformats::testing
