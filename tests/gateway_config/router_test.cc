#include <gtest/gtest.h>

#include "toolwire/gateway/routing.h"

namespace toolwire::gateway {
namespace {

TEST(PatternRouter, GlobMatch) {
  EXPECT_TRUE(glob_match("gpt-*", "gpt-4o"));
  EXPECT_TRUE(glob_match("*", ""));
  EXPECT_TRUE(glob_match("a*b*c", "axxbyyc"));
  EXPECT_FALSE(glob_match("a*b*c", "axxbyy"));
  EXPECT_FALSE(glob_match("gpt-*", "chatgpt-4o"));
  EXPECT_TRUE(glob_match("exact", "exact"));
  EXPECT_FALSE(glob_match("exact", "exactly"));
}

TEST(PatternRouter, ExactThenAliasThenLongestGlob) {
  PatternRouter r;
  r.add_route({.pattern = "*", .aliases = {}, .targets = {{nullptr, "", "any", nullptr}}});
  r.add_route({.pattern = "gpt-*", .aliases = {}, .targets = {{nullptr, "", "gpt", nullptr}}});
  r.add_route({.pattern = "gpt-4o*", .aliases = {}, .targets = {{nullptr, "", "gpt4o", nullptr}}});
  r.add_route(
      {.pattern = "gpt-4o-mini", .aliases = {"fast"}, .targets = {{nullptr, "", "mini", nullptr}}});
  EXPECT_EQ((*r.resolve("gpt-4o-mini"))[0].name, "mini");
  EXPECT_EQ((*r.resolve("fast"))[0].name, "mini");
  EXPECT_EQ((*r.resolve("gpt-4o-2024"))[0].name, "gpt4o");
  EXPECT_EQ((*r.resolve("gpt-3.5"))[0].name, "gpt");
  EXPECT_EQ((*r.resolve("claude"))[0].name, "any");
}

TEST(PatternRouter, UnknownModelIsNotFound) {
  PatternRouter r;
  r.add_route({.pattern = "gpt-*", .aliases = {}, .targets = {}});
  auto t = r.resolve("claude-3");
  ASSERT_FALSE(t);
  EXPECT_EQ(t.error().code, ErrorCode::not_found);
}

}  // namespace
}  // namespace toolwire::gateway
