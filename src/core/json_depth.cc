#include "toolwire/core/json_depth.h"

#include <cstring>

namespace toolwire {

bool json_deeper_than(std::string_view s, size_t max_depth) {
  size_t depth = 0;
  const char* p = s.data();
  const char* end = p + s.size();
  while (p < end) {
    char c = *p++;
    if (c == '"') {
      // Skip the string: to the next quote not escaped by a backslash.
      for (;;) {
        const void* q = std::memchr(p, '"', static_cast<size_t>(end - p));
        if (!q) return false;
        const char* quote = static_cast<const char*>(q);
        size_t backslashes = 0;
        for (const char* b = quote; b > p && b[-1] == '\\'; --b) ++backslashes;
        p = quote + 1;
        if (backslashes % 2 == 0) break;
      }
    } else if (c == '[' || c == '{') {
      if (++depth > max_depth) return true;
    } else if ((c == ']' || c == '}') && depth > 0) {
      --depth;
    }
  }
  return false;
}

std::string json_too_deep_message(size_t max_depth) {
  return "JSON nested more than " + std::to_string(max_depth) + " levels deep";
}

}  // namespace toolwire
