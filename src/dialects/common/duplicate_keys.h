// duplicate_keys.h — noticing a request key given twice, cheaply.
//
// Private to the codecs. JSON allows {"model":"a","model":"b"}; the
// providers' parsers keep the last value, and so do the request decoders —
// but never silently: each repeat is a `duplicate_key` warning. The decoder
// loop marks one bit per key (a hash of its length and end bytes) in a
// 64-bit set; only when a bit is already set does it compare the key with
// the ones before it, so a request without repeats pays a few instructions
// per top-level key.
//
//   KeyRepeats repeats;
//   size_t i = 0;
//   for (auto [key, value] : obj) {
//     if (repeats.seen_before(obj, key, i++)) { warn...; forget the earlier value }
//     ...
//   }
#pragma once

#include <cstddef>
#include <cstdint>
#include <string_view>

#include "dialects/common/json_in.h"

namespace toolwire::dialects::json {

class KeyRepeats {
 public:
  // True when `key`, the object's `index`-th key, is also an earlier one.
  bool seen_before(object obj, std::string_view key, size_t index) {
    const uint64_t bit = uint64_t{1} << (hash(key) & 63);
    const bool maybe = (bits_ & bit) != 0;
    bits_ |= bit;
    if (!maybe) [[likely]]
      return false;
    return repeats(obj, key, index);
  }

  static constexpr std::string_view kWarning = "duplicate_key";
  static constexpr std::string_view kMessage =
      "this key appears more than once; the last value is used (the upstream API may refuse the "
      "request or keep another)";

 private:
  static unsigned hash(std::string_view key) {
    if (key.empty()) return 0;
    return static_cast<unsigned>(key.size() * 7 + static_cast<unsigned char>(key.front()) +
                                 static_cast<unsigned char>(key.back()) * 3);
  }
  static bool repeats(object obj, std::string_view key, size_t index) {
    size_t i = 0;
    for (auto [k, v] : obj) {
      if (i++ == index) break;
      if (k == key) return true;
    }
    return false;
  }
  uint64_t bits_ = 0;
};

}  // namespace toolwire::dialects::json
