// The codec test kit (tests/support/codec_kit.h) bound to the Bedrock
// Converse codec.
#pragma once

#include <gtest/gtest.h>

#include <nlohmann/json.hpp>
#include <string>
#include <vector>

#include "codec_kit.h"
#include "toolwire/dialects/codec.h"

namespace toolwire::dialects::bedrock_test {

using testing::describe;
using testing::has_warning;
using testing::read_fixture;
using testing::usage;
using testing::warnings_text;

inline const Codec& codec() { return *find_codec("bedrock_converse"); }

inline nlohmann::json parse(const std::string& s) { return nlohmann::json::parse(s); }

// A request body's error (decode must fail): its path and message.
inline Error decode_request_error(const std::string& body) {
  return testing::decode_request_error(codec(), body);
}

}  // namespace toolwire::dialects::bedrock_test
