// The codec test kit (tests/support/codec_kit.h) bound to the openai_chat codec.
#pragma once

#include <gtest/gtest.h>

#include <nlohmann/json.hpp>
#include <string>
#include <vector>

#include "codec_kit.h"
#include "toolwire/dialects/codec.h"

namespace toolwire::dialects::openai_chat_test {

using testing::describe;
using testing::fixture_lines;
using testing::has_warning;
using testing::read_fixture;
using testing::sse_from_chunks;
using testing::StreamResult;

inline const Codec& openai() { return *find_codec("openai_chat"); }

// Feeds `bytes` cut at the given offsets (ascending), then finish().
inline StreamResult decode_stream(std::string_view bytes, const std::vector<size_t>& cuts = {}) {
  return testing::decode_stream(openai(), bytes, cuts);
}

}  // namespace toolwire::dialects::openai_chat_test
