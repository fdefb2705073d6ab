#include "textformats/json_scan.h"

#include <cstring>

namespace toolwire::textformats {

namespace {

// Bytes that may appear outside strings in JSON, brackets aside.
constexpr bool outside_ok(unsigned char c) {
  return c == ' ' || c == '\n' || c == '\r' || c == '\t' || c == ',' || c == ':' ||
         (c >= '0' && c <= '9') || c == '-' || c == '+' || c == '.' || c == 'e' || c == 'E' ||
         c == 't' || c == 'r' || c == 'u' || c == 'f' || c == 'a' || c == 'l' || c == 's' ||
         c == 'n';
}

}  // namespace

size_t JsonScanner::scan(std::string_view s) {
  size_t i = 0;
  const size_t n = s.size();
  if (state_ == State::before) {
    while (i < n && (s[i] == ' ' || s[i] == '\n' || s[i] == '\r' || s[i] == '\t')) ++i;
    if (i == n) return n;
    if (s[i] != '{' && s[i] != '[') {
      state_ = State::invalid;
      return i;
    }
    state_ = State::inside;
    depth_ = 1;
    ++i;
  }
  if (state_ != State::inside) return 0;
  while (i < n) {
    if (in_string_) {
      if (escape_) {
        escape_ = false;
        ++i;
        continue;
      }
      // Skip to the next quote or backslash.
      const char* p = s.data() + i;
      const char* q = static_cast<const char*>(std::memchr(p, '"', n - i));
      const char* b = static_cast<const char*>(std::memchr(p, '\\', q ? size_t(q - p) : n - i));
      if (b) {
        i = static_cast<size_t>(b - s.data()) + 1;
        escape_ = true;
        continue;
      }
      if (!q) return n;
      i = static_cast<size_t>(q - s.data()) + 1;
      in_string_ = false;
      continue;
    }
    unsigned char c = static_cast<unsigned char>(s[i]);
    if (c == '"') {
      in_string_ = true;
    } else if (c == '{' || c == '[') {
      ++depth_;
    } else if (c == '}' || c == ']') {
      if (--depth_ == 0) {
        state_ = State::done;
        return i + 1;
      }
    } else if (!outside_ok(c)) {
      state_ = State::invalid;
      return i;
    }
    ++i;
  }
  return n;
}

}  // namespace toolwire::textformats
