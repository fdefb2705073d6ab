// ConverseStream: fixtures framed by the AWS SDK's own codec, any chunking
// (every byte split), the encoder's frames, round trips and bad input.
#include <gtest/gtest.h>

#include <random>

#include "test_util.h"
#include "toolwire/dialects/framing/eventstream.h"

namespace toolwire::dialects::bedrock_test {
namespace {

using ir::StreamEvent;
using nlohmann::json;
using Kind = ir::FinishReason::Kind;

std::vector<StreamEvent> expected_tool_use() {
  return {ir::MessageStart{},
          ir::TextDelta{"I'll look up the"},
          ir::TextDelta{" top song on WZPZ."},
          ir::ToolCallStart{0, "tooluse_kZJMlvQmRJ6eAyJE5GIl7Q", "top_song"},
          ir::ToolCallDelta{0, "{\"sign\": \"W"},
          ir::ToolCallDelta{0, "ZPZ\"}"},
          ir::ToolCallEnd{0},
          usage(375, 57),
          ir::Finish{{Kind::tool_calls, "tool_use"}}};
}

std::vector<StreamEvent> expected_exception() {
  return {
      ir::MessageStart{}, ir::TextDelta{"The most popular"},
      ir::ErrorEvent{"throttlingException", "Too many requests, please wait before trying again."}};
}

struct Fixture {
  const char* file;
  std::vector<StreamEvent> (*expected)();
};

class StreamFixture : public ::testing::TestWithParam<Fixture> {};

TEST_P(StreamFixture, DecodesToExactEvents) {
  auto events = testing::decode_stream_events(codec(), read_fixture(GetParam().file));
  EXPECT_EQ(events, GetParam().expected()) << describe(events);
}

TEST_P(StreamFixture, SameEventsAtEverySplitPoint) {
  const std::string bytes = read_fixture(GetParam().file);
  const auto expected = GetParam().expected();
  for (size_t i = 0; i <= bytes.size(); ++i)
    ASSERT_EQ(testing::decode_stream_events(codec(), bytes, {i}), expected) << "split at " << i;
  std::vector<size_t> every;
  for (size_t i = 1; i < bytes.size(); ++i) every.push_back(i);
  EXPECT_EQ(testing::decode_stream_events(codec(), bytes, every), expected);
  std::mt19937 rng(7);
  for (int round = 0; round < 50; ++round) {
    std::vector<size_t> cuts;
    for (size_t i = 1; i < bytes.size(); ++i)
      if (rng() % 23 == 0) cuts.push_back(i);
    ASSERT_EQ(testing::decode_stream_events(codec(), bytes, cuts), expected) << "round " << round;
  }
}

TEST_P(StreamFixture, EncoderRoundTripGivesTheSameEvents) {
  const auto expected = GetParam().expected();
  Warnings w;
  std::string bytes = testing::encode_stream(codec(), expected, &w);
  EXPECT_TRUE(w.empty()) << warnings_text(w);
  EXPECT_EQ(testing::decode_stream_events(codec(), bytes), expected);
}

INSTANTIATE_TEST_SUITE_P(Fixtures, StreamFixture,
                         ::testing::Values(Fixture{"bedrock-converse-stream-tool-use.eventstream",
                                                   &expected_tool_use},
                                           Fixture{"bedrock-converse-stream-exception.eventstream",
                                                   &expected_exception}));

std::vector<EventStreamMessage> frames(const std::string& bytes) {
  EventStreamParser parser;
  std::vector<EventStreamMessage> out;
  Status st = parser.feed(bytes, out);
  EXPECT_TRUE(st.ok()) << st.error().to_string();
  EXPECT_FALSE(parser.has_partial_message());
  return out;
}

TEST(BedrockStream, EncoderWritesTheApisEventsAndHeaders) {
  std::string bytes = testing::encode_stream(codec(), expected_tool_use());
  auto msgs = frames(bytes);
  std::vector<std::string> types;
  for (const auto& m : msgs) {
    types.emplace_back(m.header(":event-type"));
    EXPECT_EQ(m.header(":message-type"), "event");
    EXPECT_EQ(m.header(":content-type"), "application/json");
  }
  EXPECT_EQ(types, (std::vector<std::string>{
                       "messageStart", "contentBlockDelta", "contentBlockDelta", "contentBlockStop",
                       "contentBlockStart", "contentBlockDelta", "contentBlockDelta",
                       "contentBlockStop", "messageStop", "metadata"}));
  EXPECT_EQ(json::parse(msgs[0].payload), json::parse(R"({"role":"assistant"})"));
  EXPECT_EQ(json::parse(msgs[1].payload),
            json::parse(R"({"contentBlockIndex":0,"delta":{"text":"I'll look up the"}})"));
  EXPECT_EQ(
      json::parse(msgs[4].payload),
      json::parse(
          R"({"contentBlockIndex":1,"start":{"toolUse":{"toolUseId":"tooluse_kZJMlvQmRJ6eAyJE5GIl7Q","name":"top_song"}}})"));
  EXPECT_EQ(
      json::parse(msgs[5].payload),
      json::parse(R"({"contentBlockIndex":1,"delta":{"toolUse":{"input":"{\"sign\": \"W"}}})"));
  EXPECT_EQ(json::parse(msgs[8].payload), json::parse(R"({"stopReason":"tool_use"})"));
  EXPECT_EQ(
      json::parse(msgs[9].payload),
      json::parse(
          R"({"usage":{"inputTokens":375,"outputTokens":57,"totalTokens":432},"metrics":{"latencyMs":0}})"));
}

TEST(BedrockStream, ReasoningAndInterleavedCallsRoundTrip) {
  std::vector<StreamEvent> events = {
      ir::MessageStart{},
      ir::ThinkingDelta{"Let me", {}, false},
      ir::ThinkingDelta{" think.", {}, false},
      ir::ThinkingDelta{{}, "sig==", false},
      ir::TextDelta{"Two calls."},
      ir::ToolCallStart{0, "call.1:x", "a"},
      ir::ToolCallStart{1, "call_b", "b"},
      ir::ToolCallDelta{1, "{\"y\":"},
      ir::ToolCallDelta{0, "{\"x\":"},
      ir::ToolCallDelta{0, "1}"},
      ir::ToolCallEnd{0},
      ir::ToolCallDelta{1, "2}"},  // after call 0 ended: still its own block
      ir::ToolCallEnd{1},
      usage(10, 5),
      ir::Finish{{Kind::tool_calls, ""}}};
  Warnings w;
  std::string bytes = testing::encode_stream(codec(), events, &w);
  auto back = testing::decode_stream_events(codec(), bytes);
  std::vector<StreamEvent> expected = events;
  expected.back() = ir::Finish{{Kind::tool_calls, "tool_use"}};
  EXPECT_EQ(back, expected) << describe(back);
  // A redacted block.
  std::vector<StreamEvent> redacted = {ir::MessageStart{}, ir::ThinkingDelta{"ZGF0YQ==", {}, true},
                                       ir::Finish{{Kind::stop, "end_turn"}}};
  // The metadata event always carries usage (the API requires it): zeros here.
  redacted.insert(redacted.end() - 1, usage(0, 0));
  EXPECT_EQ(testing::decode_stream_events(codec(), testing::encode_stream(codec(), redacted)),
            redacted);
}

TEST(BedrockStream, AnotherDialectsErrorTypeSurvivesBehindABedrockException) {
  std::vector<StreamEvent> events = {ir::MessageStart{}, ir::TextDelta{"hi"},
                                     ir::ErrorEvent{"overloaded_error", "Overloaded"}};
  std::string bytes = testing::encode_stream(codec(), events);
  auto msgs = frames(bytes);
  ASSERT_EQ(msgs.size(), 3u);
  EXPECT_EQ(msgs[2].header(":message-type"), "exception");
  EXPECT_EQ(msgs[2].header(":exception-type"), "serviceUnavailableException");
  EXPECT_EQ(json::parse(msgs[2].payload)["message"], "Overloaded");
  EXPECT_EQ(testing::decode_stream_events(codec(), bytes), events);
  // A Bedrock type is written as is, nothing added.
  std::string own =
      testing::encode_stream(codec(), {ir::ErrorEvent{"throttlingException", "slow"}});
  EXPECT_EQ(json::parse(frames(own)[0].payload), json::parse(R"({"message":"slow"})"));
}

TEST(BedrockStream, FinishWaitsForMetadataOrTheEndOfInput) {
  std::string bytes;
  auto event = [&](const char* type, const char* payload) {
    append_event_stream_message(
        bytes,
        {{":event-type", type}, {":content-type", "application/json"}, {":message-type", "event"}},
        payload);
  };
  event("messageStart", R"({"role":"assistant"})");
  event("contentBlockDelta", R"({"contentBlockIndex":0,"delta":{"text":"hi"},"p":"abcdef"})");
  event("contentBlockStop", R"({"contentBlockIndex":0})");
  event("messageStop", R"({"stopReason":"max_tokens"})");
  // No metadata: the finish comes at the end of the input.
  auto codec_decoder = codec().make_stream_decoder();
  std::vector<StreamEvent> out;
  ASSERT_TRUE(codec_decoder->feed(bytes, out).ok());
  EXPECT_EQ(out.size(), 2u) << describe(out);  // start and text; finish held back
  ASSERT_TRUE(codec_decoder->finish(out).ok());
  EXPECT_EQ(out.back(), StreamEvent(ir::Finish{{Kind::length, "max_tokens"}}));
}

TEST(BedrockStream, TruncatedAndCorruptStreamsFail) {
  const std::string bytes = read_fixture("bedrock-converse-stream-tool-use.eventstream");
  // Cut anywhere before messageStop: finish fails.
  const size_t stop_at = bytes.size() - 150;
  for (size_t cut : {size_t{0}, size_t{5}, size_t{40}, stop_at}) {
    Status st;
    testing::decode_stream_events(codec(), bytes.substr(0, cut), {}, &st);
    EXPECT_FALSE(st.ok()) << "cut at " << cut;
  }
  // A flipped payload byte: the message CRC catches it.
  std::string bad = bytes;
  bad[bad.size() - 20] ^= 0x20;
  Status st;
  testing::decode_stream_events(codec(), bad, {}, &st);
  ASSERT_FALSE(st.ok());
  EXPECT_NE(st.error().message.find("CRC"), std::string::npos) << st.error().to_string();
}

TEST(BedrockStream, BadEventsNameTheirPath) {
  auto fail = [](const char* type, const char* payload) {
    std::string bytes;
    append_event_stream_message(
        bytes, {{":event-type", "messageStart"}, {":message-type", "event"}}, "{}");
    append_event_stream_message(bytes, {{":event-type", type}, {":message-type", "event"}},
                                payload);
    Status st;
    testing::decode_stream_events(codec(), bytes, {}, &st);
    EXPECT_FALSE(st.ok()) << type << " " << payload;
    return st ? std::string() : st.error().to_string();
  };
  EXPECT_NE(fail("contentBlockDelta", R"({"delta":{"text":"x"}})").find("contentBlockIndex"),
            std::string::npos);
  EXPECT_NE(
      fail("contentBlockDelta", R"({"contentBlockIndex":3,"delta":{"toolUse":{"input":"x"}}})")
          .find("no contentBlockStart"),
      std::string::npos);
  EXPECT_NE(fail("contentBlockStart", R"({"contentBlockIndex":0,"start":{"toolUse":{"name":"f"}}})")
                .find("toolUseId"),
            std::string::npos);
  EXPECT_NE(fail("contentBlockDelta", R"({"contentBlockIndex":0,"delta":{"text":1}})")
                .find("$.delta.text"),
            std::string::npos);
  EXPECT_NE(fail("messageStop", "{not json").find("messageStop"), std::string::npos);
  EXPECT_NE(fail("messageStart", R"({"role":"user"})").find("$.role"), std::string::npos);
  // A text delta into a tool block.
  std::string bytes;
  auto ev = [&](const char* type, const char* payload) {
    append_event_stream_message(bytes, {{":event-type", type}, {":message-type", "event"}},
                                payload);
  };
  ev("contentBlockStart",
     R"({"contentBlockIndex":0,"start":{"toolUse":{"toolUseId":"a","name":"f"}}})");
  ev("contentBlockDelta", R"({"contentBlockIndex":0,"delta":{"text":"x"}})");
  Status st;
  testing::decode_stream_events(codec(), bytes, {}, &st);
  ASSERT_FALSE(st.ok());
  EXPECT_NE(st.error().to_string().find("does not fit"), std::string::npos);
  // An unknown message type.
  bytes.clear();
  append_event_stream_message(bytes, {{":message-type", "gossip"}}, "{}");
  testing::decode_stream_events(codec(), bytes, {}, &st);
  EXPECT_FALSE(st.ok());
}

// The decoder reads the usual contentBlockDelta layout without a DOM; the
// same events spaced out (another layout) take the full path: both must give
// the same events, and the same errors.
TEST(BedrockStream, FastPathAndFullPathAgree) {
  const char* const deltas[] = {
      R"({"contentBlockIndex":0,"delta":{"text":"plain text"}})",
      R"({"contentBlockIndex":0,"delta":{"text":"padded"},"p":"abcdefghij"})",
      R"({"contentBlockIndex":0,"delta":{"text":"esc\"aped"}})",
      R"({"contentBlockIndex":0,"delta":{"text":"ünïcödé 🙂"}})",
      R"({"contentBlockIndex":0,"delta":{"text":""}})",
      R"({"contentBlockIndex":1,"delta":{"toolUse":{"input":"{\"a\":"}}})",
      R"({"contentBlockIndex":1,"delta":{"toolUse":{"input":"1}"}},"p":"xy"})",
      R"({"contentBlockIndex":2,"delta":{"reasoningContent":{"text":"hmm"}}})",
      R"({"contentBlockIndex":2,"delta":{"reasoningContent":{"text":"more"}},"p":"q"})",
      R"({"contentBlockIndex":1,"delta":{"text":"wrong block"}})",  // an error on both paths
  };
  auto run = [&](bool spaced) {
    std::string bytes;
    auto ev = [&](const char* type, std::string payload) {
      if (spaced) {
        std::string s;
        for (char c : payload) {
          s.push_back(c);
          if (c == ',') s.push_back(' ');
        }
        payload = " " + s;
      }
      append_event_stream_message(bytes, {{":event-type", type}, {":message-type", "event"}},
                                  payload);
    };
    ev("messageStart", R"({"role":"assistant"})");
    ev("contentBlockDelta", R"({"contentBlockIndex":0,"delta":{"text":"start"}})");
    ev("contentBlockStart",
       R"({"contentBlockIndex":1,"start":{"toolUse":{"toolUseId":"t1","name":"f"}}})");
    ev("contentBlockDelta", R"({"contentBlockIndex":2,"delta":{"reasoningContent":{"text":"r"}}})");
    for (const char* d : deltas) ev("contentBlockDelta", d);
    Status st;
    auto events = testing::decode_stream_events(codec(), bytes, {}, &st);
    return std::make_pair(events, st ? std::string() : st.error().message);
  };
  auto fast = run(false);
  auto full = run(true);
  EXPECT_EQ(fast.first, full.first) << describe(fast.first) << "\n" << describe(full.first);
  EXPECT_NE(fast.second.find("does not fit"), std::string::npos) << fast.second;
  EXPECT_EQ(fast.second, full.second);
  EXPECT_EQ(fast.first.size(), 12u) << describe(fast.first);
}

