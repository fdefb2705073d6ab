#include <gtest/gtest.h>

#include "test_tools.h"
#include "toolwire/schema/json_schema.h"
#include "toolwire/tools/registry.h"
#include "toolwire/tools/schema_export.h"

using namespace toolwire;
using namespace toolwire::tools;
using namespace toolwire::schema;
using nlohmann::json;
using ojson = nlohmann::ordered_json;

namespace {
// Key order aside: compare as plain json.
json plain(const ojson& j) { return json::parse(j.dump()); }
}  // namespace

TEST(SchemaExport, ThreeDialectShapes) {
  Registry reg;
  ASSERT_TRUE(reg.add(tools_test::weather_spec("weather.now")).ok());
  const Tool& t = *reg.find("weather.now");
  json schema = json::parse(tools_test::kWeatherSchema);

  auto o = export_tool(t, "openai");
  ASSERT_TRUE(o.ok());
  EXPECT_EQ(o->dump().find(R"({"type":"function","function":{"name":"weather__now")"), 0u)
      << o->dump();
  EXPECT_EQ(plain(*o), (json{{"type", "function"},
                             {"function",
                              {{"name", "weather__now"},
                               {"description", "Weather for a city"},
                               {"parameters", schema}}}}));
  auto a = export_tool(t, "anthropic");
  ASSERT_TRUE(a.ok());
  EXPECT_EQ(plain(*a), (json{{"name", "weather__now"},
                             {"description", "Weather for a city"},
                             {"input_schema", schema}}));
  auto g = export_tool(t, "gemini");
  ASSERT_TRUE(g.ok());
  EXPECT_EQ((*g)["name"], "weather__now");
  EXPECT_EQ(plain((*g)["parameters"]), schema);
  // Property order is the author's, not alphabetical.
  EXPECT_EQ((*g)["parameters"]["properties"].begin().key(),
            "city");  // already inside Gemini's subset

  ASSERT_NE(parse_dialect("gemini"), nullptr);
  EXPECT_EQ(parse_dialect("gemini")->name, "gemini");
  EXPECT_EQ(parse_dialect("openai"), parse_dialect("openai_chat"));  // alias and name
  // Bedrock: a toolConfig.tools entry.
  auto b = export_tool(t, "bedrock");
  ASSERT_TRUE(b.ok());
  EXPECT_EQ(plain(*b), (json{{"toolSpec",
                              {{"name", "weather__now"},
                               {"description", "Weather for a city"},
                               {"inputSchema", {{"json", schema}}}}}}));
  EXPECT_EQ(parse_dialect("cohere"), nullptr);
  EXPECT_FALSE(export_tool(t, "cohere").ok());
}

TEST(SchemaExport, OpenAiStrictConversion) {
  ojson in = ojson::parse(R"({
    "type":"object",
    "properties":{
      "city":{"type":"string","minLength":1},
      "unit":{"type":"string","enum":["c","f"]},
      "loc":{"type":"object","properties":{"lat":{"type":"number"},"lon":{"type":"number"}},"required":["lat"]},
      "tags":{"type":"array","items":{"type":"object","properties":{"k":{"type":"string"}}}},
      "ref":{"$ref":"#/$defs/p"}
    },
    "required":["city"],
    "$defs":{"p":{"type":"object","properties":{"q":{"type":"integer"}}}}
  })");
  auto s = to_openai_strict_schema(in);
  ASSERT_TRUE(s.ok()) << s.error().to_string();
  json expected = json::parse(R"({
    "type":"object",
    "properties":{
      "city":{"type":"string"},
      "unit":{"type":["string","null"],"enum":["c","f",null]},
      "loc":{"type":["object","null"],"properties":{"lat":{"type":"number"},"lon":{"type":["number","null"]}},
             "required":["lat","lon"],"additionalProperties":false},
      "tags":{"type":["array","null"],"items":{"type":"object","properties":{"k":{"type":["string","null"]}},
              "required":["k"],"additionalProperties":false}},
      "ref":{"anyOf":[{"$ref":"#/$defs/p"},{"type":"null"}]}
    },
    "required":["city","unit","loc","tags","ref"],
    "additionalProperties":false,
    "$defs":{"p":{"type":"object","properties":{"q":{"type":["integer","null"]}},"required":["q"],
             "additionalProperties":false}}
  })");
  EXPECT_EQ(plain(*s), expected) << s->dump(2);

  // Arguments produced under the strict schema validate against the original
  // once strip_strict_nulls drops the nulls of optional properties.
  json args = json::parse(
      R"({"city":"Oslo","unit":null,"loc":{"lat":1,"lon":null},"tags":null,"ref":{"q":null}})");
  auto strict_c = CompiledSchema::compile(plain(*s));
  ASSERT_TRUE(strict_c.ok()) << strict_c.error().to_string();
  EXPECT_TRUE(strict_c->accepts(args));
  strip_strict_nulls(plain(in), args);
  EXPECT_EQ(args, json::parse(R"({"city":"Oslo","loc":{"lat":1},"ref":{}})"));
  EXPECT_TRUE(CompiledSchema::compile(plain(in))->accepts(args));

  auto exported = export_definition({"t", "d", in.dump(), true}, "openai");
  ASSERT_TRUE(exported.ok());
  EXPECT_EQ((*exported)["function"]["strict"], true);
  EXPECT_EQ(plain((*exported)["function"]["parameters"]), expected);
}

