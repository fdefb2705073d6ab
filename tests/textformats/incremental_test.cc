// Every case fed split at every byte offset, and one byte at a time, must give
// the same events (deltas of one kind merged) and errors as one piece.
#include <algorithm>
#include <map>
#include <random>

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

class Incremental : public ::testing::TestWithParam<Case> {};

TEST_P(Incremental, SameResultAtEverySplit) {
  const Case& c = GetParam();
  const ToolSet* t = c.tools ? &tools() : nullptr;
  const ParserOptions o{c.reasoning_open};
  std::string_view in = c.input;
  auto whole = normalized(run_pieces(c.family, {in}, t, o));
  for (size_t cut = 0; cut <= in.size(); ++cut) {
    auto split = normalized(run_pieces(c.family, {in.substr(0, cut), in.substr(cut)}, t, o));
    ASSERT_EQ(split, whole) << "split at " << cut;
  }
  std::vector<std::string_view> bytes;
  for (size_t i = 0; i < in.size(); ++i) bytes.push_back(in.substr(i, 1));
  EXPECT_EQ(normalized(run_pieces(c.family, bytes, t, o)), whole) << "one byte at a time";
  // Three pieces at a few places too (a marker split twice).
  for (size_t a = 0; a < in.size(); a += 7)
    for (size_t b = a; b <= in.size(); b += 5)
      ASSERT_EQ(normalized(run_pieces(c.family,
                                      {in.substr(0, a), in.substr(a, b - a), in.substr(b)}, t, o)),
                whole)
          << "cuts at " << a << ", " << b;
}

// Small random chunks (1 to 8 bytes, as a server's tokens arrive), several
// seeds per case.
TEST_P(Incremental, SameResultInRandomSmallChunks) {
  const Case& c = GetParam();
  const ToolSet* t = c.tools ? &tools() : nullptr;
  const ParserOptions o{c.reasoning_open};
  std::string_view in = c.input;
  auto whole = normalized(run_pieces(c.family, {in}, t, o));
  for (unsigned seed = 1; seed <= 20; ++seed) {
    std::mt19937 rng(seed);
    std::vector<std::string_view> chunks;
    for (size_t i = 0; i < in.size();) {
      size_t n = std::min<size_t>(1 + rng() % 8, in.size() - i);
      chunks.push_back(in.substr(i, n));
      i += n;
    }
    ASSERT_EQ(normalized(run_pieces(c.family, chunks, t, o)), whole) << "seed " << seed;
  }
}

INSTANTIATE_TEST_SUITE_P(All, Incremental, ::testing::ValuesIn(all_cases()), [](const auto& info) {
  return info.param.family + "_" + info.param.name;
});

}  // namespace
}  // namespace toolwire::textformats::testing

namespace toolwire::textformats::testing {
namespace {

// The fuzz target's invariant without libFuzzer: outputs stitched from the
// families' markers and JSON/Python/prose pieces, fed whole and cut in three
// at random places, give the same events; every ended call carries a JSON
// object. A fixed seed: a failure reproduces.
TEST(IncrementalSoup, RandomMarkupAgreesAcrossSplits) {
  static const std::vector<std::string> kPieces = {"<tool_call>",
                                                   "</tool_call>",
                                                   "<|python_tag|>",
                                                   "<|eom_id|>",
                                                   "<|eot_id|>",
                                                   ">>>",
                                                   "all\n",
                                                   "get_weather\n",
                                                   "python\n",
                                                   "brave_search.call(",
                                                   "query=\"x\"",
                                                   ")",
                                                   "{\"name\": ",
                                                   "\"get_weather\"",
                                                   ", \"arguments\": ",
                                                   ", \"parameters\": ",
                                                   "{\"city\": \"Zürich\"}",
                                                   "}",
                                                   "{",
                                                   "[",
                                                   "]",
                                                   "\"",
                                                   "\\",
                                                   " ",
                                                   "\n",
                                                   "text ",
                                                   "<think>",
                                                   "</think>",
                                                   "[TOOL_CALLS]",
                                                   "[ARGS]",
                                                   "<function=",
                                                   "</function>",
                                                   "<|channel|>",
                                                   "<|message|>",
                                                   "<|call|>",
                                                   "print(1)",
                                                   "f(a=1)",
                                                   "<parameter=city>",
                                                   "</parameter>",
                                                   "<arg_key>",
                                                   "<arg_value>",
                                                   "é",
                                                   "🌧"};
  std::mt19937 rng(12345);
  const ToolSet tools = ToolSet::from_json(kTools).value();
  for (std::string_view family : families()) {
    for (int iter = 0; iter < 2000; ++iter) {
      std::string in;
      int n = 1 + static_cast<int>(rng() % 24);
      for (int i = 0; i < n; ++i) in += kPieces[rng() % kPieces.size()];
      const ToolSet* t = iter % 2 ? &tools : nullptr;
      std::string_view v = in;
      ParseOutput whole_out = run_pieces(family, {v}, t);
      auto whole = normalized(whole_out);
      size_t a = rng() % (in.size() + 1), b = rng() % (in.size() + 1);
      if (a > b) std::swap(a, b);
      ASSERT_EQ(
          normalized(run_pieces(family, {v.substr(0, a), v.substr(a, b - a), v.substr(b)}, t)),
          whole)
          << family << " input: " << in << " cuts " << a << ", " << b;
      std::map<int, std::string> args;
      for (const auto& e : whole_out.events) {
        if (auto* d = std::get_if<ir::ToolCallDelta>(&e)) args[d->index] += d->fragment;
        if (auto* end = std::get_if<ir::ToolCallEnd>(&e)) {
          EXPECT_TRUE(nlohmann::json::parse(args[end->index], nullptr, false).is_object())
              << family << " input: " << in;
        }
      }
    }
  }
}

}  // namespace
}  // namespace toolwire::textformats::testing
