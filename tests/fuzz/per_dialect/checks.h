// What the per-dialect fuzz targets share: the codec they drive
// (TOOLWIRE_FUZZ_DIALECT, a dialect name, defined per target by
// tests/fuzz/CMakeLists.txt) and the round trip of a whole body.
#pragma once

#include <cstdio>
#include <cstdlib>
#include <string_view>

#include "toolwire/dialects/codec.h"

// 0: the second encoding need not equal the first (tests/fuzz/CMakeLists.txt).
#ifndef TOOLWIRE_FUZZ_FIXED_POINT
#define TOOLWIRE_FUZZ_FIXED_POINT 1
#endif

namespace toolwire::fuzz {

inline const dialects::Codec& codec() {
  static const dialects::Codec* c = dialects::find_codec(TOOLWIRE_FUZZ_DIALECT);
  if (!c) std::abort();  // the build named a dialect that is not in the list
  return *c;
}

// decode → encode → decode → encode. A failed first decode says why; what
// decodes must encode, the encoding must decode and encode again, and (where
// TOOLWIRE_FUZZ_FIXED_POINT) encoding is a fixed point after one pass.
template <class Decode, class Encode>
void round_trip(std::string_view input, Decode decode, Encode encode) {
  auto value = decode(input);
  if (!value) {
    if (value.error().message.empty()) std::abort();  // errors always say what went wrong
    return;
  }
  auto out = encode(*value);
  if (!out) {
    std::fprintf(stderr, "encode failed: %s\n", out.error().to_string().c_str());
    std::abort();
  }
  auto again = decode(*out);
  if (!again) {
    std::fprintf(stderr, "re-decode failed: %s\n%s\n", again.error().to_string().c_str(),
                 out->c_str());
    std::abort();
  }
  auto out2 = encode(*again);
  if (!out2 || (TOOLWIRE_FUZZ_FIXED_POINT && *out2 != *out)) {
    std::fprintf(stderr, "not a fixed point:\n%s\n%s\n", out->c_str(),
                 out2 ? out2->c_str() : "(error)");
    std::abort();
  }
}

}  // namespace toolwire::fuzz
