// The glob matcher behind `glob` and grep's `include`.
#include <gtest/gtest.h>

#include "tools/builtin/walk.h"

namespace {

struct Row {
  const char* pattern;
  const char* path;
  bool match;
};

TEST(GlobMatch, Table) {
  const Row rows[] = {
      {"*.cc", "a.cc", true},
      {"*.cc", "src/a.cc", false},
      {"**/*.cc", "a.cc", true},
      {"**/*.cc", "src/x/a.cc", true},
      {"src/**", "src/x/a.cc", true},
      {"src/**", "src", true},
      {"src/**/a.cc", "src/a.cc", true},
      {"src/**/a.cc", "srcx/a.cc", false},
      {"a?c", "abc", true},
      {"a?c", "a/c", false},
      {"[ab]x", "bx", true},
      {"[!ab]x", "bx", false},
      {"[a-c]x", "cx", true},
      {"[a-c]x", "dx", false},
      {"*.{cc,h}", "x.h", true},
      {"*.{cc,h}", "x.hh", false},
      {"**", "any/thing/at/all", true},
      {"*", "a", true},
      {"a*b*c", "aXXbYYc", true},
      {"a*b*c", "aXXbYY", false},
      {"**/**/x", "x", true},
      {"[", "[", true},
      {"{a,b", "{a,b", true},
  };
  for (const auto& r : rows)
    EXPECT_EQ(toolwire::tools::builtin::glob_match(r.pattern, r.path), r.match)
        << r.pattern << " vs " << r.path;
}

TEST(GlobMatch, ManyStarsStayFast) {
  std::string pat;
  for (int i = 0; i < 30; ++i) pat += "**/";
  pat += "*a*a*a*a*a*a*b";
  std::string path;
  for (int i = 0; i < 30; ++i) path += "d/";
  path += std::string(200, 'a');
  auto t0 = std::chrono::steady_clock::now();
  EXPECT_FALSE(toolwire::tools::builtin::glob_match(pat, path));
  EXPECT_LT(std::chrono::steady_clock::now() - t0, std::chrono::seconds(1));
}

}  // namespace
