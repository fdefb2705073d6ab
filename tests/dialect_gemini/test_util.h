// The codec test kit (tests/support/codec_kit.h) bound to the Gemini codec.
#pragma once

#include <gtest/gtest.h>

#include <nlohmann/json.hpp>
#include <string>
#include <vector>

#include "codec_kit.h"
#include "toolwire/dialects/codec.h"

namespace toolwire::dialects::gemini_test {

using testing::describe;
using testing::has_warning;
using testing::read_fixture;
using testing::usage;
using testing::warnings_text;

inline const Codec& codec() { return *find_codec("gemini"); }

inline nlohmann::json parse(const std::string& s) { return nlohmann::json::parse(s); }

inline ir::Request decode(const std::string& body, Warnings* warnings = nullptr) {
  Warnings local;
  auto r = codec().decode_request(body, warnings ? *warnings : local);
  EXPECT_TRUE(r) << r.error().to_string() << "\n" << body;
  return r ? *r : ir::Request{};
}

inline std::string encode(const ir::Request& req, Warnings* warnings = nullptr) {
  Warnings local;
  auto r = codec().encode_request(req, warnings ? *warnings : local);
  EXPECT_TRUE(r) << r.error().to_string();
  return r ? *r : std::string("{}");
}

// The error of decoding `body` (a failure if it decodes).
inline Error decode_error_of(const std::string& body) {
  return testing::decode_request_error(codec(), body);
}

}  // namespace toolwire::dialects::gemini_test
