// Anthropic output_config.format (and the beta output_format) ↔ Request.response_format.
#include <gtest/gtest.h>

#include <nlohmann/json.hpp>

#include "codec_kit.h"
#include "toolwire/dialects/codec.h"

namespace toolwire::testing {
namespace {

using nlohmann::json;
using Kind = ir::ResponseFormatKind;

const dialects::Codec& codec() { return *dialects::find_codec("anthropic_messages"); }

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

const json kSchema = {{"type", "object"}, {"properties", {{"a", {{"type", "string"}}}}}};

TEST(AnthropicOutputConfig, FormatAndEffort) {
  json b = {{"model", "m"},
            {"max_tokens", 5},
            {"messages", {{{"role", "user"}, {"content", "hi"}}}},
            {"output_config",
             {{"format", {{"type", "json_schema"}, {"schema", kSchema}}}, {"effort", "high"}}}};
  ir::Request r = decode(b);
  ASSERT_TRUE(r.response_format);
  EXPECT_EQ(r.response_format->kind, Kind::json_schema);
  EXPECT_EQ(json::parse(r.response_format->schema), kSchema);
  EXPECT_EQ(encode(r)["output_config"], b["output_config"]);
  // The beta spelling goes out in the current one.
  b.erase("output_config");
  b["output_format"] = {{"type", "json_schema"}, {"schema", kSchema}};
  json out = encode(decode(b));
  EXPECT_FALSE(out.contains("output_format"));
  EXPECT_EQ(out["output_config"]["format"]["schema"], kSchema);
  // A format type this version does not know stays as it came.
  b.erase("output_format");
  b["output_config"] = {{"format", {{"type", "regex"}, {"pattern", "a+"}}}};
  r = decode(b);
  EXPECT_FALSE(r.response_format);
  EXPECT_EQ(encode(r)["output_config"], b["output_config"]);
  b["output_config"] = {{"format", {{"type", "json_schema"}}}};
  EXPECT_EQ(decode_request_error(codec(), b.dump()).path, "$.output_config.format.schema");
}

}  // namespace
}  // namespace toolwire::testing
