// Schemas into Gemini: the DOM scrubber (the encoder's fast path) writes what
// the shared exporter (src/schema/gemini_schema.cc) writes, for every schema
// it takes, and leaves the rewrites only the exporter does to it.
#include <gtest/gtest.h>

#include <nlohmann/json.hpp>

#include "dialects/gemini/wire.h"
#include "toolwire/schema/json_schema.h"

namespace toolwire::dialects::gemini {
namespace {

using nlohmann::json;
using JsonPath = dialects::json::Path;

json exported(const std::string& schema) {
  auto r = schema::to_gemini_schema(nlohmann::ordered_json::parse(schema));
  EXPECT_TRUE(r) << schema;
  return r ? json::parse(r->dump()) : json();
}

// Schemas the scrubber must take (they need dropping and copying only).
const char* const kScrubbed[] = {
    R"({"type":"object","properties":{"a":{"type":"string","format":"date"}},"required":["a"],"additionalProperties":false})",
    R"({"$schema":"https://json-schema.org/draft/2020-12/schema","type":"object","properties":{"n":{"type":"integer","format":"int64","minimum":1,"maximum":9}}})",
    R"({"type":"object","properties":{"mode":{"enum":["a","b"]},"tags":{"type":"array","items":{"type":"string","format":"email"},"uniqueItems":true}},"required":["mode","missing",7]})",
    R"({"type":"object","title":"T","description":"d","properties":{"o":{"type":"object","properties":{"x":{"type":"number","format":"double","default":1.5}},"additionalProperties":{"type":"string"}},"e":{},"z":{"type":"object","properties":{}}},"required":[]})",
    R"({"type":"object","properties":{"when":{"type":"string","format":"date-time","example":"2024-01-01T00:00:00Z","nullable":true},"any":{"type":"array","items":{}}},"propertyOrdering":["when","any"],"minProperties":1})",
    R"({"type":"object","properties":{"k":{"type":"string","pattern":"^[a-z]+$","minLength":1,"maxLength":5,"readOnly":true,"deprecated":false}},"patternProperties":{"^x":{}},"unevaluatedProperties":false})",
};

// Schemas only the exporter can reduce.
const char* const kExporterOnly[] = {
    R"({"type":"object","properties":{"a":{"$ref":"#/$defs/A"}},"$defs":{"A":{"type":"string"}}})",
    R"({"type":"object","properties":{"a":{"type":["string","null"]}}})",
    R"({"type":"object","properties":{"a":{"anyOf":[{"type":"string"},{"type":"integer"}]}}})",
    R"({"type":"object","properties":{"a":{"const":"x"}}})",
    R"({"type":"object","properties":{"a":{"enum":[1,2]}}})",
    R"({"type":"object","properties":{"a":{"type":"number","exclusiveMinimum":0}}})",
    R"({"type":"object","properties":{"a":{"type":"array","prefixItems":[{"type":"string"}]}}})",
    R"({"type":"object","properties":{"a":true}})",
};

TEST(GeminiSchema, ScrubberWritesWhatTheExporterWrites) {
  for (const char* s : kScrubbed) {
    std::string out;
    ASSERT_TRUE(scrub_schema(s, out)) << s;
    EXPECT_EQ(json::parse(out), exported(s)) << s << "\nscrubbed: " << out;
  }
}

TEST(GeminiSchema, RewritesAreLeftToTheExporter) {
  for (const char* s : kExporterOnly) {
    std::string out;
    EXPECT_FALSE(scrub_schema(s, out)) << s;
    std::string via_encoder;
    JsonPath root;
    ASSERT_TRUE(encode_schema(s, root, via_encoder).ok()) << s;
    EXPECT_EQ(json::parse(via_encoder), exported(s)) << s;
  }
}

TEST(GeminiSchema, EncoderPathsAgreeWithTheExporter) {
  for (const char* s : kScrubbed) {
    std::string out;
    JsonPath root;
    ASSERT_TRUE(encode_schema(s, root, out).ok()) << s;
    EXPECT_EQ(json::parse(out), exported(s)) << s;
  }
  // Already inside the subset: spliced as it is.
  const std::string clean =
      R"({"type":"object","properties":{"q":{"type":"string","description":"x"}},"required":["q"]})";
  std::string out;
  JsonPath root;
  ASSERT_TRUE(encode_schema(clean, root, out).ok());
  EXPECT_EQ(out, clean);
  // No properties: no parameters at all.
  ASSERT_TRUE(encode_schema(R"({"type":"object","additionalProperties":false})", root, out).ok());
  EXPECT_EQ(out, "");
}

}  // namespace
}  // namespace toolwire::dialects::gemini
