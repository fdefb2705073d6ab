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
  EXPECT_EQ(std::get<ToolCallPart>(r.parts[1]),
            (ToolCallPart{"call_a", "get_weather", "{\"city\":\"Paris\"}", true}));
  EXPECT_EQ(std::get<ToolCallPart>(r.parts[2]),
            (ToolCallPart{"call_b", "get_time", "{\"tz\":\"CET\"}", true}));
  EXPECT_EQ(r.usage.input_tokens, 10);
  EXPECT_EQ(r.usage.output_tokens, 5);
  EXPECT_EQ(r.finish.kind, FinishReason::Kind::tool_calls);
}

// An estimate stays marked as one when later usage events fill other fields.
TEST(StreamAccumulator, KeepsTheEstimatedMark) {
  StreamAccumulator acc;
  Usage estimate{10, 4, std::nullopt, std::nullopt};
  estimate.estimated = true;
  for (StreamEvent e :
       std::vector<StreamEvent>{MessageStart{"m", "m", 0}, UsageEvent{estimate},
                                UsageEvent{Usage{std::nullopt, 5, std::nullopt, std::nullopt}},
                                Finish{{FinishReason::Kind::stop, "stop"}}})
    acc.add(e);
  Response r = std::move(acc).take();
  EXPECT_TRUE(r.usage.estimated);
  EXPECT_EQ(r.usage.output_tokens, 5);

  StreamAccumulator exact;
  exact.add(UsageEvent{Usage{10, 4, std::nullopt, std::nullopt}});
  EXPECT_FALSE(std::move(exact).take().usage.estimated);
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
