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
  EXPECT_EQ(text(tools.call("glob", {{"pattern", "src/**/*.{cc,h}"}})),
            "src/a.cc\nsrc/deep/b.cc\nsrc/deep/c.h\n");
  EXPECT_EQ(text(tools.call("glob", {{"pattern", "*.cc"}, {"path", "src/deep"}})),
            "src/deep/b.cc\n");
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
  EXPECT_EQ(
      text(tools.call("grep", {{"pattern", "todo"}, {"ignore_case", true}, {"include", "*.h"}})),
      "src/deep/c.h:2:// todo lower\n");
  EXPECT_EQ(text(tools.call("grep", {{"pattern", "int"}, {"path", "src/deep"}})),
            "src/deep/b.cc:2:int b = 1;\n");
  EXPECT_EQ(text(tools.call("grep", {{"pattern", "return"}, {"path", "src/a.cc"}})),
            "src/a.cc:2:  return 0;\n");
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
    EXPECT_EQ(text(tools.call("grep", {{"pattern", "--files"}, {"no_ignore", true}})),
              "f.txt:1:a --files b\n");
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
    args["no_ignore"] = true;  // ripgrep serves no_ignore searches
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
    std::string t = text(tools.call(
        "grep", {{"pattern", "hit"}, {"path", "."}, {"no_ignore", e == Engine::ripgrep}}));
    EXPECT_NE(t.find("many.txt:10:hit\n[results truncated after 10 matches]"), std::string::npos)
        << t;
    EXPECT_EQ(t.find("many.txt:11:"), std::string::npos) << t;
  }
}

// Ignore files, as ripgrep honours them: .gitignore (nested too), .ignore and
// .git/info/exclude; .git skipped; `no_ignore` searches everything.
void populate_ignored(const Tree& tree) {
  spit(tree.ws / ".gitignore", "# build products\nnode_modules/\n*.log\n!keep.log\n/build\n");
  spit(tree.ws / ".ignore", "notes.txt\n");
  spit(tree.ws / ".git/info/exclude", "local.txt\n");
  spit(tree.ws / ".git/config", "TODO in git\n");
  spit(tree.ws / "tests/npm/node_modules/pkg/index.js", "TODO in node_modules\n");
  spit(tree.ws / "tests/npm/run.js", "TODO run\n");
  spit(tree.ws / "app.log", "TODO log\n");
  spit(tree.ws / "keep.log", "TODO keep\n");
  spit(tree.ws / "build/out.txt", "TODO build\n");
  spit(tree.ws / "src/build/x.txt", "TODO src build\n");  // "/build" is anchored to the root
  spit(tree.ws / "src/.gitignore", "gen/\n");
  spit(tree.ws / "src/gen/g.cc", "TODO generated\n");
  spit(tree.ws / "src/a.log", "TODO nested log\n");
  spit(tree.ws / "src/main.cc", "TODO main\n");
  spit(tree.ws / "notes.txt", "TODO notes\n");
  spit(tree.ws / "local.txt", "TODO local\n");
}

TEST(Ignore, GrepSkipsIgnoredPathsByDefault) {
  Tree tree;
  populate_ignored(tree);
  for (Engine e : {Engine::internal, Engine::automatic}) {
    auto tools = tools_with(tree, e);
    EXPECT_EQ(text(tools.call("grep", {{"pattern", "TODO"}})),
              "keep.log:1:TODO keep\n"
              "src/build/x.txt:1:TODO src build\n"
              "src/main.cc:1:TODO main\n"
              "tests/npm/run.js:1:TODO run\n");
    // A subdirectory obeys the files above it (the root's *.log) and its own.
    EXPECT_EQ(text(tools.call("grep", {{"pattern", "TODO"}, {"path", "src"}})),
              "src/build/x.txt:1:TODO src build\nsrc/main.cc:1:TODO main\n");
    // A directory named in `path` is searched even when it is ignored.
    EXPECT_EQ(text(tools.call("grep", {{"pattern", "TODO"}, {"path", "tests/npm/node_modules"}})),
              "tests/npm/node_modules/pkg/index.js:1:TODO in node_modules\n");
    EXPECT_EQ(text(tools.call("grep", {{"pattern", "TODO"}, {"path", "app.log"}})),
              "app.log:1:TODO log\n");
  }
}

