// The codec test kit (tests/support/codec_kit.h) bound to the Gemini codec.
#pragma once

#include <gtest/gtest.h>

#include <nlohmann/json.hpp>
#include <string>
#include <vector>

#include "codec_kit.h"
#include "toolwire/dialects/codec.h"
#include "toolwire/ir/stream.h"

namespace toolwire::dialects::gemini_test {

using testing::describe;
using testing::has_warning;
using testing::read_fixture;
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
  Warnings w;
  auto r = codec().decode_request(body, w);
  EXPECT_FALSE(r) << "decoded: " << body;
  return r ? Error{} : r.error();
}

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

}  // namespace toolwire::dialects::gemini_test
