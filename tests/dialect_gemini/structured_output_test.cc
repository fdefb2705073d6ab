// Gemini responseMimeType / responseSchema / responseJsonSchema ↔ Request.response_format.
#include <gtest/gtest.h>

#include <nlohmann/json.hpp>

#include "codec_kit.h"
#include "toolwire/dialects/codec.h"

namespace toolwire::testing {
namespace {

using nlohmann::json;
using Kind = ir::ResponseFormatKind;

const dialects::Codec& codec() { return *dialects::find_codec("gemini"); }

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

json body(const json& generation_config) {
  return {{"contents", {{{"role", "user"}, {"parts", {{{"text", "hi"}}}}}}},
          {"generationConfig", generation_config}};
}

TEST(GeminiResponseFormat, MimeTypeAndSchemas) {
  ir::Request r = decode(body({{"response_mime_type", "application/json"}}));
  ASSERT_TRUE(r.response_format);
  EXPECT_EQ(r.response_format->kind, Kind::json_object);
  EXPECT_TRUE(r.extra.empty());
  EXPECT_EQ(encode(r)["generationConfig"], json({{"responseMimeType", "application/json"}}));

  r = decode(body({{"responseMimeType", "application/json"},
                   {"responseSchema", {{"type", "ARRAY"}, {"items", {{"type", "STRING"}}}}}}));
  // A root that is not an object stays Gemini's own, as it came.
  EXPECT_FALSE(r.response_format);
  EXPECT_EQ(encode(r)["generationConfig"]["responseSchema"]["type"], "ARRAY");

  const json schema = {{"type", "object"},
                       {"properties", {{"n", {{"type", "integer"}}}}},
                       {"additionalProperties", false}};
  r = decode(body({{"responseMimeType", "application/json"}, {"responseJsonSchema", schema}}));
  ASSERT_TRUE(r.response_format);
  EXPECT_EQ(r.response_format->kind, Kind::json_schema);
  EXPECT_EQ(json::parse(r.response_format->schema), schema);
  EXPECT_EQ(encode(r)["generationConfig"]["responseJsonSchema"], schema);

  // A schema without the JSON MIME type is not a response format.
  r = decode(body({{"responseSchema", {{"type", "OBJECT"}}}}));
  EXPECT_FALSE(r.response_format);
}

}  // namespace
}  // namespace toolwire::testing