TEST(BedrockStream, EventsAfterTheEndAndUnknownEventsAreIgnored) {
  std::string bytes = read_fixture("bedrock-converse-stream-tool-use.eventstream");
  append_event_stream_message(bytes,
                              {{":event-type", "contentBlockDelta"}, {":message-type", "event"}},
                              R"({"contentBlockIndex":0,"delta":{"text":"late"}})");
  EXPECT_EQ(testing::decode_stream_events(codec(), bytes), expected_tool_use());
  std::string mid;
  append_event_stream_message(mid, {{":event-type", "messageStart"}, {":message-type", "event"}},
                              R"({"role":"assistant"})");
  append_event_stream_message(mid, {{":event-type", "somethingNew"}, {":message-type", "event"}},
                              R"({"x":1})");
  append_event_stream_message(mid, {{":event-type", "messageStop"}, {":message-type", "event"}},
                              R"({"stopReason":"end_turn"})");
  EXPECT_EQ(testing::decode_stream_events(codec(), mid),
            (std::vector<StreamEvent>{ir::MessageStart{}, ir::Finish{{Kind::stop, "end_turn"}}}));
}

// messageStop.additionalModelResponseFields, the metadata's metrics and
// trace, a citation delta and a block kind the IR lacks: no stream event
// carries them; each is warned once at the whole response's path.
TEST(BedrockStreamGaps, UncarriedFieldsWarnAtTheWholeResponsesPath) {
  std::string bytes;
  auto event = [&](const char* type, const std::string& payload) {
    append_event_stream_message(
        bytes,
        {{":event-type", type}, {":content-type", "application/json"}, {":message-type", "event"}},
        payload);
  };
  event("messageStart", R"({"role":"assistant","p":"ab"})");
  event("contentBlockDelta", R"({"contentBlockIndex":0,"delta":{"text":"hi"},"p":"abcdef"})");
  event("contentBlockDelta",
        R"({"contentBlockIndex":0,"delta":{"citation":{"title":"t","location":{}}}})");
  event("contentBlockStop", R"({"contentBlockIndex":0})");
  event("contentBlockStart", R"({"contentBlockIndex":1,"start":{"image":{"format":"png"}}})");
  event("contentBlockStop", R"({"contentBlockIndex":1})");
  event("messageStop",
        R"({"stopReason":"end_turn","additionalModelResponseFields":{"stop_sequence":null}})");
  event(
      "metadata",
      R"({"usage":{"inputTokens":3,"outputTokens":1,"totalTokens":4},"metrics":{"latencyMs":9},"trace":{"guardrail":{}},"p":"abc"})");
  auto r = testing::decode_stream(codec(), bytes, {});
  ASSERT_TRUE(r.status.ok()) << r.status.error().to_string();
  EXPECT_EQ(r.warnings.size(), 5u) << testing::warnings_text(r.warnings);
  EXPECT_TRUE(has_warning(r.warnings, "dropped_unknown_field", "$.additionalModelResponseFields"));
  EXPECT_TRUE(has_warning(r.warnings, "dropped_unknown_field", "$.metrics"));
  EXPECT_TRUE(has_warning(r.warnings, "dropped_unknown_field", "$.trace"));
  EXPECT_TRUE(has_warning(r.warnings, "dropped_unknown_field",
                          "$.output.message.content[0].citationsContent"));
  EXPECT_TRUE(has_warning(r.warnings, "dropped_unknown_part", "$.output.message.content[1]"));
  EXPECT_EQ(r.events.back(), StreamEvent(ir::Finish{{Kind::stop, "end_turn"}}));
}

}  // namespace
}  // namespace toolwire::dialects::bedrock_test