TEST(Ignore, NoIgnoreSearchesEverythingButGit) {
  Tree tree;
  populate_ignored(tree);
  const std::string all =
      "app.log:1:TODO log\n"
      "build/out.txt:1:TODO build\n"
      "keep.log:1:TODO keep\n"
      "local.txt:1:TODO local\n"
      "notes.txt:1:TODO notes\n"
      "src/a.log:1:TODO nested log\n"
      "src/build/x.txt:1:TODO src build\n"
      "src/gen/g.cc:1:TODO generated\n"
      "src/main.cc:1:TODO main\n"
      "tests/npm/node_modules/pkg/index.js:1:TODO in node_modules\n"
      "tests/npm/run.js:1:TODO run\n";
  for (Engine e : {Engine::internal, Engine::ripgrep}) {
    toolwire::tools::BuiltinOptions opt;
    opt.workspace = tree.ws.string();
    opt.grep_engine = e;
    if (!toolwire::tools::builtin_tool_specs(opt)) continue;  // no rg here
    auto tools = make_tools(opt);
    EXPECT_EQ(text(tools.call("grep", {{"pattern", "TODO"}, {"no_ignore", true}})), all);
  }
}

TEST(Ignore, GlobSkipsIgnoredPathsListShowsThem) {
  Tree tree;
  populate_ignored(tree);
  auto tools = tools_with(tree, Engine::internal);
  EXPECT_EQ(text(tools.call("glob", {{"pattern", "**/*.js"}})), "tests/npm/run.js\n");
  EXPECT_EQ(text(tools.call("glob", {{"pattern", "**/*.js"}, {"no_ignore", true}})),
            "tests/npm/node_modules/pkg/index.js\ntests/npm/run.js\n");
  EXPECT_EQ(text(tools.call("glob", {{"pattern", "*"}})),
            ".gitignore\n.ignore\nhello.txt\nkeep.log\nsrc/\nsub/\ntests/\n");
  EXPECT_EQ(text(tools.call("glob", {{"pattern", "*"}, {"path", "src"}})),
            "src/.gitignore\nsrc/build/\nsrc/main.cc\n");
  EXPECT_EQ(text(tools.call("glob", {{"pattern", "**/*.cc"}, {"path", "src/gen"}})),
            "src/gen/g.cc\n");
  // list is one directory as it is, like ls.
  EXPECT_EQ(text(tools.call("list", {{"path", "tests/npm"}})), "node_modules/\nrun.js\n");
}

// Nested files: a deeper file re-includes what a shallower one ignores, and
// .ignore wins over .gitignore in the same directory.
TEST(Ignore, DeeperFilesAndDotIgnoreWin) {
  Tree tree;
  spit(tree.ws / ".gitignore", "*.gen\n");
  spit(tree.ws / "a/.gitignore", "!keep.gen\n");
  spit(tree.ws / "a/keep.gen", "hit\n");
  spit(tree.ws / "a/drop.gen", "hit\n");
  spit(tree.ws / "keep.gen", "hit\n");
  spit(tree.ws / "b/.gitignore", "!x.txt\n");
  spit(tree.ws / "b/.ignore", "x.txt\n");
  spit(tree.ws / "b/x.txt", "hit\n");
  spit(tree.ws / "b/y.txt", "hit\n");
  auto tools = tools_with(tree, Engine::internal);
  EXPECT_EQ(text(tools.call("grep", {{"pattern", "hit"}})), "a/keep.gen:1:hit\nb/y.txt:1:hit\n");
}

// An ignore file that is a symlink (here to a file outside the workspace) is
// not read: the sandbox's rules hold for the files that steer the walk too.
TEST(Ignore, SymlinkedIgnoreFileIsNotFollowed) {
  Tree tree;
  spit(tree.outside / "rules", "*.txt\n");
  fs::create_symlink(tree.outside / "rules", tree.ws / ".gitignore");
  auto tools = tools_with(tree, Engine::internal);
  EXPECT_EQ(text(tools.call("grep", {{"pattern", "INSIDE"}})), "sub/inner.txt:1:INSIDE\n");
}

}  // namespace
