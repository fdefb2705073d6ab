// Chat Completions response_format ↔ Request.response_format.
#include <gtest/gtest.h>

#include <nlohmann/json.hpp>

#include "codec_kit.h"
#include "toolwire/dialects/codec.h"

namespace toolwire::testing {
namespace {

using nlohmann::json;
using Kind = ir::ResponseFormatKind;

const dialects::Codec& codec() { return *dialects::find_codec("openai_chat"); }

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

TEST(ChatResponseFormat, EveryTypeDecodes) {
  const json base = {{"model", "m"}, {"messages", {{{"role", "user"}, {"content", "hi"}}}}};
  json b = base;
  b["response_format"] = {{"type", "text"}};
  EXPECT_EQ(decode(b).response_format->kind, Kind::text);
  b["response_format"] = {{"type", "json_object"}};
  EXPECT_EQ(decode(b).response_format->kind, Kind::json_object);
  b["response_format"] = {
      {"type", "json_schema"},
      {"json_schema",
       {{"name", "n"}, {"description", "d"}, {"schema", {{"type", "object"}}}, {"strict", false}}}};
  ir::Request r = decode(b);
  ASSERT_TRUE(r.response_format);
  EXPECT_EQ(r.response_format->kind, Kind::json_schema);
  EXPECT_EQ(r.response_format->name, "n");
  EXPECT_EQ(r.response_format->description, "d");
  EXPECT_EQ(r.response_format->schema, R"({"type":"object"})");
  EXPECT_EQ(r.response_format->strict, false);
  EXPECT_EQ(encode(r)["response_format"], b["response_format"]);
  // null is absent.
  b["response_format"] = nullptr;
  EXPECT_FALSE(decode(b).response_format);
}

TEST(ChatResponseFormat, UnknownTypeIsKeptRawAndBadShapesAreRefused) {
  json b = {{"model", "m"},
            {"messages", {{{"role", "user"}, {"content", "hi"}}}},
            {"response_format", {{"type", "grammar"}, {"grammar", "x"}}}};
  ir::Request r = decode(b);
  EXPECT_FALSE(r.response_format);
  EXPECT_EQ(encode(r)["response_format"], b["response_format"]);
  b["response_format"] = {{"type", "json_schema"}};
  EXPECT_EQ(decode_request_error(codec(), b.dump()).path, "$.response_format.json_schema");
  b["response_format"] = {{"json_schema", json::object()}};
  EXPECT_EQ(decode_request_error(codec(), b.dump()).path, "$.response_format.type");
  b["response_format"] = "json";
  EXPECT_EQ(decode_request_error(codec(), b.dump()).path, "$.response_format");
}

}  // namespace
}  // namespace toolwire::testing
