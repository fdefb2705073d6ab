// The reversible function-name map and the synthesized call ids.
#include <gtest/gtest.h>

#include <set>
#include <string>
#include <vector>

#include "dialects/gemini/wire.h"

namespace toolwire::dialects::gemini {
namespace {

TEST(GeminiNames, GeminiRule) {
  EXPECT_TRUE(is_valid_name("get_weather"));
  EXPECT_TRUE(is_valid_name("_private"));
  EXPECT_TRUE(is_valid_name("ns.tool:v1-x"));  // dots and colons are Gemini's
  EXPECT_TRUE(is_valid_name(std::string(64, 'a')));
  EXPECT_FALSE(is_valid_name(std::string(65, 'a')));
  EXPECT_FALSE(is_valid_name(""));
  EXPECT_FALSE(is_valid_name("1tool"));
  EXPECT_FALSE(is_valid_name("-tool"));
  EXPECT_FALSE(is_valid_name(".tool"));
  EXPECT_FALSE(is_valid_name("has space"));
  EXPECT_FALSE(is_valid_name("slash/name"));
}

TEST(GeminiNames, OtherDialectsNamesGeminiAcceptsPassUnchanged) {
  std::string scratch;
  for (std::string_view n : {"get_weather", "a-b", "_x", "tool_1", "A"})
    EXPECT_EQ(to_gemini_name(n, scratch), n);
  EXPECT_EQ(from_gemini_name("get_weather"), "get_weather");
  EXPECT_EQ(from_gemini_name("_x"), "_x");
}

TEST(GeminiNames, LeadingDigitOrDashGetsAnUnderscoreAndComesBack) {
  std::string scratch;
  for (std::string n : {"1tool", "-tool", "_1tool", "__-x", "9"}) {
    const std::string mapped(to_gemini_name(n, scratch));
    EXPECT_EQ(mapped, "_" + n);
    EXPECT_TRUE(is_valid_name(mapped)) << mapped;
    EXPECT_EQ(from_gemini_name(mapped), n);
  }
}

TEST(GeminiNames, MapIsInjectiveOnAShortAlphabet) {
  // Every name of up to 4 bytes over a small alphabet maps to a distinct
  // name that maps back.
  const std::string alphabet = "_1-a.";
  std::vector<std::string> names, level = {""};
  for (int len = 1; len <= 4; ++len) {
    std::vector<std::string> next;
    for (const auto& n : level)
      for (char c : alphabet) next.push_back(n + c);
    names.insert(names.end(), next.begin(), next.end());
    level = std::move(next);
  }
  std::set<std::string> images;
  std::string scratch;
  for (const auto& n : names) {
    if (n.empty()) continue;
    const std::string g(to_gemini_name(n, scratch));
    EXPECT_TRUE(images.insert(g).second) << n;
    EXPECT_EQ(from_gemini_name(g), n) << n;
  }
}

TEST(GeminiNames, TooLongNamesAreRefusedWithThePath) {
  std::string scratch;
  json::Path root;
  json::Path tools(root, "tools");  // a Path keeps a pointer to its parent
  json::Path p(tools, size_t{3});
  auto r = gemini_name_or_error(std::string(65, 'a'), scratch, p);
  ASSERT_FALSE(r);
  EXPECT_EQ(r.error().path, "$.tools[3]");
  EXPECT_EQ(r.error().code, ErrorCode::invalid_argument);
  EXPECT_NE(r.error().message.find("^[a-zA-Z_][a-zA-Z0-9_.:-]{0,63}$"), std::string::npos);
  // 64 characters that need the '_' no longer fit.
  EXPECT_FALSE(gemini_name_or_error("1" + std::string(63, 'a'), scratch, p));
}

TEST(GeminiNames, SynthesizedIdsAreDeterministicAndDistinct) {
  const std::string a = synthesize_call_id("resp1", 0, "get_weather", R"({"city": "Paris"})");
  EXPECT_EQ(a, synthesize_call_id("resp1", 0, "get_weather", R"({"city":"Paris"})"));
  EXPECT_TRUE(a.starts_with("call_"));
  EXPECT_EQ(a.size(), 5u + 16u);
  EXPECT_NE(a, synthesize_call_id("resp1", 1, "get_weather", R"({"city":"Paris"})"));
  EXPECT_NE(a, synthesize_call_id("resp2", 0, "get_weather", R"({"city":"Paris"})"));
  EXPECT_NE(a, synthesize_call_id("resp1", 0, "get_time", R"({"city":"Paris"})"));
  EXPECT_NE(a, synthesize_call_id("resp1", 0, "get_weather", R"({"city":"Paris "})"));
}

TEST(GeminiNames, SnakeCaseKeysReadAsCamelCase) {
  std::string s;
  EXPECT_EQ(camel_key("function_declarations", s), "functionDeclarations");
  EXPECT_EQ(camel_key("thought_signature", s), "thoughtSignature");
  EXPECT_EQ(camel_key("max_output_tokens", s), "maxOutputTokens");
  EXPECT_EQ(camel_key("contents", s), "contents");
}

}  // namespace
}  // namespace toolwire::dialects::gemini
