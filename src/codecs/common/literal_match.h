// literal_match.h — pieces of the stream decoders' fast paths (events in the
// exact byte layout the APIs write, decoded without a DOM). Private to the codecs.
#pragma once

#include <simdjson.h>

#include <cstdint>
#include <string_view>

namespace toolwire::codec::json {

// True when `body` can stand between the quotes of a JSON string as is and
// means itself: no quote, backslash or control byte, and valid UTF-8.
// Anything else (escapes included) is left to the full path.
inline bool plain_string_body(std::string_view body) {
  bool ascii = true;
  for (unsigned char c : body) {
    if (c == '"' || c == '\\' || c < 0x20) return false;
    ascii &= c < 0x80;
  }
  return ascii || simdjson::validate_utf8(body.data(), body.size());
}

// Reads a JSON non-negative integer of at most `max_digits` digits at
// s[i] ("0" or no leading zero); advances `i` past it. False otherwise.
inline bool small_index(std::string_view s, size_t& i, size_t max_digits, int64_t& value) {
  const size_t first = i;
  value = 0;
  while (i < s.size() && i - first < max_digits && s[i] >= '0' && s[i] <= '9')
    value = value * 10 + (s[i++] - '0');
  return i != first && !(s[first] == '0' && i - first > 1);
}

}  // namespace toolwire::codec::json
