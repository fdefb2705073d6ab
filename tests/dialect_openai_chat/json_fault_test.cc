// Where malformed JSON goes wrong (src/dialects/common/json_fault.*): the byte
// offset, line and column every codec's parse error names. The scan must
// agree with simdjson on what is valid, or a position would be invented.
#include <gtest/gtest.h>
#include <simdjson.h>

#include <string>

#include "dialects/common/json_fault.h"
#include "dialects/common/json_in.h"

namespace toolwire::dialects::json {
namespace {

struct FaultCase {
  std::string text;
  size_t offset;
  const char* reason_part;
};

class FaultTest : public ::testing::TestWithParam<FaultCase> {};

TEST_P(FaultTest, FirstBadByteAndWhy) {
  const FaultCase& c = GetParam();
  simdjson::dom::parser parser;
  ASSERT_TRUE(parser.parse(c.text).error()) << "simdjson accepts " << c.text;
  auto f = find_json_fault(c.text, parser.max_depth());
  ASSERT_TRUE(f.has_value()) << c.text;
  EXPECT_EQ(f->offset, c.offset) << c.text << ": " << f->reason;
  EXPECT_NE(f->reason.find(c.reason_part), std::string::npos) << f->reason;
}

INSTANTIATE_TEST_SUITE_P(
    Cases, FaultTest,
    ::testing::Values(
        FaultCase{R"({"model":"m","messages":[)", 25, "unexpected end of input"},
        FaultCase{R"({"a":1,})", 7, "expected a string key"},
        FaultCase{"[1,]", 3, "expected a JSON value"}, FaultCase{"[1 2]", 3, "expected ',' or ']'"},
        FaultCase{R"({"a" 1})", 5, "expected ':'"},
        FaultCase{R"({"a":1 "b":2})", 7, "expected ',' or '}'"},
        FaultCase{"{}x", 2, "after the JSON value"}, FaultCase{"[tru]", 4, "invalid literal"},
        FaultCase{"nul", 3, "unexpected end of input"}, FaultCase{"01", 1, "leading zero"},
        FaultCase{"[-]", 2, "expected a digit"}, FaultCase{"[1.]", 3, "expected a digit after '.'"},
        FaultCase{"[0e]", 3, "exponent"}, FaultCase{"[1,18446744073709551616]", 3, "out of range"},
        FaultCase{"[-9223372036854775809]", 1, "out of range"},
        FaultCase{"[1e400]", 1, "out of range"}, FaultCase{"[\"a\tb\"]", 3, "control character"},
        FaultCase{R"(["a\xb"])", 4, "invalid escape"}, FaultCase{R"(["\u12G4"])", 6, "hex digits"},
        FaultCase{R"(["x\ud800"])", 3, "high surrogate"},
        FaultCase{R"(["\ud800\u0041"])", 2, "high surrogate"},
        FaultCase{R"(["\udc00"])", 2, "low surrogate"},
        FaultCase{"[\"abc", 5, "string opened at byte 1"},
        FaultCase{"[\"\xed\xa0\x80\"]", 2, "invalid UTF-8"},
        FaultCase{std::string(1025, '[') + std::string(1025, ']'), 1023, "nested more than"}));

TEST(JsonFault, ValidDocumentsHaveNone) {
  simdjson::dom::parser parser;
  const std::string docs[] = {
      R"({"a":[1,-0,0.5,1e-400,18446744073709551615,-9223372036854775808,true,false,null,{}],)"
      R"("b":"\u00e9\ud83d\ude00 é"})",
      " \n[ ]\r\n", "\"x\"", std::string(1023, '[') + std::string(1023, ']'),
      // Empty containers do not open a level, as simdjson counts.
      std::string(1023, '[') + "[]" + std::string(1023, ']')};
  for (const std::string& d : docs) {
    ASSERT_FALSE(parser.parse(d).error()) << d;
    EXPECT_FALSE(find_json_fault(d, parser.max_depth()).has_value()) << d;
  }
}

TEST(JsonFault, LineAndColumnCountCharacters) {
  const std::string text = "{\n  \"é\": [1,\n  x";
  auto lc = line_column(text, text.find('x'));
  EXPECT_EQ(lc.line, 3u);
  EXPECT_EQ(lc.column, 3u);
  lc = line_column(text, text.find(':'));  // "é" is two bytes, one column
  EXPECT_EQ(lc.line, 2u);
  EXPECT_EQ(lc.column, 6u);
  EXPECT_EQ(line_column(text, 0).column, 1u);
}

TEST(JsonFault, InvalidUtf8Offset) {
  EXPECT_EQ(find_invalid_utf8("ab\xc3\xa9"
                              "c\xc3("),
            std::optional<size_t>(5));
  EXPECT_EQ(find_invalid_utf8("\xf4\x90\x80\x80"), std::optional<size_t>(0));  // past U+10FFFF
  EXPECT_FALSE(find_invalid_utf8("ok \xf0\x9f\x98\x80").has_value());
}

// The message json::parse builds from it (what every decoder returns).
TEST(JsonFault, ParseErrorMessageNamesThePosition) {
  simdjson::dom::parser parser;
  auto r = parse(parser, "{\n  \"model\": \"m\",\n  \"messages\": [}\n");
  ASSERT_FALSE(r.ok());
  EXPECT_EQ(r.error().to_string(),
            "$: malformed JSON at byte 33 (line 3, column 16): expected a JSON value");
  r = parse(parser, "{\"a\":\"\xc3(\"}");
  EXPECT_EQ(r.error().message, "invalid UTF-8 in JSON at byte 6 (line 1, column 7)");
  r = parse(parser, "{\"a\":" + std::string(2000, '[') + std::string(2000, ']') + "}");
  EXPECT_NE(r.error().message.find("JSON nested too deeply at byte 1027 (line 1, column 1028)"),
            std::string::npos)
      << r.error().message;
}

}  // namespace
}  // namespace toolwire::dialects::json
