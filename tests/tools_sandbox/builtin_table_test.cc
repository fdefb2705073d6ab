// The one table of built-in tools: its names, the read-only default set and
// the opt-in tools, and that the specs follow it.
#include <gtest/gtest.h>

#include <filesystem>

#include "toolwire/tools/builtin.h"

namespace toolwire::tools {
namespace {

TEST(BuiltinTable, NamesAndSets) {
  EXPECT_EQ(builtin_tool_names(), (std::vector<std::string>{"read", "write", "edit", "list", "glob",
                                                            "grep", "shell", "fetch"}));
  EXPECT_EQ(read_only_builtin_tools(), (std::set<std::string>{"glob", "grep", "list", "read"}));
  EXPECT_EQ(default_builtin_tools(),
            (std::set<std::string>{"edit", "glob", "grep", "list", "read", "write"}));
  EXPECT_EQ(BuiltinOptions{}.enabled, default_builtin_tools());
  ASSERT_EQ(builtin_tools().size(), builtin_tool_names().size());
  for (const BuiltinToolInfo& t : builtin_tools()) EXPECT_FALSE(t.read_only && t.opt_in) << t.name;
}

TEST(BuiltinTable, ReadOnlySetBuildsThoseToolsInTableOrder) {
  BuiltinOptions b;
  b.workspace = std::filesystem::temp_directory_path().string();
  b.enabled = read_only_builtin_tools();
  auto specs = builtin_tool_specs(b);
  ASSERT_TRUE(specs) << specs.error().to_string();
  std::vector<std::string> names;
  for (const auto& s : *specs) names.push_back(s.name);
  EXPECT_EQ(names, (std::vector<std::string>{"read", "list", "glob", "grep"}));
  b.enabled = {"read", "nope"};
  auto bad = builtin_tool_specs(b);
  ASSERT_FALSE(bad);
  EXPECT_EQ(bad.error().message, "unknown built-in tool 'nope'");
}

}  // namespace
}  // namespace toolwire::tools
