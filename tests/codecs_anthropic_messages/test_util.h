// Helpers for the Anthropic Messages codec tests.
#pragma once

#include <gtest/gtest.h>

#include <fstream>
#include <nlohmann/json.hpp>
#include <sstream>
#include <string>
#include <vector>

#include "toolwire/codec/codec.h"
#include "toolwire/ir/stream.h"

namespace toolwire::codec {
const Codec& anthropic_messages_codec();
}

namespace toolwire::codec::anthropic_test {

inline const Codec& codec() { return anthropic_messages_codec(); }

inline std::string read_data(const std::string& name) {
  std::ifstream in(std::string(TOOLWIRE_TEST_DATA) + "/" + name, std::ios::binary);
  EXPECT_TRUE(in.good()) << name;
  std::stringstream ss;
  ss << in.rdbuf();
  return ss.str();
}

inline nlohmann::json parse(const std::string& s) { return nlohmann::json::parse(s); }

inline bool has_warning(const Warnings& warnings, const std::string& code) {
  for (const auto& w : warnings)
    if (w.code == code) return true;
  return false;
}

// Decodes `sse` fed in pieces cut at `cuts` (increasing offsets).
inline std::vector<ir::StreamEvent> decode_stream(std::string_view sse,
                                                  const std::vector<size_t>& cuts = {},
                                                  Status* final_status = nullptr) {
  auto decoder = codec().make_stream_decoder();
  std::vector<ir::StreamEvent> out;
  size_t pos = 0;
  Status st;
  for (size_t cut : cuts) {
    st = decoder->feed(sse.substr(pos, cut - pos), out);
    pos = cut;
    if (!st) break;
  }
  if (st) st = decoder->feed(sse.substr(pos), out);
  if (st) st = decoder->finish(out);
  if (final_status)
    *final_status = st;
  else
    EXPECT_TRUE(st.ok()) << st.error().to_string();
  return out;
}

inline std::string encode_stream(const std::vector<ir::StreamEvent>& events,
                                 Warnings* warnings = nullptr) {
  auto encoder = codec().make_stream_encoder();
  std::string out;
  for (const auto& e : events) encoder->encode(e, out);
  if (warnings) *warnings = encoder->warnings();
  return out;
}

// A printable form of an event, for readable test failures.
std::string describe(const ir::StreamEvent& e);
inline std::string describe(const std::vector<ir::StreamEvent>& events) {
  std::string s;
  for (const auto& e : events) s += describe(e) + "\n";
  return s;
}

}  // namespace toolwire::codec::anthropic_test