TEST(SchemaExport, OpenAiStrictRefusesWhatItCannotExpress) {
  for (
      const char* s :
      {R"({"type":"object","properties":{"d":{"type":"object"}}})",
       R"({"type":"object","properties":{"x":{}}})",
       R"({"type":"object","properties":{"x":{"not":{"type":"string"}}}})",
       R"({"type":"object","properties":{"x":{"type":"array","prefixItems":[{"type":"string"}]}}})"}) {
    auto r = to_openai_strict_schema(ojson::parse(s));
    ASSERT_FALSE(r.ok()) << s;
    EXPECT_EQ(r.error().code, ErrorCode::unimplemented);
    EXPECT_EQ(r.error().path.rfind("$.properties.", 0), 0u) << r.error().path;
  }
}

TEST(SchemaExport, GeminiSubset) {
  ojson in = ojson::parse(R"({
    "$schema":"https://json-schema.org/draft/2020-12/schema",
    "type":"object",
    "additionalProperties":false,
    "properties":{
      "name":{"type":["string","null"],"format":"email","maxLength":40},
      "when":{"type":"string","format":"date-time"},
      "n":{"type":"integer","exclusiveMinimum":0,"multipleOf":2},
      "mode":{"const":"fast"},
      "level":{"enum":[1,2,3]},
      "choice":{"anyOf":[{"type":"string"},{"type":"null"}]},
      "either":{"oneOf":[{"type":"string"},{"type":"integer"}]},
      "pair":{"type":"array","prefixItems":[{"type":"string"},{"type":"string"}]},
      "addr":{"$ref":"#/$defs/addr","description":"Postal address"},
      "both":{"allOf":[{"type":"object","properties":{"a":{"type":"string"}},"required":["a"]},
                       {"properties":{"b":{"type":"string"}}}]},
      "multi":{"type":["string","integer"]}
    },
    "required":["name","ghost"],
    "$defs":{"addr":{"type":"object","properties":{"street":{"type":"string"}},"additionalProperties":false}}
  })");
  auto g = to_gemini_schema(in);
  ASSERT_TRUE(g.ok()) << g.error().to_string();
  json expected = json::parse(R"({
    "type":"object",
    "properties":{
      "name":{"type":"string","maxLength":40,"nullable":true},
      "when":{"type":"string","format":"date-time"},
      "n":{"type":"integer","minimum":0},
      "mode":{"type":"string","enum":["fast"]},
      "level":{"description":"One of: [1,2,3]."},
      "choice":{"type":"string","nullable":true},
      "either":{"anyOf":[{"type":"string"},{"type":"integer"}]},
      "pair":{"type":"array","items":{"type":"string"}},
      "addr":{"type":"object","properties":{"street":{"type":"string"}},"description":"Postal address"},
      "both":{"type":"object","properties":{"a":{"type":"string"},"b":{"type":"string"}},"required":["a"]},
      "multi":{"anyOf":[{"type":"string"},{"type":"integer"}]}
    },
    "required":["name"]
  })");
  EXPECT_EQ(plain(*g), expected) << g->dump(2);
  std::string dumped = g->dump();
  for (const char* gone : {"$ref", "$defs", "additionalProperties", "$schema", "oneOf", "const",
                           "prefixItems", "exclusiveMinimum", "multipleOf", "allOf"})
    EXPECT_EQ(dumped.find(gone), std::string::npos) << gone;
}

TEST(SchemaExport, GeminiRefusesRecursiveRef) {
  ojson in = ojson::parse(R"({"type":"object","properties":{"n":{"$ref":"#/$defs/node"}},
      "$defs":{"node":{"type":"object","properties":{"next":{"$ref":"#/$defs/node"}}}}})");
  auto g = to_gemini_schema(in);
  ASSERT_FALSE(g.ok());
  EXPECT_EQ(g.error().code, ErrorCode::unimplemented);
  EXPECT_NE(g.error().message.find("recursive"), std::string::npos);
}
