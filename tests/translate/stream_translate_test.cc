// Cross-dialect stream translation: a stream of one dialect, decoded and
// re-encoded into the other, then decoded again, accumulates to the same
// response; interleaved parallel OpenAI tool-call deltas stay apart on the
// Anthropic wire; and every piece is forwarded as soon as it arrives.
#include <gtest/gtest.h>

#include <nlohmann/json.hpp>

#include "gen.h"
#include "ir_print.h"
#include "normalize.h"
#include "toolwire/core/json_writer.h"
#include "wire.h"

namespace toolwire::testing {
namespace {

using nlohmann::json;

const ir::ErrorEvent* last_error(const std::vector<ir::StreamEvent>& events) {
  return events.empty() ? nullptr : std::get_if<ir::ErrorEvent>(&events.back());
}

// src bytes → IR → dst bytes → IR → src bytes → IR; all three accumulate to
// the same normalized response. `chunk` = how the source bytes are fed.
void check_stream_via(const dialects::Codec& src, const dialects::Codec& dst,
                      const std::string& bytes, const std::string& label, size_t chunk) {
  SCOPED_TRACE(label + " from " + std::string(src.name()) + " via " + std::string(dst.name()) +
               " chunk " + std::to_string(chunk));
  const Route kBoth = Route::of({&src, &dst});
  Decoded d1 = decode_stream(src, bytes, chunk);
  ASSERT_EQ(d1.error, "") << bytes;
  Warnings w;
  std::string mid = encode_stream(dst, d1.events, &w);
  Decoded d2 = decode_stream(dst, mid);
  ASSERT_EQ(d2.error, "") << "translated stream does not decode:\n" << mid;
  std::string back = encode_stream(src, d2.events, &w);
  Decoded d3 = decode_stream(src, back);
  ASSERT_EQ(d3.error, "") << "stream translated back does not decode:\n" << back;

  if (auto* e1 =
          last_error(d1.events)) {  // an in-stream error stays an error, same type and message
    auto* e2 = last_error(d2.events);
    auto* e3 = last_error(d3.events);
    ASSERT_TRUE(e2 && e3) << print(d2.events) << mid;
    EXPECT_EQ(*e2, *e1);
    EXPECT_EQ(*e3, *e1);
    return;
  }
  const std::string r1 = print(normalized(accumulate(d1.events), kBoth));
  EXPECT_TRUE(same_ir(r1, print(normalized(accumulate(d2.events), kBoth)), "source",
                      std::string(dst.name())))
      << "source events:\n"
      << print(d1.events) << "translated:\n"
      << mid;
  EXPECT_TRUE(same_ir(r1, print(normalized(accumulate(d3.events), kBoth)), "source", "round trip"))
      << "translated:\n"
      << mid << "back:\n"
      << back;
}

// check_stream_via every other dialect.
void check_stream(const dialects::Codec& src, const std::string& bytes, const std::string& label,
                  size_t chunk = 0) {
  for (const dialects::Codec* dst : codecs())
    if (dst != &src) check_stream_via(src, *dst, bytes, label, chunk);
}

std::vector<std::pair<std::string, std::string>> openai_stream_fixtures() {
  return {{"openai-chat-stream-text.chunks.txt",
           openai_sse_from_chunk_lines(read_fixture("openai-chat-stream-text.chunks.txt"))},
          {"openai-chat-stream-tool-calls.delta-tool_calls.jsonl",
           openai_sse_from_tool_call_deltas(
               read_fixture("openai-chat-stream-tool-calls.delta-tool_calls.jsonl"))}};
}

TEST(StreamTranslate, EveryAnthropicFixtureToOpenAIAndBack) {
  auto names = fixtures_matching("anthropic-messages-stream-", ".sse");
  ASSERT_EQ(names.size(), 3u);
  for (const auto& name : names) {
    std::string bytes = read_fixture(name);
    for (size_t chunk : {0, 1, 7, 64}) check_stream(anthropic(), bytes, name, chunk);
  }
}

TEST(StreamTranslate, EveryOpenAIFixtureToAnthropicAndBack) {
  for (const auto& [name, bytes] : openai_stream_fixtures())
    for (size_t chunk : {0, 1, 7, 64}) check_stream(openai(), bytes, name, chunk);
}

// Binary stream fixtures (Bedrock's application/vnd.amazon.eventstream),
// found by each codec's fixture prefix.
TEST(StreamTranslate, EveryEventStreamFixtureToEveryDialectAndBack) {
  int found = 0;
  for (const dialects::Codec* src : codecs()) {
    for (const auto& name : fixtures_matching(fixture_prefix(*src), ".eventstream")) {
      ++found;
      std::string bytes = read_fixture(name);
      for (size_t chunk : {0, 1, 7, 64}) check_stream(*src, bytes, name, chunk);
    }
  }
  EXPECT_GT(found, 0);
}

TEST(StreamTranslate, ToolUseFixtureKeepsIdNameArgumentsAndFinish) {
  Decoded d = decode_stream(anthropic(), read_fixture("anthropic-messages-stream-tool-use.sse"));
  ASSERT_EQ(d.error, "");
  std::string oa = encode_stream(openai(), d.events);
  Decoded back = decode_stream(openai(), oa);
  ASSERT_EQ(back.error, "") << oa;
  ir::Response r = accumulate(back.events);
  ASSERT_EQ(r.parts.size(), 2u) << print(r);
  EXPECT_EQ(std::get<ir::TextPart>(r.parts[0]).text,
            "Okay, let's check the weather for San Francisco, CA:");
  const auto& call = std::get<ir::ToolCallPart>(r.parts[1]);
  EXPECT_EQ(call.id, "toolu_01T1x1fJ34qAmk2tNTrN7Up6");
  EXPECT_EQ(call.name, "get_weather");
  EXPECT_EQ(json::parse(call.arguments),
            json::parse(R"({"location": "San Francisco, CA", "unit": "fahrenheit"})"));
  EXPECT_EQ(r.finish.kind, ir::FinishReason::Kind::tool_calls);
  EXPECT_NE(oa.find("\"finish_reason\":\"tool_calls\""), std::string::npos) << oa;
  EXPECT_TRUE(oa.ends_with("data: [DONE]\n\n")) << oa;
}

TEST(StreamTranslate, GeneratedStreamsEveryPair) {
  for (uint64_t seed = 1; seed <= generated_seeds(150); ++seed) {
    for (const dialects::Codec* src : codecs()) {
      ConversationGen gen(seed);
      ir::Response resp = gen.response();
      auto events = gen.stream_events(resp, /*interleave=*/seed % 2 == 0);
      std::string bytes = encode_stream(*src, events);
      std::string label = "seed " + std::to_string(seed);
      check_stream(*src, bytes, label);
      check_stream(*src, bytes, label, 1 + seed % 13);
      if (::testing::Test::HasFailure()) return;
    }
  }
}

// Three calls whose OpenAI deltas interleave: on the Anthropic wire every
// input_json_delta lands in its own call's block, none merged.
TEST(StreamTranslate, InterleavedParallelOpenAIDeltasStayApartOnAnthropicWire) {
  const std::vector<std::pair<int, std::string>> pieces = {{0, "{\"city\":"}, {1, "{\"tz\":"},
                                                           {2, "{\"q\":\"a"}, {0, "\"Paris\"}"},
                                                           {2, "b\\\"c\"}"},  {1, "\"CET\"}"}};
  std::string sse;
  auto chunk = [&](json delta, json finish = nullptr) {
    json c = {
        {"id", "chatcmpl-par"},
        {"object", "chat.completion.chunk"},
        {"created", 1},
        {"model", "gpt-4o"},
        {"choices", json::array({{{"index", 0}, {"delta", delta}, {"finish_reason", finish}}})}};
    sse += "data: " + c.dump() + "\n\n";
  };
  chunk({{"role", "assistant"}, {"content", nullptr}});
  const char* ids[] = {"call_a", "call.b:1", "call_c"};
  const char* names[] = {"get_weather", "get_time", "search"};
  for (int i = 0; i < 3; ++i)
    chunk({{"tool_calls", json::array({{{"index", i},
                                        {"id", ids[i]},
                                        {"type", "function"},
                                        {"function", {{"name", names[i]}, {"arguments", ""}}}}})}});
  for (const auto& [i, frag] : pieces)
    chunk({{"tool_calls", json::array({{{"index", i}, {"function", {{"arguments", frag}}}}})}});
  chunk(json::object(), "tool_calls");
  sse += "data: [DONE]\n\n";

  Decoded d = decode_stream(openai(), sse);
  ASSERT_EQ(d.error, "");
  std::string wire = encode_stream(anthropic(), d.events);

  // Parse the Anthropic SSE as an SDK would: accumulate partial_json by block index.
  std::map<int, std::string> block_id, block_args;
  std::istringstream in(wire);
  std::string line;
  while (std::getline(in, line)) {
    if (!line.starts_with("data: ")) continue;
    json ev = json::parse(line.substr(6));
    if (ev["type"] == "content_block_start" && ev["content_block"]["type"] == "tool_use")
      block_id[ev["index"].get<int>()] = ev["content_block"]["id"].get<std::string>();
    if (ev["type"] == "content_block_delta" && ev["delta"]["type"] == "input_json_delta") {
      int idx = ev["index"].get<int>();
      ASSERT_TRUE(block_id.count(idx)) << "delta for a block that never started: " << line;
      block_args[idx] += ev["delta"]["partial_json"].get<std::string>();
    }
  }
  ASSERT_EQ(block_id.size(), 3u) << wire;
  std::map<std::string, json> by_id;
  for (const auto& [idx, id] : block_id) {
    ASSERT_TRUE(json::accept(block_args[idx]))
        << "merged or cut arguments in block " << idx << ": " << block_args[idx] << "\n"
        << wire;
    by_id[id] = json::parse(block_args[idx]);
  }
  EXPECT_EQ(by_id["call_a"], json::parse(R"({"city":"Paris"})"));
  EXPECT_EQ(by_id["tw-call-2eb-3a1"], json::parse(R"({"tz":"CET"})"));  // the reversible id mapping
  EXPECT_EQ(by_id["call_c"], json::parse(R"({"q":"ab\"c"})"));

  // And the Anthropic decoder gives the original ids back.
  Decoded back = decode_stream(anthropic(), wire);
  ASSERT_EQ(back.error, "") << wire;
  ir::Response r = accumulate(back.events);
  ASSERT_EQ(r.parts.size(), 3u) << print(r);
  for (int i = 0; i < 3; ++i) EXPECT_EQ(std::get<ir::ToolCallPart>(r.parts[i]).id, ids[i]);
}

// Feeds `sse` one wire event at a time through decoder → encoder and checks
// that each argument fragment is in the output right after its event.
void check_immediate(const dialects::Codec& src, const dialects::Codec& dst, const std::string& sse,
                     const std::string& target_key) {
  SCOPED_TRACE(std::string(src.name()) + " -> " + std::string(dst.name()));
  auto decoder = src.make_stream_decoder();
  auto encoder = dst.make_stream_encoder();
  std::string out;
  int fragments = 0;
  size_t pos = 0;
  while (pos < sse.size()) {
    size_t end = sse.find("\n\n", pos);
    end = end == std::string::npos ? sse.size() : end + 2;
    std::vector<ir::StreamEvent> events;
    ASSERT_TRUE(decoder->feed(std::string_view(sse).substr(pos, end - pos), events));
    pos = end;
    for (const auto& e : events) {
      encoder->encode(e, out);
      if (auto* delta = std::get_if<ir::ToolCallDelta>(&e)) {
        std::string needle = "\"" + target_key + "\":";
        JsonWriter::append_escaped(needle, delta->fragment);
        EXPECT_NE(out.find(needle), std::string::npos)
            << "fragment not forwarded: " << needle << "\n"
            << out;
        ++fragments;
      }
    }
  }
  std::vector<ir::StreamEvent> rest;
  EXPECT_TRUE(decoder->finish(rest));
  EXPECT_GE(fragments, 5);
}

TEST(StreamTranslate, ForwardsEachFragmentImmediately) {
  check_immediate(anthropic(), openai(), read_fixture("anthropic-messages-stream-tool-use.sse"),
                  "arguments");
  check_immediate(openai(), anthropic(),
                  openai_sse_from_tool_call_deltas(
                      read_fixture("openai-chat-stream-tool-calls.delta-tool_calls.jsonl")),
                  "partial_json");
}

// The decoder itself does not hold fragments back: half an event gives
// nothing, the rest of it gives the fragment at once (no waiting for the block end).
TEST(StreamTranslate, FragmentAvailableAsSoonAsItsEventCompletes) {
  std::string sse = read_fixture("anthropic-messages-stream-tool-use.sse");
  size_t at = sse.find("\" Francisc\"");  // the argument fragment, not the text " Francisco"
  ASSERT_NE(at, std::string::npos);
  auto decoder = anthropic().make_stream_decoder();
  std::vector<ir::StreamEvent> events;
  ASSERT_TRUE(decoder->feed(std::string_view(sse).substr(0, at), events));
  auto count_fragment = [&] {
    int n = 0;
    for (const auto& e : events)
      if (auto* d = std::get_if<ir::ToolCallDelta>(&e)) n += d->fragment == " Francisc";
    return n;
  };
  EXPECT_EQ(count_fragment(), 0);
  size_t end = sse.find("\n\n", at) + 2;
  ASSERT_TRUE(decoder->feed(std::string_view(sse).substr(at, end - at), events));
  EXPECT_EQ(count_fragment(), 1);
  std::string out = encode_stream(openai(), events);
  EXPECT_NE(out.find("\"arguments\":\" Francisc\""), std::string::npos) << out;
}

}  // namespace
}  // namespace toolwire::testing
