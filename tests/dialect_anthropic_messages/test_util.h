// The codec test kit (tests/support/codec_kit.h) bound to the Anthropic
// Messages codec.
#pragma once

#include <gtest/gtest.h>

#include <nlohmann/json.hpp>
#include <string>
#include <vector>

#include "codec_kit.h"
#include "toolwire/dialects/codec.h"
#include "toolwire/ir/stream.h"

namespace toolwire::dialects::anthropic_test {

using testing::describe;
using testing::has_warning;
using testing::read_fixture;

inline const Codec& codec() { return *find_codec("anthropic_messages"); }

inline nlohmann::json parse(const std::string& s) { return nlohmann::json::parse(s); }

// Decodes `sse` fed in pieces cut at `cuts` (increasing offsets); the final
// status goes to `final_status`, or must be ok.
inline std::vector<ir::StreamEvent> decode_stream(std::string_view sse,
                                                  const std::vector<size_t>& cuts = {},
                                                  Status* final_status = nullptr) {
  testing::StreamResult r = testing::decode_stream(codec(), sse, cuts);
  if (final_status)
    *final_status = r.status;
  else
    EXPECT_TRUE(r.status.ok()) << r.status.error().to_string();
  return std::move(r.events);
}

inline std::string encode_stream(const std::vector<ir::StreamEvent>& events,
                                 Warnings* warnings = nullptr) {
  if (warnings) warnings->clear();
  return testing::encode_stream(codec(), events, warnings);
}

}  // namespace toolwire::dialects::anthropic_test
