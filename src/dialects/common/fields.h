// fields.h — several fields of one JSON object read in a single pass.
//
// simdjson's obj[key] scans the object once per key, so a decoder that asks
// an object for five keys walks it five times; pick() walks it once and keeps
// the ones named in a fixed key list. A key given twice keeps its last value,
// as the providers' own (Python, JavaScript) JSON parsers do.
#pragma once

#include <cstddef>
#include <cstdint>
#include <cstring>
#include <string>
#include <string_view>

#include "dialects/common/json_in.h"

namespace toolwire::dialects::json {

template <size_t N>
struct Fields {
  element e[N];
  bool has[N] = {};      // present and not null
  bool present[N] = {};  // present, null included

  // A required field: its element (an explicit null included, so that the
  // caller's typed read says "got null"), else the usual "missing" error.
  Result<element> need(size_t i, std::string_view key, const Path& path) const {
    if (present[i]) return e[i];
    return invalid(path, "missing required field '" + std::string(key) + "'");
  }
};

// a == b for two strings of the same length n, without a memcmp call for
// the short keys objects have: two overlapping loads that stay in bounds.
inline bool same_bytes(const char* a, const char* b, size_t n) {
  auto load4 = [](const char* p) {
    uint32_t v;
    std::memcpy(&v, p, 4);
    return v;
  };
  auto load8 = [](const char* p) {
    uint64_t v;
    std::memcpy(&v, p, 8);
    return v;
  };
  if (n >= 8 && n <= 16) return load8(a) == load8(b) && load8(a + n - 8) == load8(b + n - 8);
  if (n >= 4 && n < 8) return load4(a) == load4(b) && load4(a + n - 4) == load4(b + n - 4);
  if (n < 4) {
    for (size_t i = 0; i < n; ++i)
      if (a[i] != b[i]) return false;
    return true;
  }
  return std::memcmp(a, b, n) == 0;
}

template <size_t N>
Fields<N> pick(object obj, const std::string_view (&keys)[N]) {
  Fields<N> f;
  for (auto [key, value] : obj) {
    if (key.empty()) continue;
    for (size_t i = 0; i < N; ++i) {
      // Length and first byte first: most candidates differ there.
      if (key.size() == keys[i].size() && key[0] == keys[i][0] &&
          same_bytes(key.data(), keys[i].data(), key.size())) {
        f.e[i] = value;
        f.present[i] = true;
        f.has[i] = !value.is_null();
        break;
      }
    }
  }
  return f;
}

}  // namespace toolwire::dialects::json
