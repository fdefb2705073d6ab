#include <gtest/gtest.h>

#include "toolwire/tools/names.h"

using namespace toolwire::tools;

TEST(ToolNames, WireRule) {
  EXPECT_TRUE(is_wire_name("get_weather"));
  EXPECT_TRUE(is_wire_name("a-b_C9"));
  EXPECT_TRUE(is_wire_name(std::string(64, 'a')));
  EXPECT_FALSE(is_wire_name(std::string(65, 'a')));
  EXPECT_FALSE(is_wire_name(""));
  EXPECT_FALSE(is_wire_name("agent.spawn"));
  EXPECT_FALSE(is_wire_name("has space"));
  EXPECT_FALSE(is_wire_name("ünï"));
}

TEST(ToolNames, CheckInternalName) {
  EXPECT_TRUE(check_tool_name("get_weather").ok());
  EXPECT_TRUE(check_tool_name("agent.spawn").ok());
  EXPECT_TRUE(check_tool_name("a__b").ok());  // no dots: its own wire name
  struct Bad {
    const char* name;
    const char* why;
  };
  for (const Bad& b :
       {Bad{"", "empty"}, Bad{".a", "starts or ends"}, Bad{"a.", "starts or ends"},
        Bad{"a..b", "'..'"}, Bad{"a.b__c", "\"__\""}, Bad{"a._b", "ambiguous"},
        Bad{"a_.b", "ambiguous"}, Bad{"a/b", "only letters"}, Bad{"a b", "only letters"}}) {
    toolwire::Status st = check_tool_name(b.name);
    ASSERT_FALSE(st.ok()) << b.name;
    EXPECT_NE(st.error().message.find(b.why), std::string::npos) << st.error().message;
  }
  EXPECT_FALSE(check_tool_name(std::string(65, 'a')).ok());
  // 40 chars with 30 dots would pass the length rule but not in wire form.
  std::string dotted;
  for (int i = 0; i < 30; ++i) dotted += "a.";
  dotted += "a";
  ASSERT_LE(dotted.size(), 64u);
  EXPECT_FALSE(check_tool_name(dotted).ok());
}

TEST(ToolNames, DottedMappingIsReversible) {
  for (const char* n : {"agent.spawn", "fs.read.lines", "x-y.z_1", "plain", "a-b"}) {
    ASSERT_TRUE(check_tool_name(n).ok()) << n;
    std::string wire = to_wire_name(n);
    EXPECT_TRUE(is_wire_name(wire)) << wire;
    EXPECT_EQ(from_wire_name(wire), n);
  }
  EXPECT_EQ(to_wire_name("agent.spawn"), "agent__spawn");
}
