// glob and grep: patterns, output format, and the two grep engines agreeing.
#include "sandbox_fixture.h"

namespace {

using namespace twtest;
using Engine = toolwire::tools::BuiltinOptions::GrepEngine;

Tools tools_with(const Tree& tree, Engine e) {
  toolwire::tools::BuiltinOptions opt;
  opt.workspace = tree.ws.string();
  opt.grep_engine = e;
  return make_tools(opt);
}

void populate(const Tree& tree) {
  spit(tree.ws / "src/a.cc", "int main() {\n  return 0;\n}\n");
  spit(tree.ws / "src/deep/b.cc", "// TODO: fix\nint b = 1;\n");
  spit(tree.ws / "src/deep/c.h", "#pragma once\n// todo lower\n");
  spit(tree.ws / "docs/readme.md", "TODO write docs\n");
  spit(tree.ws / ".hidden/h.txt", "TODO hidden\n");
  spit(tree.ws / ".git/config", "TODO in git\n");
  spit(tree.ws / "colon:name.txt", "TODO colon\n");
  spit(tree.ws / "bin.dat", std::string("TODO\0binary", 11));
}

TEST(Glob, DoubleStarAndBraces) {
  Tree tree;
  populate(tree);
  auto tools = tools_with(tree, Engine::internal);
  EXPECT_EQ(text(tools.call("glob", {{"pattern", "**/*.cc"}})), "src/a.cc\nsrc/deep/b.cc\n");
  EXPECT_EQ(text(tools.call("glob", {{"pattern", "src/**/*.{cc,h}"}})), "src/a.cc\nsrc/deep/b.cc\nsrc/deep/c.h\n");
  EXPECT_EQ(text(tools.call("glob", {{"pattern", "*.cc"}, {"path", "src/deep"}})), "src/deep/b.cc\n");
  EXPECT_EQ(text(tools.call("glob", {{"pattern", "**/config"}})), "no matches");  // .git skipped
  EXPECT_EQ(text(tools.call("glob", {{"pattern", "s?c"}})), "src/\n");
}

TEST(Grep, InternalFormat) {
  Tree tree;
  populate(tree);
  auto tools = tools_with(tree, Engine::internal);
  auto o = tools.call("grep", {{"pattern", "TODO"}});
  EXPECT_FALSE(o.is_error);
  EXPECT_EQ(text(o),
            ".hidden/h.txt:1:TODO hidden\n"
            "colon:name.txt:1:TODO colon\n"
            "docs/readme.md:1:TODO write docs\n"
            "src/deep/b.cc:1:// TODO: fix\n");
}

TEST(Grep, IncludeIgnoreCaseAndSubdir) {
  Tree tree;
  populate(tree);
  auto tools = tools_with(tree, Engine::internal);
  EXPECT_EQ(text(tools.call("grep", {{"pattern", "todo"}, {"ignore_case", true}, {"include", "*.h"}})),
            "src/deep/c.h:2:// todo lower\n");
  EXPECT_EQ(text(tools.call("grep", {{"pattern", "int"}, {"path", "src/deep"}})), "src/deep/b.cc:2:int b = 1;\n");
  EXPECT_EQ(text(tools.call("grep", {{"pattern", "return"}, {"path", "src/a.cc"}})), "src/a.cc:2:  return 0;\n");
  EXPECT_EQ(text(tools.call("grep", {{"pattern", "nothing here"}})), "no matches");
}

TEST(Grep, InvalidRegexIsAnError) {
  Tree tree;
  auto tools = tools_with(tree, Engine::internal);
  auto o = tools.call("grep", {{"pattern", "(unclosed"}});
  EXPECT_TRUE(o.is_error);
  EXPECT_NE(text(o).find("invalid regex"), std::string::npos) << text(o);
}

TEST(Grep, PatternStartingWithDashIsAPattern) {
  Tree tree;
  spit(tree.ws / "f.txt", "a --files b\n");
  for (Engine e : {Engine::internal, Engine::ripgrep}) {
    toolwire::tools::BuiltinOptions opt;
    opt.workspace = tree.ws.string();
    opt.grep_engine = e;
    if (!toolwire::tools::builtin_tool_specs(opt)) continue;  // no rg here
    auto tools = make_tools(opt);
    EXPECT_EQ(text(tools.call("grep", {{"pattern", "--files"}})), "f.txt:1:a --files b\n");
  }
}

TEST(Grep, RipgrepAndInternalAgree) {
  Tree tree;
  populate(tree);
  std::string long_line(5000, 'x');
  spit(tree.ws / "long.txt", "TODO " + long_line + "\n");
  toolwire::tools::BuiltinOptions opt;
  opt.workspace = tree.ws.string();
  opt.grep_engine = Engine::ripgrep;
  if (!toolwire::tools::builtin_tool_specs(opt)) GTEST_SKIP() << "ripgrep not installed";
  auto rg = tools_with(tree, Engine::ripgrep);
  auto in = tools_with(tree, Engine::internal);
  for (nlohmann::json args : {nlohmann::json{{"pattern", "TODO"}},
                              nlohmann::json{{"pattern", "todo"}, {"ignore_case", true}},
                              nlohmann::json{{"pattern", "^int"}, {"include", "*.cc"}},
                              nlohmann::json{{"pattern", "b = \\d"}, {"path", "src"}},
                              nlohmann::json{{"pattern", "zzz"}}}) {
    SCOPED_TRACE(args.dump());
    std::string a = text(rg.call("grep", args)), b = text(in.call("grep", args));
    EXPECT_EQ(a, b);
    EXPECT_FALSE(a.empty());
  }
}

TEST(Grep, MatchCapTruncates) {
  Tree tree;
  std::string many;
  for (int i = 0; i < 100; ++i) many += "hit\n";
  spit(tree.ws / "many.txt", many);
  for (Engine e : {Engine::internal, Engine::ripgrep}) {
    toolwire::tools::BuiltinOptions opt;
    opt.workspace = tree.ws.string();
    opt.grep_engine = e;
    opt.max_grep_matches = 10;
    if (!toolwire::tools::builtin_tool_specs(opt)) continue;
    auto tools = make_tools(opt);
    std::string t = text(tools.call("grep", {{"pattern", "hit"}, {"path", "."}}));
    EXPECT_NE(t.find("many.txt:10:hit\n[results truncated after 10 matches]"), std::string::npos) << t;
    EXPECT_EQ(t.find("many.txt:11:"), std::string::npos) << t;
  }
}

}  // namespace
