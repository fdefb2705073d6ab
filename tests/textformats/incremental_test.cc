// Every case fed split at every byte offset, and one byte at a time, must give
// the same events (deltas of one kind merged) and errors as one piece.
#include <gtest/gtest.h>

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
  std::string_view in = c.input;
  auto whole = normalized(run_pieces(c.family, {in}, t));
  for (size_t cut = 0; cut <= in.size(); ++cut) {
    auto split = normalized(run_pieces(c.family, {in.substr(0, cut), in.substr(cut)}, t));
    ASSERT_EQ(split, whole) << "split at " << cut;
  }
  std::vector<std::string_view> bytes;
  for (size_t i = 0; i < in.size(); ++i) bytes.push_back(in.substr(i, 1));
  EXPECT_EQ(normalized(run_pieces(c.family, bytes, t)), whole) << "one byte at a time";
  // Three pieces at a few places too (a marker split twice).
  for (size_t a = 0; a < in.size(); a += 7)
    for (size_t b = a; b <= in.size(); b += 5)
      ASSERT_EQ(
          normalized(run_pieces(c.family, {in.substr(0, a), in.substr(a, b - a), in.substr(b)}, t)),
          whole)
          << "cuts at " << a << ", " << b;
}

INSTANTIATE_TEST_SUITE_P(All, Incremental, ::testing::ValuesIn(all_cases()), [](const auto& info) {
  return info.param.family + "_" + info.param.name;
});

}  // namespace
}  // namespace toolwire::textformats::testing
