// Anthropic Messages streams: recorded fixtures, any chunking, encoder output
// shaped like the real API, round trips and bad input.
#include <gtest/gtest.h>

#include <random>

#include "test_util.h"
#include "toolwire/ir/accumulator.h"

namespace toolwire::dialects::anthropic_test {
namespace {

using ir::StreamEvent;
using nlohmann::json;
using Kind = ir::FinishReason::Kind;

std::vector<StreamEvent> expected_tool_use() {
  std::vector<StreamEvent> ev = {
      ir::MessageStart{"msg_014p7gG3wDgGV9EUtLvnow3U", "claude-3-haiku-20240307", 0},
      usage(472, 2)};
  for (const char* t : {"Okay", ",", " let", "'s", " check", " the", " weather", " for", " San",
                        " Francisco", ",", " CA", ":"})
    ev.push_back(ir::TextDelta{t});
  ev.push_back(ir::ToolCallStart{0, "toolu_01T1x1fJ34qAmk2tNTrN7Up6", "get_weather"});
  for (const char* f : {"{\"location\":", " \"San", " Francisc", "o,", " CA\"", ", ",
                        "\"unit\": \"fah", "renheit\"}"})
    ev.push_back(ir::ToolCallDelta{0, f});
  ev.push_back(ir::ToolCallEnd{0});
  ev.push_back(usage(std::nullopt, 89));
  ev.push_back(ir::Finish{{Kind::tool_calls, "tool_use"}});
  return ev;
}

std::vector<StreamEvent> expected_text() {
  return {ir::MessageStart{"msg_1nZdL29xx5MUA1yADyHTEsnR8uuvGzszyY", "claude-opus-4-6", 0},
          usage(25, 1),
          ir::TextDelta{"Hello"},
          ir::TextDelta{"!"},
          usage(std::nullopt, 15),
          ir::Finish{{Kind::stop, "end_turn"}}};
}

struct Fixture {
  const char* file;
  std::vector<StreamEvent> (*expected)();
};

std::vector<StreamEvent> expected_error() {
  return {ir::ErrorEvent{"overloaded_error", "Overloaded"}};
}

class StreamFixture : public ::testing::TestWithParam<Fixture> {};

TEST_P(StreamFixture, DecodesToExactEvents) {
  const std::string sse = read_fixture(GetParam().file);
  auto events = testing::decode_stream_events(codec(), sse);
  EXPECT_EQ(events, GetParam().expected()) << describe(events);
}

TEST_P(StreamFixture, SameEventsAtEverySplitPoint) {
  const std::string sse = read_fixture(GetParam().file);
  const auto expected = GetParam().expected();
  for (size_t i = 0; i <= sse.size(); ++i)
    ASSERT_EQ(testing::decode_stream_events(codec(), sse, {i}), expected) << "split at " << i;
  std::vector<size_t> every;
  for (size_t i = 1; i < sse.size(); ++i) every.push_back(i);
  EXPECT_EQ(testing::decode_stream_events(codec(), sse, every), expected);
}

TEST_P(StreamFixture, SameEventsInRandomChunkings) {
  const std::string sse = read_fixture(GetParam().file);
  const auto expected = GetParam().expected();
  std::mt19937 rng(1234);
  for (int round = 0; round < 300; ++round) {
    std::vector<size_t> cuts;
    size_t pos = 0;
    while (true) {
      pos += 1 + rng() % 40;
      if (pos >= sse.size()) break;
      cuts.push_back(pos);
    }
    ASSERT_EQ(testing::decode_stream_events(codec(), sse, cuts), expected) << "round " << round;
  }
}

TEST_P(StreamFixture, EncoderOutputDecodesToTheSameEvents) {
  const auto expected = GetParam().expected();
  Warnings warnings;
  const std::string sse = testing::encode_stream(codec(), expected, &warnings);
  EXPECT_TRUE(warnings.empty());
  EXPECT_EQ(testing::decode_stream_events(codec(), sse), expected) << sse;
}

TEST_P(StreamFixture, TruncatedStreamFailsAtFinish) {
  const std::string sse = read_fixture(GetParam().file);
  // Every strict prefix that stops before the terminal event's blank line.
  const size_t terminal_end = sse.rfind("}\n\n") + 3;
  for (size_t n = 0; n < terminal_end; ++n) {
    Status st;
    testing::decode_stream_events(codec(), std::string_view(sse).substr(0, n), {}, &st);
    ASSERT_FALSE(st.ok()) << "prefix " << n;
    EXPECT_EQ(st.error().code, ErrorCode::parse_error);
    EXPECT_NE(st.error().message.find("before message_stop"), std::string::npos);
  }
}

INSTANTIATE_TEST_SUITE_P(
    Fixtures, StreamFixture,
    ::testing::Values(Fixture{"anthropic-messages-stream-tool-use.sse", expected_tool_use},
                      Fixture{"anthropic-messages-stream-text.sse", expected_text},
                      Fixture{"anthropic-messages-stream-error.sse", expected_error}),
    [](const auto& info) {
      std::string n = info.param.file;
      n = n.substr(26, n.size() - 26 - 4);
      for (char& c : n)
        if (c == '-') c = '_';
      return n;
    });

// (event name, data JSON) pairs of an SSE body, pings and the empty first
// input_json_delta dropped: what must match the recorded API stream.
std::vector<std::pair<std::string, json>> wire_events(const std::string& sse) {
  std::vector<std::pair<std::string, json>> out;
  size_t pos = 0;
  while (pos < sse.size()) {
    size_t end = sse.find("\n\n", pos);
    if (end == std::string::npos) break;
    std::string block = sse.substr(pos, end - pos);
    pos = end + 2;
    size_t nl = block.find('\n');
    std::string name = block.substr(7, nl - 7);
    json data = json::parse(block.substr(nl + 7));
    if (name == "ping") continue;
    if (name == "content_block_delta" && data["delta"].value("partial_json", "x").empty()) continue;
    out.emplace_back(name, data);
  }
  return out;
}

TEST(AnthropicStreamEncoder, WritesTheRecordedApiStream) {
  for (const char* file :
       {"anthropic-messages-stream-tool-use.sse", "anthropic-messages-stream-text.sse",
        "anthropic-messages-stream-error.sse"}) {
    const std::string recorded = read_fixture(file);
    const std::string ours =
        testing::encode_stream(codec(), testing::decode_stream_events(codec(), recorded));
    EXPECT_EQ(wire_events(ours), wire_events(recorded)) << file << "\n" << ours;
  }
}

TEST(AnthropicStreamEncoder, FramesEventsExactly) {
  const std::string sse =
      testing::encode_stream(codec(), {ir::MessageStart{"msg_1", "claude", 0}, ir::TextDelta{"Hi"},
                                       ir::Finish{{Kind::stop, "end_turn"}}});
  EXPECT_EQ(
      sse,
      "event: message_start\ndata: "
      "{\"type\":\"message_start\",\"message\":{\"id\":\"msg_1\",\"type\":"
      "\"message\",\"role\":\"assistant\",\"model\":\"claude\",\"content\":[],\"stop_reason\":null,"
      "\"stop_sequence\":null,\"usage\":{\"input_tokens\":0,\"output_tokens\":0}}}\n\n"
      "event: ping\ndata: {\"type\": \"ping\"}\n\n"
      "event: content_block_start\ndata: {\"type\":\"content_block_start\",\"index\":0,"
      "\"content_block\":{\"type\":\"text\",\"text\":\"\"}}\n\n"
      "event: content_block_delta\ndata: {\"type\":\"content_block_delta\",\"index\":0,"
      "\"delta\":{\"type\":\"text_delta\",\"text\":\"Hi\"}}\n\n"
      "event: content_block_stop\ndata: {\"type\":\"content_block_stop\",\"index\":0}\n\n"
      "event: message_delta\ndata: "
      "{\"type\":\"message_delta\",\"delta\":{\"stop_reason\":\"end_turn\","
      "\"stop_sequence\":null},\"usage\":{\"output_tokens\":0}}\n\n"
      "event: message_stop\ndata: {\"type\":\"message_stop\"}\n\n");
}

TEST(AnthropicStreamEncoder, InterleavedParallelCallsKeepTheirBlockIndexes) {
  const std::vector<StreamEvent> events = {ir::MessageStart{"m", "gpt", 0},
                                           ir::ToolCallStart{0, "call_a", "f"},
                                           ir::ToolCallDelta{0, "{\"x\":"},
                                           ir::ToolCallStart{1, "call_b", "g"},
                                           ir::ToolCallDelta{1, "{\"y\":2}"},
                                           ir::ToolCallDelta{0, "1}"},
                                           ir::ToolCallEnd{0},
                                           ir::ToolCallEnd{1},
                                           ir::Finish{{Kind::tool_calls, "tool_calls"}}};
  const std::string sse = testing::encode_stream(codec(), events);
  auto wire = wire_events(sse);
  // The late fragment of call 0 goes to block 0, not to the open block 1.
  bool found = false;
  for (const auto& [name, data] : wire)
    if (name == "content_block_delta" && data["delta"]["partial_json"] == "1}") {
      EXPECT_EQ(data["index"], 0);
      found = true;
    }
  EXPECT_TRUE(found) << sse;
  EXPECT_EQ(wire.back().first, "message_stop");
  EXPECT_EQ(wire[wire.size() - 2].second["delta"]["stop_reason"], "tool_use");
  ir::StreamAccumulator acc;
  for (const auto& e : testing::decode_stream_events(codec(), sse)) acc.add(e);
  ir::Response r = std::move(acc).take();
  ASSERT_EQ(r.parts.size(), 2u);
  EXPECT_EQ(std::get<ir::ToolCallPart>(r.parts[0]).arguments, "{\"x\":1}");
  EXPECT_EQ(std::get<ir::ToolCallPart>(r.parts[1]).arguments, "{\"y\":2}");
  EXPECT_EQ(r.finish.kind, Kind::tool_calls);
}

TEST(AnthropicStreamEncoder, ThinkingWithSignatureRoundTrips) {
  const std::vector<StreamEvent> events = {ir::MessageStart{"m", "claude", 0},
                                           usage(10, 1),
                                           ir::ThinkingDelta{"Let me", "", false},
                                           ir::ThinkingDelta{" think.", "", false},
                                           ir::ThinkingDelta{"", "EqQBCgIYAh", false},
                                           ir::ThinkingDelta{"EmwKAhgB", "", true},
                                           ir::TextDelta{"Answer"},
                                           usage(std::nullopt, 30),
                                           ir::Finish{{Kind::stop, "end_turn"}}};
  const std::string sse = testing::encode_stream(codec(), events);
  EXPECT_NE(sse.find("\"type\":\"signature_delta\",\"signature\":\"EqQBCgIYAh\""),
            std::string::npos);
  EXPECT_NE(sse.find("\"content_block\":{\"type\":\"redacted_thinking\",\"data\":\"EmwKAhgB\"}"),
            std::string::npos);
  EXPECT_EQ(testing::decode_stream_events(codec(), sse), events) << sse;
}

TEST(AnthropicStreamEncoder, MapsIdsAndLateUsageAndSynthesizesStart) {
  Warnings warnings;
  ir::UsageEvent late;
  late.usage = {100, 20, 30, std::nullopt};
  const std::string sse =
      testing::encode_stream(codec(),
                             {ir::ToolCallStart{0, "call:1", "f"}, ir::ToolCallDelta{0, "{}"}, late,
                              ir::Finish{{Kind::stop, "stop"}}},
                             &warnings);
  EXPECT_TRUE(has_warning(warnings, "synthesized_message_start"));
  auto wire = wire_events(sse);
  EXPECT_EQ(wire[0].second["message"]["id"].get<std::string>().rfind("msg_toolwire_", 0), 0u);
  EXPECT_EQ(wire[1].second["content_block"]["id"], "tw-call-3a1");
  const json& delta = wire[wire.size() - 2].second;
  EXPECT_EQ(delta["delta"]["stop_reason"], "tool_use");  // a tool call turn whatever the raw reason
  EXPECT_EQ(delta["usage"],
            json({{"input_tokens", 70}, {"cache_read_input_tokens", 30}, {"output_tokens", 20}}));
  auto events = testing::decode_stream_events(codec(), sse);
  EXPECT_EQ(std::get<ir::ToolCallStart>(events.at(2)).id, "call:1");
}

TEST(AnthropicStreamEncoder, ErrorEventFraming) {
  EXPECT_EQ(testing::encode_stream(codec(), {ir::ErrorEvent{"overloaded_error", "Overloaded"}}),
            "event: error\ndata: {\"type\":\"error\",\"error\":{\"type\":\"overloaded_error\","
            "\"message\":\"Overloaded\"}}\n\n");
}

TEST(AnthropicStreamDecoder, CacheUsageAndToolInputInStart) {
  const std::string sse =
      "event: message_start\ndata: "
      "{\"type\":\"message_start\",\"message\":{\"id\":\"m\",\"model\":\"c\","
      "\"usage\":{\"input_tokens\":5,\"cache_read_input_tokens\":100,\"cache_creation_input_"
      "tokens\":7,"
      "\"output_tokens\":1}}}\n\n"
      "event: content_block_start\ndata: "
      "{\"type\":\"content_block_start\",\"index\":0,\"content_block\":"
      "{\"type\":\"tool_use\",\"id\":\"tw-a-3ab\",\"name\":\"f\",\"input\":{\"k\":1}}}\n\n"
      "event: content_block_stop\ndata: {\"type\":\"content_block_stop\",\"index\":0}\n\n"
      "event: message_delta\ndata: "
      "{\"type\":\"message_delta\",\"delta\":{\"stop_reason\":\"end_turn\"},"
      "\"usage\":{\"output_tokens\":9}}\n\n"
      "event: message_stop\ndata: {\"type\":\"message_stop\"}\n\n";
  auto events = testing::decode_stream_events(codec(), sse);
  ir::UsageEvent start_usage;
  start_usage.usage = {112, 1, 100, 7};
  std::vector<StreamEvent> expected = {ir::MessageStart{"m", "c", 0},
                                       start_usage,
                                       ir::ToolCallStart{0, "a:b", "f"},
                                       ir::ToolCallDelta{0, "{\"k\":1}"},
                                       ir::ToolCallEnd{0},
                                       usage(std::nullopt, 9),
                                       ir::Finish{{Kind::tool_calls, "end_turn"}}};
  EXPECT_EQ(events, expected) << describe(events);
}

struct BadStream {
  const char* name;
  std::string sse;
  ErrorCode code;
  std::string path;
  std::string message_part;
};

class BadStreamTest : public ::testing::TestWithParam<BadStream> {};

const std::string kStart =
    "event: message_start\ndata: "
    "{\"type\":\"message_start\",\"message\":{\"id\":\"m\",\"model\":\"c\"}}\n\n"
    "event: content_block_start\ndata: {\"type\":\"content_block_start\",\"index\":0,"
    "\"content_block\":{\"type\":\"text\",\"text\":\"\"}}\n\n";

TEST_P(BadStreamTest, FailsWithPath) {
  const BadStream& c = GetParam();
  Status st;
  testing::decode_stream_events(codec(), c.sse, {}, &st);
  ASSERT_FALSE(st.ok());
  EXPECT_EQ(st.error().code, c.code) << st.error().to_string();
  EXPECT_EQ(st.error().path, c.path) << st.error().to_string();
  EXPECT_NE(st.error().message.find(c.message_part), std::string::npos) << st.error().to_string();
}

INSTANTIATE_TEST_SUITE_P(
    Cases, BadStreamTest,
    ::testing::Values(
        BadStream{
            "text_not_string",
            kStart +
                "event: content_block_delta\ndata: {\"type\":\"content_block_delta\",\"index\":0,"
                "\"delta\":{\"type\":\"text_delta\",\"text\":5}}\n\n",
            ErrorCode::invalid_argument, "$.delta.text",
            "in 'content_block_delta' event: expected string"},
        BadStream{"malformed_json",
                  kStart + "event: content_block_delta\ndata: {\"type\":\"content_blo\n\n",
                  ErrorCode::parse_error, "$",
                  "in 'content_block_delta' event: malformed JSON at byte 20 (line 1, column 21)"},
        BadStream{"unknown_block",
                  kStart + "event: content_block_stop\ndata: {\"type\":\"content_block_stop\","
                           "\"index\":3}\n\n",
                  ErrorCode::invalid_argument, "$.index", "never started"},
        BadStream{
            "wrong_delta_kind",
            kStart +
                "event: content_block_delta\ndata: {\"type\":\"content_block_delta\",\"index\":0,"
                "\"delta\":{\"type\":\"input_json_delta\",\"partial_json\":\"{\"}}\n\n",
            ErrorCode::invalid_argument, "$.delta.type", "does not fit"},
        BadStream{"invalid_utf8",
                  kStart + "event: content_block_delta\ndata: {\"type\":\"content_block_delta\","
                           "\"index\":0,\"delta\":{\"type\":\"text_delta\",\"text\":\"\xc3\"}}\n\n",
                  ErrorCode::parse_error, "$", "invalid UTF-8"},
        BadStream{"deep_nesting",
                  kStart + "event: ping\ndata: {\"type\":\"ping\",\"x\":" +
                      std::string(10000, '[') + std::string(10000, ']') + "}\n\n",
                  ErrorCode::parse_error, "$", "nested too deeply"},
        BadStream{"message_not_object",
                  "event: message_start\ndata: {\"type\":\"message_start\",\"message\":[]}\n\n",
                  ErrorCode::invalid_argument, "$.message", "expected object"},
        BadStream{"truncated", kStart, ErrorCode::parse_error, "", "before message_stop"}),
    [](const auto& info) { return std::string(info.param.name); });

TEST(AnthropicStreamDecoder, ErrorIsFinalAndUnknownEventsAreIgnored) {
  auto decoder = codec().make_stream_decoder();
  std::vector<StreamEvent> out;
  ASSERT_TRUE(
      decoder->feed("event: future_thing\ndata: {\"type\":\"future_thing\"}\n\n", out).ok());
  EXPECT_TRUE(out.empty());
  EXPECT_FALSE(decoder->feed("data: {oops}\n\n", out).ok());
  EXPECT_FALSE(decoder->feed(kStart, out).ok());
  EXPECT_FALSE(decoder->finish(out).ok());
}

// A stream's stop sequence (message_delta.delta.stop_sequence) rides on the
// Finish: an Anthropic client gets it back, another dialect warns as the
// whole response does.
TEST(AnthropicStreamGaps, StopSequenceSurvivesSameDialectAndWarnsElsewhere) {
  const std::string sse =
      kStart +
      "event: content_block_delta\ndata: {\"type\":\"content_block_delta\",\"index\":0,"
      "\"delta\":{\"type\":\"text_delta\",\"text\":\"1, 2\"}}\n\n"
      "event: content_block_stop\ndata: {\"type\":\"content_block_stop\",\"index\":0}\n\n"
      "event: message_delta\ndata: {\"type\":\"message_delta\",\"delta\":{\"stop_reason\":"
      "\"stop_sequence\",\"stop_sequence\":\"3\"},\"usage\":{\"output_tokens\":4}}\n\n"
      "event: message_stop\ndata: {\"type\":\"message_stop\"}\n\n";
  auto r = testing::decode_stream(codec(), sse, {});
  ASSERT_TRUE(r.status.ok()) << r.status.error().to_string();
  EXPECT_TRUE(r.warnings.empty()) << testing::warnings_text(r.warnings);
  const auto& fin = std::get<ir::Finish>(r.events.back());
  EXPECT_EQ(fin.stop_sequence, "3");
  EXPECT_EQ(fin.reason.raw, "stop_sequence");

  Warnings same;
  const std::string again = testing::encode_stream(codec(), r.events, &same);
  EXPECT_TRUE(same.empty()) << testing::warnings_text(same);
  EXPECT_NE(again.find("\"stop_sequence\":\"3\""), std::string::npos) << again;
  auto back = testing::decode_stream_events(codec(), again);
  ASSERT_FALSE(back.empty());
  EXPECT_EQ(std::get<ir::Finish>(back.back()), fin);

  for (const char* other : {"openai_chat", "openai_responses", "gemini", "bedrock_converse"}) {
    Warnings w;
    testing::encode_stream(*find_codec(other), r.events, &w);
    EXPECT_TRUE(has_warning(w, "dropped_unknown_field", "$.stop_sequence"))
        << other << ": " << testing::warnings_text(w);
  }

  // The folded answer (the gateway's stored or server-mode answer) keeps it
  // as the whole response does: written back by Anthropic, warned elsewhere.
  ir::StreamAccumulator acc;
  for (const auto& e : r.events) acc.add(e);
  const ir::Response folded = std::move(acc).take();
  Warnings ww;
  auto whole = codec().encode_response(folded, ww);
  ASSERT_TRUE(whole.ok());
  EXPECT_TRUE(ww.empty()) << testing::warnings_text(ww);
  EXPECT_EQ(parse(*whole)["stop_sequence"], "3") << *whole;
  Warnings to_chat;
  ASSERT_TRUE(find_codec("openai_chat")->encode_response(folded, to_chat).ok());
  EXPECT_TRUE(has_warning(to_chat, "dropped_unknown_field", "$.stop_sequence"))
      << testing::warnings_text(to_chat);
}

// Blocks and deltas no stream event carries (a server tool's block and its
// input deltas, citations) are skipped with a warning at the path the whole
// response keeps them at, once each; the stream goes on.
TEST(AnthropicStreamGaps, ServerToolBlocksAndCitationsWarnOnce) {
  const std::string citation =
      "event: content_block_delta\ndata: {\"type\":\"content_block_delta\",\"index\":0,"
      "\"delta\":{\"type\":\"citations_delta\",\"citation\":{\"type\":\"char_location\","
      "\"cited_text\":\"x\",\"document_index\":0,\"start_char_index\":0,\"end_char_index\":1}}}"
      "\n\n";
  const std::string sse =
      kStart + citation + citation +
      "event: content_block_stop\ndata: {\"type\":\"content_block_stop\",\"index\":0}\n\n"
      "event: content_block_start\ndata: {\"type\":\"content_block_start\",\"index\":1,"
      "\"content_block\":{\"type\":\"server_tool_use\",\"id\":\"srvtoolu_1\",\"name\":"
      "\"web_search\",\"input\":{}}}\n\n"
      "event: content_block_delta\ndata: {\"type\":\"content_block_delta\",\"index\":1,"
      "\"delta\":{\"type\":\"input_json_delta\",\"partial_json\":\"{\\\"query\\\":1}\"}}\n\n"
      "event: content_block_stop\ndata: {\"type\":\"content_block_stop\",\"index\":1}\n\n"
      "event: message_delta\ndata: {\"type\":\"message_delta\",\"delta\":{\"stop_reason\":"
      "\"end_turn\"}}\n\n"
      "event: message_stop\ndata: {\"type\":\"message_stop\"}\n\n";
  auto r = testing::decode_stream(codec(), sse, {});
  ASSERT_TRUE(r.status.ok()) << r.status.error().to_string();
  EXPECT_EQ(r.warnings.size(), 2u) << testing::warnings_text(r.warnings);
  EXPECT_TRUE(has_warning(r.warnings, "dropped_unknown_field", "$.content[0].citations"));
  EXPECT_TRUE(has_warning(r.warnings, "dropped_unknown_part", "$.content[1]"));
  std::vector<StreamEvent> expected = {ir::MessageStart{"m", "c", 0},
                                       ir::Finish{{Kind::stop, "end_turn"}}};
  EXPECT_EQ(r.events, expected) << describe(r.events);
}

}  // namespace
}  // namespace toolwire::dialects::anthropic_test
