// Each family on realistic outputs, fed in one piece: text, reasoning, the
// complete calls (arguments compared as JSON values, ids) and the errors.
#include <gtest/gtest.h>
#include <nlohmann/json.hpp>

#include "cases.h"
#include "support.h"

namespace toolwire::textformats::testing {
namespace {

const ToolSet& tools() {
  static const ToolSet set = ToolSet::from_json(kTools).value();
  return set;
}

class Families : public ::testing::TestWithParam<Case> {};

TEST_P(Families, ParsesAsExpected) {
  const Case& c = GetParam();
  ParseOutput out =
      run_pieces(c.family, {c.input}, c.tools ? &tools() : nullptr, {c.reasoning_open});
  ParseSummary s = summarize(out);
  EXPECT_EQ(s.content, c.content);
  EXPECT_EQ(s.reasoning, c.reasoning);
  std::vector<ParsedCall> complete;
  for (const auto& call : s.tool_calls)
    if (call.complete) complete.push_back(call);
  ASSERT_EQ(complete.size(), c.calls.size()) << to_json(s);
  for (size_t i = 0; i < complete.size(); ++i) {
    EXPECT_EQ(complete[i].name, c.calls[i].name);
    EXPECT_EQ(complete[i].id, c.calls[i].id);
    auto got = nlohmann::json::parse(complete[i].arguments, nullptr, false);
    EXPECT_FALSE(got.is_discarded()) << complete[i].arguments;
    EXPECT_EQ(got, nlohmann::json::parse(c.calls[i].arguments)) << complete[i].arguments;
  }
  ASSERT_EQ(s.errors.size(), c.errors.size()) << to_json(s);
  for (size_t i = 0; i < c.errors.size(); ++i)
    EXPECT_NE(s.errors[i].message.find(c.errors[i]), std::string::npos) << s.errors[i].message;
  // A call that did not end is never listed as a call.
  for (const auto& call : s.tool_calls)
    if (!call.complete) {
      EXPECT_FALSE(s.errors.empty());
    }
  // The CLI's JSON form is valid JSON.
  EXPECT_FALSE(nlohmann::json::parse(to_json(s), nullptr, false).is_discarded());
}

INSTANTIATE_TEST_SUITE_P(All, Families, ::testing::ValuesIn(all_cases()), [](const auto& info) {
  return info.param.family + "_" + info.param.name;
});

TEST(TextFormats, EveryFamilyIsMade) {
  for (std::string_view f : families()) {
    auto p = make_parser(f);
    ASSERT_TRUE(p.ok()) << f;
    ParseOutput out;
    (*p)->feed("", out);
    (*p)->finish(out);
    EXPECT_TRUE(out.events.empty()) << f;
    // An empty answer is no envelope; for the others it is an empty message.
    EXPECT_EQ(out.errors.size(), f == "envelope" ? 1u : 0u) << f;
  }
}

TEST(TextFormats, UnknownFamily) {
  auto p = make_parser("no_such_format");
  ASSERT_FALSE(p.ok());
  EXPECT_EQ(p.error().code, ErrorCode::not_found);
  EXPECT_NE(p.error().message.find("hermes"), std::string::npos);
}

TEST(TextFormats, TextGoesOutBeforeTheEndHoldingOnlyAMarkerPrefix) {
  auto p = make_parser("hermes").value();
  ParseOutput out;
  p->feed("Hello there <tool_c", out);
  ASSERT_EQ(normalized(out), std::vector<std::string>{"text:Hello there"});
  p->feed("all>{\"name\":\"x\",\"arguments\":{}}</tool_call>", out);
  EXPECT_EQ(normalized(out).back(), "end:0");
}

TEST(TextFormats, ArgumentsStreamBeforeTheCallEnds) {
  auto p = make_parser("kimi_k2").value();
  ParseOutput out;
  p->feed(
      "<|tool_calls_section_begin|><|tool_call_begin|>functions.f:0"
      "<|tool_call_argument_begin|>{\"text\": \"abc",
      out);
  EXPECT_EQ(normalized(out),
            (std::vector<std::string>{"start:0:functions.f:0:f", "args:0:{\"text\": \"abc"}));
}

TEST(TextFormats, ToolSetFromJsonRejectsBadDefinitions) {
  EXPECT_FALSE(ToolSet::from_json("{}").ok());
  EXPECT_FALSE(ToolSet::from_json(R"([{"type":"function","function":{}}])").ok());
  EXPECT_FALSE(
      ToolSet::from_json(R"([{"name":"x","parameters":{"type":"object","required":5}}])").ok());
  auto ok = ToolSet::from_json(R"([{"name":"x","parameters":{"type":"object"}}])");
  ASSERT_TRUE(ok.ok());
  EXPECT_TRUE(ok->has("x"));
}

}  // namespace
}  // namespace toolwire::textformats::testing
