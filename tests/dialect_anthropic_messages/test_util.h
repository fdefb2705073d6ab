// The codec test kit (tests/support/codec_kit.h) bound to the Anthropic
// Messages codec.
#pragma once

#include <gtest/gtest.h>

#include <nlohmann/json.hpp>
#include <string>
#include <vector>

#include "codec_kit.h"
#include "toolwire/dialects/codec.h"

namespace toolwire::dialects::anthropic_test {

using testing::describe;
using testing::has_warning;
using testing::read_fixture;
using testing::usage;

inline const Codec& codec() { return *find_codec("anthropic_messages"); }

inline nlohmann::json parse(const std::string& s) { return nlohmann::json::parse(s); }

}  // namespace toolwire::dialects::anthropic_test
