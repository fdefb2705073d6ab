// Expected results of the JSON-Schema-Test-Suite run and the tests skipped,
// each with the reason (mirrored in docs/tools.md).
#pragma once

#include <cstring>
#include <string>

namespace {

struct Expected {
  const char* draft;
  const char* file;
  int total;
  int passed;
};

struct Skip {
  const char* draft;
  const char* file;
  const char* test;  // "case description / test description"
  const char* reason;
};

inline const Expected kExpected[] = {
#include "expected.inc"
};

inline const Skip kSkips[] = {
#include "skips.inc"
    {nullptr, nullptr, nullptr, nullptr},
};

inline const char* skip_reason(const std::string& draft, const std::string& file,
                               const std::string& test) {
  for (const auto& s : kSkips)
    if (s.test && draft == s.draft && file == s.file && test == s.test) return s.reason;
  return nullptr;
}

}  // namespace
