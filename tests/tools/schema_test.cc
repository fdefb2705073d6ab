#include <gtest/gtest.h>

#include "toolwire/tools/schema.h"

using namespace toolwire::tools;
using nlohmann::json;

namespace {
CompiledSchema compile(const char* s) {
  auto r = CompiledSchema::compile(std::string_view(s));
  EXPECT_TRUE(r.ok()) << (r.ok() ? "" : r.error().to_string());
  return std::move(*r);
}
}  // namespace

TEST(Schema, RequiredPropertyMessageNamesPointer) {
  auto s =
      compile(R"({"type":"object","properties":{"city":{"type":"string"}},"required":["city"]})");
  toolwire::Status st = s.validate(json::object());
  ASSERT_FALSE(st.ok());
  EXPECT_EQ(st.error().message, "/city: required property missing");
  EXPECT_TRUE(s.validate(json{{"city", "Oslo"}}).ok());
}

TEST(Schema, NestedViolationPointsAtTheValue) {
  auto s = compile(R"({"type":"object","properties":{"loc":{"type":"object",
      "properties":{"lat":{"type":"number","maximum":90}}}}})");
  auto vs = s.violations(json::parse(R"({"loc":{"lat":91}})"));
  ASSERT_EQ(vs.size(), 1u);
  EXPECT_EQ(vs[0].pointer, "/loc/lat");
  EXPECT_NE(vs[0].message.find("less than or equal to"), std::string::npos) << vs[0].message;
  auto vt = s.violations(json::parse(R"({"loc":{"lat":"x"}})"));
  ASSERT_EQ(vt.size(), 1u);
  EXPECT_EQ(vt[0].pointer, "/loc/lat");
}

TEST(Schema, InvalidSchemasAreRefused) {
  for (const char* bad : {R"({"type":"strin"})", R"({"type":"object","required":"city"})",
                          R"({"minLength":-1})", R"({"pattern":"(unclosed"})",
                          R"({"properties":[]})", R"({"$ref":"http://example.com/remote.json"})",
                          R"({"$ref":"#/nowhere"})", "[1,2]", "{not json"}) {
    auto r = CompiledSchema::compile(std::string_view(bad));
    EXPECT_FALSE(r.ok()) << bad;
    if (!r.ok()) {
      EXPECT_EQ(r.error().code, toolwire::ErrorCode::invalid_argument) << bad;
    }
  }
}

TEST(Schema, PatternUsesRe2AndSurvivesHugeInput) {
  auto s = compile(R"({"type":"string","pattern":"^(a|b)*$"})");
  EXPECT_TRUE(s.accepts("abab"));
  EXPECT_FALSE(s.accepts("abc"));
  // std::regex recurses per character here and overflows the stack on long
  // input; RE2 is linear.
  EXPECT_TRUE(s.accepts(std::string(1 << 20, 'a')));
  EXPECT_FALSE(s.accepts(std::string(1 << 20, 'a') + "c"));
}

TEST(Schema, Draft2020PrefixItemsAndItems) {
  auto s = compile(
      R"({"type":"array","prefixItems":[{"type":"string"},{"type":"integer"}],"items":false})");
  EXPECT_TRUE(s.accepts(json::parse(R"(["a",1])")));
  EXPECT_FALSE(s.accepts(json::parse(R"(["a","b"])")));
  EXPECT_FALSE(s.accepts(json::parse(R"(["a",1,2])")));
}

TEST(Schema, RefWithSiblingsAppliesBoth) {
  auto s = compile(R"({"$defs":{"n":{"type":"integer"}},"$ref":"#/$defs/n","minimum":5})");
  EXPECT_TRUE(s.accepts(7));
  EXPECT_FALSE(s.accepts(3));
  EXPECT_FALSE(s.accepts("x"));
  // Draft-07 ignores siblings of $ref.
  auto d7 = compile(R"({"$schema":"http://json-schema.org/draft-07/schema#",
      "definitions":{"n":{"type":"integer"}},"$ref":"#/definitions/n","minimum":5})");
  EXPECT_TRUE(d7.accepts(3));
}

TEST(Schema, FormatIsAnnotationOnly) {
  auto s = compile(R"({"type":"string","format":"date"})");
  EXPECT_TRUE(s.accepts("not a date"));
}

TEST(Schema, EnumConstUniqueItems) {
  auto s = compile(R"({"type":"object","properties":{"u":{"enum":["c","f"]},"k":{"const":3},
      "l":{"type":"array","uniqueItems":true,"maxItems":3}}})");
  EXPECT_TRUE(s.accepts(json::parse(R"({"u":"c","k":3,"l":[1,2]})")));
  EXPECT_FALSE(s.accepts(json::parse(R"({"u":"k"})")));
  EXPECT_FALSE(s.accepts(json::parse(R"({"k":4})")));
  EXPECT_FALSE(s.accepts(json::parse(R"({"l":[1,1]})")));
  EXPECT_FALSE(s.accepts(json::parse(R"({"l":[1,2,3,4]})")));
}

TEST(Schema, RecursiveRefCompilesAndValidates) {
  auto s =
      compile(R"({"$defs":{"node":{"type":"object","properties":{"next":{"$ref":"#/$defs/node"},
      "v":{"type":"integer"}}}},"$ref":"#/$defs/node"})");
  EXPECT_TRUE(s.accepts(json::parse(R"({"v":1,"next":{"v":2,"next":{}}})")));
  EXPECT_FALSE(s.accepts(json::parse(R"({"v":1,"next":{"v":"x"}})")));
}

TEST(Schema, NormalizeRewritesOnlySchemaPositions) {
  json in = json::parse(R"({"prefixItems":[{"pattern":"a"}],"items":{"format":"x"},
      "enum":[{"pattern":"keep"}],"const":{"prefixItems":1}})");
  json out = normalize_to_draft7(in);
  EXPECT_EQ(out["items"][0], json::parse(R"({"x-toolwire-pattern":"a"})"));
  EXPECT_EQ(out["additionalItems"], json::object());
  EXPECT_EQ(out["enum"], in["enum"]);
  EXPECT_EQ(out["const"], in["const"]);
}

TEST(Schema, DegenerateRefCyclesAreRefusedNotRecursedForever) {
  for (const char* s :
       {R"({"$ref":"#"})", R"({"$defs":{"a":{"$ref":"#/$defs/b"},"b":{"$ref":"#/$defs/a"}},
                          "properties":{"x":{"$ref":"#/$defs/a"}}})",
        R"({"$id":"http://x.test/a.json","$ref":"int.json"})"}) {
    auto r = CompiledSchema::compile(std::string_view(s));
    ASSERT_FALSE(r.ok()) << s;
    EXPECT_NE(r.error().message.find("circular $ref"), std::string::npos) << r.error().message;
  }
}
