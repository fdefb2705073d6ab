// The gitignore matcher behind grep's and glob's ignore files (ignore.h):
// each row is one file's text, a path and the verdict git would give.
#include <gtest/gtest.h>

#include "tools/builtin/ignore.h"

namespace {

using toolwire::tools::builtin::IgnoreRules;
using V = IgnoreRules::Verdict;

struct Row {
  const char* rules;
  const char* path;
  bool is_dir;
  V verdict;
};

TEST(IgnoreRules, Table) {
  const Row rows[] = {
      // Plain names match at any depth, files and directories.
      {"node_modules", "node_modules", true, V::ignore},
      {"node_modules", "tests/npm/node_modules", true, V::ignore},
      {"node_modules", "node_modules_x", true, V::none},
      {"*.o", "a.o", false, V::ignore},
      {"*.o", "src/deep/a.o", false, V::ignore},
      {"*.o", ".hidden.o", false, V::ignore},  // '*' matches a leading dot
      {"*.o", "a.oo", false, V::none},
      {"a?c", "abc", false, V::ignore},
      {"a?c", "a/c", false, V::none},
      {"[ab]x", "bx", false, V::ignore},
      {"[!ab]x", "bx", false, V::none},
      {"[^ab]x", "cx", false, V::ignore},
      {"[a-c]x", "cx", false, V::ignore},
      {"[a-c]x", "dx", false, V::none},
      {"[]]x", "]x", false, V::ignore},
      {"[x", "[x", false, V::ignore},  // an unclosed class is a literal '['
      {"{a,b}", "a", false, V::none},  // no braces in gitignore
      {"{a,b}", "{a,b}", false, V::ignore},
      // A leading or inner '/' anchors to the file's directory.
      {"/build", "build", true, V::ignore},
      {"/build", "src/build", true, V::none},
      {"doc/*.txt", "doc/a.txt", false, V::ignore},
      {"doc/*.txt", "x/doc/a.txt", false, V::none},
      {"doc/*.txt", "doc/sub/a.txt", false, V::none},  // '*' stays in one component
      // A trailing '/' matches directories only.
      {"out/", "out", true, V::ignore},
      {"out/", "out", false, V::none},
      {"out/", "a/out", true, V::ignore},
      // '**'.
      {"**/foo", "foo", false, V::ignore},
      {"**/foo", "a/b/foo", false, V::ignore},
      {"**/foo/bar", "x/foo/bar", false, V::ignore},
      {"a/**/b", "a/b", false, V::ignore},
      {"a/**/b", "a/x/y/b", false, V::ignore},
      {"a/**/b", "ab", false, V::none},
      {"abc/**", "abc/x", false, V::ignore},
      {"abc/**", "abc/x/y", false, V::ignore},
      {"abc/**", "abc", true, V::none},  // what is inside, not abc itself
      {"a**b", "axxb", false, V::ignore},
      // Negation: the last matching line decides.
      {"*.log\n!keep.log", "keep.log", false, V::include},
      {"*.log\n!keep.log", "other.log", false, V::ignore},
      {"!keep.log\n*.log", "keep.log", false, V::ignore},
      {"abc/**\n!abc/keep", "abc/keep", false, V::include},
      // Comments, blanks, escapes, trailing spaces, CRLF.
      {"# build\n\n", "# build", false, V::none},
      {"\\#notes", "#notes", false, V::ignore},
      {"\\!important", "!important", false, V::ignore},
      {"trail   ", "trail", false, V::ignore},
      {"sp\\ ", "sp ", false, V::ignore},
      {"crlf\r\n", "crlf", false, V::ignore},
      {"a\\*b", "a*b", false, V::ignore},
      {"a\\*b", "axb", false, V::none},
      {"/", "anything", false, V::none},
  };
  for (const Row& r : rows) {
    IgnoreRules rules = IgnoreRules::parse(r.rules, "");
    EXPECT_EQ(rules.match(r.path, r.is_dir), r.verdict)
        << "rules '" << r.rules << "' path '" << r.path << "' dir " << r.is_dir;
  }
}

// A nested file's patterns are relative to its directory.
TEST(IgnoreRules, NestedFileIsRelativeToItsDirectory) {
  IgnoreRules rules = IgnoreRules::parse("/gen\nnode_modules/\n*.tmp\n", "tests/npm");
  EXPECT_EQ(rules.match("tests/npm/gen", true), V::ignore);
  EXPECT_EQ(rules.match("tests/npm/x/gen", true), V::none);
  EXPECT_EQ(rules.match("gen", true), V::none);
  EXPECT_EQ(rules.match("tests/npm/node_modules", true), V::ignore);
  EXPECT_EQ(rules.match("node_modules", true), V::none);  // outside the file's directory
  EXPECT_EQ(rules.match("tests/npm/a/b.tmp", false), V::ignore);
  EXPECT_EQ(rules.match("tests/npmx/b.tmp", false), V::none);
  EXPECT_EQ(rules.match("tests/npm", true), V::none);
}

// Many '**' against a deep path stay cheap (memoised, not exponential).
TEST(IgnoreRules, ManyDoubleStarsAreCheap) {
  std::string path;
  for (int i = 0; i < 60; ++i) path += "d/";
  path += "z";
  IgnoreRules rules = IgnoreRules::parse("**/d/**/d/**/d/**/d/**/d/**/d/**/q", "");
  EXPECT_EQ(rules.match(path, false), V::none);
}

}  // namespace
