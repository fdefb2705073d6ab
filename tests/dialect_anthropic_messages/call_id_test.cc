#include "dialects/common/call_id.h"

#include <gtest/gtest.h>

#include <random>
#include <string>

namespace toolwire::dialects::call_id {
namespace {

TEST(CallId, ValidIdsPassUnchanged) {
  for (std::string id : {"toolu_01A09q90qw90lq917835lq9", "call_DdmO9pD3xa9XTPNJ32zg2hcA", "a-b_c",
                         "x", "-", "tw"}) {
    EXPECT_TRUE(is_anthropic_valid(id)) << id;
    EXPECT_FALSE(needs_mapping(id)) << id;
    EXPECT_EQ(to_anthropic(id), id);
    EXPECT_EQ(from_anthropic(id), id);
  }
}

TEST(CallId, InvalidIdsAreEscaped) {
  EXPECT_EQ(to_anthropic("call:1/x"), "tw-call-3a1-2fx");
  EXPECT_EQ(to_anthropic("a b"), "tw-a-20b");
  EXPECT_EQ(to_anthropic("a-b c"), "tw-a--b-20c");
  EXPECT_EQ(to_anthropic("\xc3\xa9"), "tw--c3-a9");
  EXPECT_EQ(to_anthropic(std::string("a\0b", 3)), "tw-a-00b");
  EXPECT_EQ(from_anthropic("tw-call-3a1-2fx"), "call:1/x");
  EXPECT_EQ(from_anthropic("tw-a--b-20c"), "a-b c");
  EXPECT_EQ(from_anthropic("tw-a-00b"), std::string("a\0b", 3));
}

TEST(CallId, TwPrefixIsAlwaysEscapedSoItCannotCollide) {
  EXPECT_TRUE(needs_mapping("tw-abc"));
  EXPECT_EQ(to_anthropic("tw-abc"), "tw-tw--abc");
  EXPECT_EQ(from_anthropic("tw-tw--abc"), "tw-abc");
  EXPECT_EQ(to_anthropic("tw-"), "tw-tw--");
  EXPECT_EQ(from_anthropic("tw-tw--"), "tw-");
}

TEST(CallId, NonCanonicalTwIdsDecodeToThemselves) {
  // Not the image of any id: kept verbatim instead of failing.
  for (std::string id : {"tw-abc", "tw-a-2d", "tw-a-", "tw-a-4", "tw-a-4G", "tw-a-4A", "tw-"}) {
    EXPECT_EQ(from_anthropic(id), id) << id;
  }
}

TEST(CallId, EmptyIdMapsToItself) {
  EXPECT_FALSE(is_anthropic_valid(""));
  EXPECT_FALSE(needs_mapping(""));
  EXPECT_EQ(to_anthropic(""), "");
  EXPECT_EQ(from_anthropic(""), "");
}

TEST(CallId, RandomIdsRoundTripAndAreValid) {
  std::mt19937 rng(7);
  const std::string alphabet = std::string("ab_-:/. tw\xff\x80", 13) + std::string(1, '\0');
  for (int round = 0; round < 5000; ++round) {
    std::string id;
    size_t len = 1 + rng() % 12;
    if (rng() % 4 == 0) id = "tw-";
    for (size_t i = 0; i < len; ++i) id.push_back(alphabet[rng() % alphabet.size()]);
    std::string mapped = to_anthropic(id);
    ASSERT_TRUE(is_anthropic_valid(mapped)) << mapped;
    ASSERT_EQ(from_anthropic(mapped), id) << mapped;
  }
}

}  // namespace
}  // namespace toolwire::dialects::call_id
