// redact(): secrets out of text a trace keeps. One pass; a token is the
// run of [A-Za-z0-9_-.+/=] after a known prefix.
#include <array>
#include <cctype>

#include "toolwire/telemetry/trace.h"

namespace toolwire::telemetry {
namespace {

bool token_char(char c) {
  return std::isalnum(static_cast<unsigned char>(c)) || c == '_' || c == '-' || c == '.' ||
         c == '+' || c == '/' || c == '=';
}

// Prefixes of key shapes, and how many token characters must follow.
struct Shape {
  std::string_view prefix;
  size_t min_rest;
};
constexpr std::array<Shape, 9> kShapes = {{{"sk-", 12},
                                           {"AKIA", 16},
                                           {"ASIA", 16},
                                           {"AIza", 20},
                                           {"ghp_", 20},
                                           {"xoxb-", 10},
                                           {"xoxp-", 10},
                                           {"Bearer ", 8},
                                           {"Basic ", 8}}};

}  // namespace

std::string redact(std::string_view text) {
  std::string out;
  out.reserve(text.size());
  size_t i = 0;
  while (i < text.size()) {
    bool hit = false;
    // A prefix counts at a token's start only ("task-..." holds no key).
    if (i == 0 || !token_char(text[i - 1]))
      for (const auto& s : kShapes) {
        if (text.compare(i, s.prefix.size(), s.prefix) != 0) continue;
        size_t end = i + s.prefix.size();
        while (end < text.size() && token_char(text[end])) ++end;
        if (end - (i + s.prefix.size()) < s.min_rest) continue;
        out += "[redacted]";
        i = end;
        hit = true;
        break;
      }
    if (!hit) out += text[i++];
  }
  return out;
}

}  // namespace toolwire::telemetry
