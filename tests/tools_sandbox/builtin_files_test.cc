// read / write / edit / list behaviour (the non-attack half).
#include "sandbox_fixture.h"

namespace {

using namespace twtest;

struct FilesTest : ::testing::Test {
  Tree tree;
  Tools tools;
  void SetUp() override {
    toolwire::tools::BuiltinOptions opt;
    opt.workspace = tree.ws.string();
    opt.max_output_bytes = 4096;
    tools = make_tools(opt);
  }
};

TEST_F(FilesTest, ShellAndFetchAreOffByDefault) {
  EXPECT_EQ(tools.by_name.count("shell"), 0u);
  EXPECT_EQ(tools.by_name.count("fetch"), 0u);
  EXPECT_EQ(tools.by_name.size(), 6u);
}

TEST_F(FilesTest, UnknownEnabledNameIsAnError) {
  toolwire::tools::BuiltinOptions opt;
  opt.workspace = tree.ws.string();
  opt.enabled = {"read", "rm"};
  auto specs = toolwire::tools::builtin_tool_specs(opt);
  ASSERT_FALSE(specs.ok());
  EXPECT_NE(specs.error().message.find("'rm'"), std::string::npos);
}

TEST_F(FilesTest, MissingWorkspaceIsAnError) {
  toolwire::tools::BuiltinOptions opt;
  opt.workspace = (tree.base / "nope").string();
  EXPECT_FALSE(toolwire::tools::builtin_tool_specs(opt).ok());
}

TEST_F(FilesTest, ReadNumbersLines) {
  auto o = tools.call("read", {{"path", "hello.txt"}});
  EXPECT_FALSE(o.is_error);
  EXPECT_EQ(text(o), "     1\tline one\n     2\tline two\n     3\tline three\n");
}

TEST_F(FilesTest, ReadLineRange) {
  auto o = tools.call("read", {{"path", "hello.txt"}, {"offset", 2}, {"limit", 1}});
  EXPECT_EQ(text(o), "     2\tline two\n[showing lines 2-2 of 3; continue with offset=3]\n");
}

TEST_F(FilesTest, ReadOffsetPastEnd) {
  auto o = tools.call("read", {{"path", "hello.txt"}, {"offset", 9}});
  EXPECT_TRUE(o.is_error);
  EXPECT_NE(text(o).find("past the end"), std::string::npos) << text(o);
  EXPECT_NE(text(o).find("$.offset"), std::string::npos) << text(o);
}

TEST_F(FilesTest, ReadBinaryIsRefused) {
  spit(tree.ws / "bin.dat", std::string("\x7f"
                                        "ELF\0\0\1",
                                        7));
  auto o = tools.call("read", {{"path", "bin.dat"}});
  EXPECT_TRUE(o.is_error);
  EXPECT_NE(text(o).find("binary file (7 bytes)"), std::string::npos) << text(o);
  spit(tree.ws / "latin1.txt", "caf\xe9\n");
  EXPECT_NE(text(tools.call("read", {{"path", "latin1.txt"}})).find("binary"), std::string::npos);
}

TEST_F(FilesTest, ReadOutputIsCapped) {
  std::string big;
  for (int i = 0; i < 1000; ++i) big += "this is line " + std::to_string(i) + "\n";
  spit(tree.ws / "big.txt", big);
  auto o = tools.call("read", {{"path", "big.txt"}});
  std::string t = text(o);
  EXPECT_LE(t.size(), 4096u + 100u);
  EXPECT_NE(t.find("continue with offset="), std::string::npos);
}

TEST_F(FilesTest, ReadEmptyFile) {
  spit(tree.ws / "empty", "");
  EXPECT_EQ(text(tools.call("read", {{"path", "empty"}})), "(empty file)");
}

TEST_F(FilesTest, ReadMissingArgumentNamesJsonPath) {
  auto o = tools.call("read", nlohmann::json::object());
  EXPECT_TRUE(o.is_error);
  EXPECT_EQ(text(o), "$.path: required property missing");
}

TEST_F(FilesTest, WriteCreatesParentsAndOverwrites) {
  auto o = tools.call("write", {{"path", "new/dir/f.txt"}, {"content", "abc"}});
  EXPECT_FALSE(o.is_error) << text(o);
  EXPECT_EQ(slurp(tree.ws / "new/dir/f.txt"), "abc");
  o = tools.call("write", {{"path", "new/dir/f.txt"}, {"content", "x"}});
  EXPECT_FALSE(o.is_error) << text(o);
  EXPECT_EQ(slurp(tree.ws / "new/dir/f.txt"), "x");
}

TEST_F(FilesTest, WriteThroughInsideSymlinkWritesTarget) {
  ASSERT_EQ(symlink("sub/inner.txt", (tree.ws / "good").c_str()), 0);
  auto o = tools.call("write", {{"path", "good"}, {"content", "changed\n"}});
  EXPECT_FALSE(o.is_error) << text(o);
  EXPECT_EQ(slurp(tree.ws / "sub/inner.txt"), "changed\n");
}

TEST_F(FilesTest, EditExactlyOnce) {
  auto o = tools.call(
      "edit", {{"path", "hello.txt"}, {"old_string", "line two"}, {"new_string", "LINE 2"}});
  EXPECT_FALSE(o.is_error) << text(o);
  EXPECT_EQ(slurp(tree.ws / "hello.txt"), "line one\nLINE 2\nline three\n");
}

TEST_F(FilesTest, EditZeroMatches) {
  auto o =
      tools.call("edit", {{"path", "hello.txt"}, {"old_string", "line  two"}, {"new_string", "x"}});
  EXPECT_TRUE(o.is_error);
  EXPECT_NE(text(o).find("(0 matches)"), std::string::npos) << text(o);
  EXPECT_EQ(slurp(tree.ws / "hello.txt"), "line one\nline two\nline three\n");
}

TEST_F(FilesTest, EditSeveralMatches) {
  auto o =
      tools.call("edit", {{"path", "hello.txt"}, {"old_string", "line"}, {"new_string", "row"}});
  EXPECT_TRUE(o.is_error);
  EXPECT_NE(text(o).find("matches 3 times"), std::string::npos) << text(o);
  o = tools.call("edit", {{"path", "hello.txt"},
                          {"old_string", "line"},
                          {"new_string", "row"},
                          {"replace_all", true}});
  EXPECT_FALSE(o.is_error) << text(o);
  EXPECT_EQ(slurp(tree.ws / "hello.txt"), "row one\nrow two\nrow three\n");
}

TEST_F(FilesTest, EditRefusesEmptyAndIdentical) {
  EXPECT_TRUE(tools.call("edit", {{"path", "hello.txt"}, {"old_string", ""}, {"new_string", "x"}})
                  .is_error);
  EXPECT_TRUE(
      tools.call("edit", {{"path", "hello.txt"}, {"old_string", "one"}, {"new_string", "one"}})
          .is_error);
}

TEST_F(FilesTest, ListOneLevelSorted) {
  ASSERT_EQ(symlink("sub", (tree.ws / "lnk").c_str()), 0);
  auto o = tools.call("list", nlohmann::json::object());
  EXPECT_EQ(text(o), "hello.txt\nlnk@\nsub/\n");
  EXPECT_EQ(text(tools.call("list", {{"path", "sub"}})), "inner.txt\n");
  EXPECT_TRUE(tools.call("list", {{"path", "hello.txt"}}).is_error);
}

}  // namespace
