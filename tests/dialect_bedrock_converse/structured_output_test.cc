// Converse outputConfig.textFormat ↔ Request.response_format (the schema as JSON text).
#include <gtest/gtest.h>

#include <nlohmann/json.hpp>

#include "codec_kit.h"
#include "toolwire/dialects/codec.h"

namespace toolwire::testing {
namespace {

using nlohmann::json;
using Kind = ir::ResponseFormatKind;

const dialects::Codec& codec() { return *dialects::find_codec("bedrock_converse"); }

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

json body(const json& text_format) {
  return {{"messages", {{{"role", "user"}, {"content", {{{"text", "hi"}}}}}}},
          {"outputConfig", {{"textFormat", text_format}}}};
}
json schema_format(const std::string& schema) {
  return {
      {"type", "json_schema"},
      {"structure", {{"jsonSchema", {{"schema", schema}, {"name", "n"}, {"description", "d"}}}}}};
}

TEST(BedrockOutputConfig, SchemaTextBothWays) {
  ir::Request r = decode(body(schema_format("{\n  \"type\": \"object\"\n}")));
  ASSERT_TRUE(r.response_format);
  EXPECT_EQ(r.response_format->schema, R"({"type":"object"})");  // compact
  EXPECT_EQ(r.response_format->name, "n");
  EXPECT_EQ(r.response_format->description, "d");
  EXPECT_EQ(encode(r)["outputConfig"], body(schema_format(R"({"type":"object"})"))["outputConfig"]);
  // A shape this version does not know stays as it came.
  const json other = {{"type", "xml"}};
  r = decode(body(other));
  EXPECT_FALSE(r.response_format);
  EXPECT_EQ(encode(r)["outputConfig"]["textFormat"], other);
}

TEST(BedrockOutputConfig, BadSchemaTextIsRefusedWithItsPath) {
  const std::string path = "$.outputConfig.textFormat.structure.jsonSchema.schema";
  EXPECT_EQ(decode_request_error(codec(), body(schema_format("{")).dump()).path, path);
  EXPECT_EQ(decode_request_error(codec(), body(schema_format("[]")).dump()).path, path);
  const std::string deep = std::string(1100, '[') + std::string(1100, ']');
  EXPECT_EQ(decode_request_error(codec(), body(schema_format(deep)).dump()).path, path);
}

}  // namespace
}  // namespace toolwire::testing
