// Responses text.format ↔ Request.response_format; text's other members.
#include <gtest/gtest.h>

#include <nlohmann/json.hpp>

#include "codec_kit.h"
#include "toolwire/dialects/codec.h"

namespace toolwire::testing {
namespace {

using nlohmann::json;
using Kind = ir::ResponseFormatKind;

const dialects::Codec& codec() { return *dialects::find_codec("openai_responses"); }

ir::Request decode(const json& body) {
  Warnings w;
  auto r = codec().decode_request(body.dump(), w);
  EXPECT_TRUE(r) << r.error().to_string();
  return r ? *r : ir::Request{};
}
json encode(const ir::Request& r) {
  Warnings w;
  auto out = codec().encode_request(r, w);
  EXPECT_TRUE(out) << out.error().to_string();
  return out ? json::parse(*out) : json();
}

TEST(ResponsesTextFormat, FormatAndVerbosity) {
  json b = {
      {"model", "m"},
      {"input", "hi"},
      {"text",
       {{"verbosity", "high"},
        {"format", {{"type", "json_schema"}, {"name", "n"}, {"schema", {{"type", "object"}}}}}}}};
  ir::Request r = decode(b);
  ASSERT_TRUE(r.response_format);
  EXPECT_EQ(r.response_format->kind, Kind::json_schema);
  EXPECT_EQ(r.response_format->name, "n");
  EXPECT_FALSE(r.response_format->strict);
  json out = encode(r);
  EXPECT_EQ(out["text"], b["text"]);
  // A text object without a format, and a format type this version does not know.
  b["text"] = {{"verbosity", "low"}};
  r = decode(b);
  EXPECT_FALSE(r.response_format);
  EXPECT_EQ(encode(r)["text"], b["text"]);
  b["text"] = {{"format", {{"type", "grammar"}, {"syntax", "lark"}}}};
  r = decode(b);
  EXPECT_FALSE(r.response_format);
  EXPECT_EQ(encode(r)["text"], b["text"]);
  b["text"] = {{"format", {{"name", "x"}}}};
  EXPECT_EQ(decode_request_error(codec(), b.dump()).path, "$.text.format.type");
}

}  // namespace
}  // namespace toolwire::testing
