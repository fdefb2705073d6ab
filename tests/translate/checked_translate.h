// checked_translate.h — a request from one dialect to another through
// translate_request, checked to give the same bytes and warnings as decode +
// encode on the owning IR. Shared by the translation tests.
#pragma once

#include <gtest/gtest.h>

#include <nlohmann/json.hpp>
#include <string>
#include <string_view>

#include "codec_kit.h"
#include "toolwire/dialects/codec.h"

namespace toolwire::testing {

inline nlohmann::json checked_translate(std::string_view from, std::string_view to,
                                        const std::string& body, Warnings& warnings) {
  const dialects::Codec& source = *dialects::find_codec(from);
  const dialects::Codec& target = *dialects::find_codec(to);
  auto out = dialects::translate_request(source, target, body, warnings);
  EXPECT_TRUE(out) << out.error().to_string();
  if (!out) return {};
  Warnings w2;
  auto ir = source.decode_request(body, w2);
  EXPECT_TRUE(ir);
  auto slow = target.encode_request(*ir, w2);
  EXPECT_TRUE(slow);
  if (slow) {
    EXPECT_EQ(*slow, *out);
  }
  EXPECT_EQ(warnings_text(w2), warnings_text(warnings));
  return nlohmann::json::parse(*out);
}

}  // namespace toolwire::testing
