// translate_request() (borrowed IR: views and arena) against decode + encode
// (owning IR): both must fail alike or write the same bytes and warnings.
#pragma once

#include <cstdio>
#include <cstdlib>
#include <string>
#include <string_view>

#include "toolwire/dialects/codec.h"

namespace toolwire::fuzz {

inline std::string warning_codes(const Warnings& ws) {
  std::string out;
  for (const auto& w : ws) out += w.code + "@" + w.path + ":" + w.message + "\n";
  return out;
}

inline void check_translation(const dialects::Codec& from, const dialects::Codec& to,
                              std::string_view body) {
  Warnings w1, w2;
  auto fast = dialects::translate_request(from, to, body, w1);
  auto req = from.decode_request(body, w2);
  if (!req) {
    if (fast || fast.error().to_string() != req.error().to_string()) {
      std::fprintf(stderr, "decode failed only on the owning path: %s\n",
                   req.error().to_string().c_str());
      std::abort();
    }
    return;
  }
  auto slow = to.encode_request(*req, w2, dialects::EncodeOptions{.raw_json_verified = true});
  if (fast.ok() != slow.ok() || (fast && *fast != *slow) ||
      (!fast && fast.error().to_string() != slow.error().to_string()) ||
      warning_codes(w1) != warning_codes(w2)) {
    std::fprintf(stderr,
                 "borrowed and owning translations differ (%s → %s)\nborrowed: %s\nowning:   "
                 "%s\n%s---\n%s",
                 std::string(from.name()).c_str(), std::string(to.name()).c_str(),
                 fast ? fast->c_str() : fast.error().to_string().c_str(),
                 slow ? slow->c_str() : slow.error().to_string().c_str(), warning_codes(w1).c_str(),
                 warning_codes(w2).c_str());
    std::abort();
  }
}

}  // namespace toolwire::fuzz
