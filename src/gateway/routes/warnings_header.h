// The `toolwire-warnings` response header: what the translation could not
// express, as `code (path)` items joined by "; " — one header line, no
// message text (that goes to the log), so it stays short and ASCII.
#pragma once

#include <string>

#include "toolwire/core/warnings.h"

namespace toolwire::gateway::routes {

inline void append_warnings(std::string& out, const Warnings& ws) {
  for (const auto& w : ws) {
    if (!out.empty()) out += "; ";
    for (char c : w.code)
      if (c >= 0x20 && c < 0x7f) out += c;
    if (!w.path.empty()) {
      out += " (";
      for (char c : w.path)
        if (c >= 0x20 && c < 0x7f) out += c;
      out += ')';
    }
  }
}

inline std::string format_warnings(const Warnings& a, const Warnings& b) {
  std::string out;
  append_warnings(out, a);
  append_warnings(out, b);
  return out;
}

}  // namespace toolwire::gateway::routes
