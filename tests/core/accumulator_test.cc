#include "toolwire/ir/accumulator.h"

#include <gtest/gtest.h>

namespace toolwire::ir {
namespace {

TEST(StreamAccumulator, KeepsInterleavedParallelCallsApart) {
  StreamAccumulator acc;
  std::vector<StreamEvent> events = {
      MessageStart{"msg_1", "m", 0},
      TextDelta{"Checking "},
      TextDelta{"both."},
      ToolCallStart{0, "call_a", "get_weather"},
      ToolCallStart{1, "call_b", "get_time"},
      ToolCallDelta{0, "{\"city\":"},
      ToolCallDelta{1, "{\"tz\":"},
      ToolCallDelta{0, "\"Paris\"}"},
      ToolCallDelta{1, "\"CET\"}"},
      ToolCallEnd{0},
      ToolCallEnd{1},
      UsageEvent{Usage{10, std::nullopt, std::nullopt, std::nullopt}},
      UsageEvent{Usage{std::nullopt, 5, std::nullopt, std::nullopt}},
      Finish{{FinishReason::Kind::tool_calls, "tool_calls"}},
  };
  for (auto& e : events) acc.add(e);
  EXPECT_TRUE(acc.finished());
  Response r = std::move(acc).take();
  ASSERT_EQ(r.parts.size(), 3u);
  EXPECT_EQ(std::get<TextPart>(r.parts[0]).text, "Checking both.");
  EXPECT_EQ(std::get<ToolCallPart>(r.parts[1]), (ToolCallPart{"call_a", "get_weather", "{\"city\":\"Paris\"}", true}));
  EXPECT_EQ(std::get<ToolCallPart>(r.parts[2]), (ToolCallPart{"call_b", "get_time", "{\"tz\":\"CET\"}", true}));
  EXPECT_EQ(r.usage.input_tokens, 10);
  EXPECT_EQ(r.usage.output_tokens, 5);
  EXPECT_EQ(r.finish.kind, FinishReason::Kind::tool_calls);
}

TEST(StreamAccumulator, FlagsInvalidArguments) {
  StreamAccumulator acc;
  acc.add(ToolCallStart{0, "c", "f"});
  acc.add(ToolCallDelta{0, "{\"a\": "});
  Response r = std::move(acc).take();
  EXPECT_FALSE(std::get<ToolCallPart>(r.parts[0]).arguments_valid);
  EXPECT_EQ(std::get<ToolCallPart>(r.parts[0]).arguments, "{\"a\": ");
}

}  // namespace
}  // namespace toolwire::ir
