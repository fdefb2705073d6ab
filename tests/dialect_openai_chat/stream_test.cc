// openai_chat streams: recorded chunks → exact IR events, any chunking, encoder
// output framed as OpenAI and decodable back, truncated / bad streams.
#include <gtest/gtest.h>

#include <random>

#include "test_util.h"
#include "toolwire/ir/accumulator.h"

namespace toolwire::dialects::openai_chat_test {
namespace {

using nlohmann::json;
using Events = std::vector<ir::StreamEvent>;

std::string text_stream() {
  return sse_from_chunks(fixture_lines("openai-chat-stream-text.chunks.txt"));
}

// The guide's delta.tool_calls values wrapped in chunks; the last (`null`) one carries the finish.
std::string tool_stream() {
  std::vector<std::string> chunks;
  for (const auto& line : fixture_lines("openai-chat-stream-tool-calls.delta-tool_calls.jsonl")) {
    json delta = line == "null" ? json::object() : json{{"tool_calls", json::parse(line)}};
    json chunk = {{"id", "chatcmpl-tc"},
                  {"object", "chat.completion.chunk"},
                  {"created", 1700000000},
                  {"model", "gpt-4o"},
                  {"choices",
                   {{{"index", 0},
                     {"delta", delta},
                     {"logprobs", nullptr},
                     {"finish_reason", line == "null" ? json("tool_calls") : json(nullptr)}}}}};
    chunks.push_back(chunk.dump());
  }
  return sse_from_chunks(chunks);
}

const Events& text_events() {
  // The fixture's system_fingerprint rides on the MessageStart (same-dialect).
  static const Events e = {
      ir::MessageStart{"chatcmpl-123",
                       "gpt-4o-mini",
                       1694268190,
                       {{{"system_fingerprint", R"("fp_44709d6fcb")"}}, "openai_chat"}},
      ir::TextDelta{"Hello"}, ir::Finish{{ir::FinishReason::Kind::stop, "stop"}}};
  return e;
}

const Events& tool_events() {
  static const Events e = [] {
    Events ev = {ir::MessageStart{"chatcmpl-tc", "gpt-4o", 1700000000},
                 ir::ToolCallStart{0, "call_DdmO9pD3xa9XTPNJ32zg2hcA", "get_weather"}};
    for (const char* f : {"{\"", "location", "\":\"", "Paris", ",", " France", "\"}"})
      ev.push_back(ir::ToolCallDelta{0, f});
    ev.push_back(ir::ToolCallEnd{0});
    ev.push_back(ir::Finish{{ir::FinishReason::Kind::tool_calls, "tool_calls"}});
    return ev;
  }();
  return e;
}

void expect_events(const StreamResult& r, const Events& expected, const std::string& what) {
  ASSERT_TRUE(r.status.ok()) << what << ": " << r.status.error().to_string();
  EXPECT_EQ(r.events, expected) << what << "\n got:\n"
                                << describe(r.events) << " want:\n"
                                << describe(expected);
}

TEST(OpenAiStreamDecode, TextFixture) {
  expect_events(decode_stream(text_stream()), text_events(), "whole");
}

TEST(OpenAiStreamDecode, ToolCallFixtureAccumulatesToThePublishedCall) {
  auto r = decode_stream(tool_stream());
  expect_events(r, tool_events(), "whole");
  ir::StreamAccumulator acc;
  for (const auto& e : r.events) acc.add(e);
  ir::Response resp = std::move(acc).take();
  json accumulated = json::parse(read_fixture("openai-chat-stream-tool-calls.accumulated.json"));
  ASSERT_EQ(resp.parts.size(), 1u);
  const auto& call = std::get<ir::ToolCallPart>(resp.parts[0]);
  EXPECT_EQ(call.name, accumulated["function"]["name"]);
  EXPECT_EQ(call.arguments, accumulated["function"]["arguments"]);
  EXPECT_TRUE(call.arguments_valid);
}

TEST(OpenAiStreamDecode, SplitAtEveryByte) {
  for (const auto& [bytes, expected] :
       {std::pair{text_stream(), text_events()}, std::pair{tool_stream(), tool_events()}}) {
    for (size_t k = 0; k <= bytes.size(); ++k)
      expect_events(decode_stream(bytes, {k}), expected, "cut " + std::to_string(k));
    std::vector<size_t> every(bytes.size());
    for (size_t i = 0; i < every.size(); ++i) every[i] = i;
    expect_events(decode_stream(bytes, every), expected, "byte by byte");
  }
}

TEST(OpenAiStreamDecode, RandomChunkings) {
  std::mt19937 rng(12345);
  for (const auto& [bytes, expected] :
       {std::pair{text_stream(), text_events()}, std::pair{tool_stream(), tool_events()}}) {
    for (int round = 0; round < 300; ++round) {
      std::vector<size_t> cuts;
      size_t pos = 0;
      std::uniform_int_distribution<size_t> step(1, 1 + round % 64);
      while ((pos += step(rng)) < bytes.size()) cuts.push_back(pos);
      expect_events(decode_stream(bytes, cuts), expected, "round " + std::to_string(round));
    }
  }
}

TEST(OpenAiStreamDecode, InterleavedParallelCallsUsageReasoningAndSdkNulls) {
  std::string sse =
      "data: "
      "{\"id\":\"c1\",\"object\":\"chat.completion.chunk\",\"created\":9,\"model\":\"m\","
      "\"choices\":[{\"index\":0,"
      "\"delta\":{\"role\":\"assistant\",\"content\":null,\"reasoning_content\":\"think\"},"
      "\"finish_reason\":null}]}\n\n"
      "data: "
      "{\"choices\":[{\"index\":0,\"delta\":{\"tool_calls\":[{\"index\":0,\"id\":\"a\",\"type\":"
      "\"function\","
      "\"function\":{\"name\":\"f\",\"arguments\":\"{\\\"x\\\"\"}},{\"index\":1,\"id\":\"b\","
      "\"type\":\"function\","
      "\"function\":{\"name\":\"g\",\"arguments\":\"\"}}]}}]}\n\n"
      "data: "
      "{\"choices\":[{\"index\":0,\"delta\":{\"tool_calls\":[{\"index\":1,\"id\":null,\"function\":"
      "{\"name\":null,"
      "\"arguments\":\"{}\"},\"type\":null}]}}]}\n\n"
      "data: "
      "{\"choices\":[{\"index\":0,\"delta\":{\"tool_calls\":[{\"index\":0,\"function\":{"
      "\"arguments\":\":1}\"}}]}}]}\n\n"
      ": keep-alive\n\n"
      "data: {\"choices\":[{\"index\":0,\"delta\":{},\"finish_reason\":\"tool_calls\"}]}\n\n"
      "data: "
      "{\"choices\":[],\"usage\":{\"prompt_tokens\":5,\"completion_tokens\":3,\"total_tokens\":8,"
      "\"prompt_tokens_details\":{\"cached_tokens\":2}}}\n\n"
      "data: [DONE]\n\n";
  ir::Usage usage{5, 3, 2, std::nullopt};
  Events expected = {ir::MessageStart{"c1", "m", 9},
                     ir::ThinkingDelta{"think", "", false},
                     ir::ToolCallStart{0, "a", "f"},
                     ir::ToolCallDelta{0, "{\"x\""},
                     ir::ToolCallStart{1, "b", "g"},
                     ir::ToolCallDelta{1, "{}"},
                     ir::ToolCallDelta{0, ":1}"},
                     ir::UsageEvent{usage},
                     ir::ToolCallEnd{0},
                     ir::ToolCallEnd{1},
                     ir::Finish{{ir::FinishReason::Kind::tool_calls, "tool_calls"}}};
  expect_events(decode_stream(sse), expected, "whole");
  for (size_t k = 0; k <= sse.size(); ++k)
    expect_events(decode_stream(sse, {k}), expected, "cut " + std::to_string(k));
}

TEST(OpenAiStreamDecode, ErrorEventEndsTheStream) {
  auto r = decode_stream(
      "data: {\"id\":\"c\",\"choices\":[{\"index\":0,\"delta\":{\"content\":\"He\"}}]}\n\n"
      "data: {\"error\":{\"message\":\"The server had an "
      "error\",\"type\":\"server_error\",\"param\":null,\"code\":null}}\n\n");
  expect_events(r,
                Events{ir::MessageStart{"c", "", 0}, ir::TextDelta{"He"},
                       ir::ErrorEvent{"server_error", "The server had an error"}},
                "error");
}

TEST(OpenAiStreamDecode, TruncatedStreamsFail) {
  std::string full = tool_stream();
  size_t done = full.find("data: [DONE]");
  for (size_t n : {size_t{0}, size_t{10}, done - 30, done, done + 5}) {
    auto r = decode_stream(std::string_view(full).substr(0, n));
    ASSERT_FALSE(r.status.ok()) << n;
    EXPECT_EQ(r.status.error().code, ErrorCode::parse_error);
    EXPECT_NE(r.status.error().message.find("[DONE]"), std::string::npos)
        << r.status.error().message;
  }
}

TEST(OpenAiStreamDecode, BadEventsNameThePath) {
  struct Case {
    std::string sse;
    ErrorCode code;
    const char* path;
  } cases[] = {
      {"data: {\"choices\":[{\"index\":0,\"delta\":{\"content\":5}}]}\n\n",
       ErrorCode::invalid_argument, "$.choices[0].delta.content"},
      {"data: "
       "{\"choices\":[{\"index\":0,\"delta\":{\"tool_calls\":[{\"index\":0,\"function\":{"
       "\"arguments\":\"{\"}}]}}]}\n\n",
       ErrorCode::invalid_argument, "$.choices[0].delta.tool_calls[0].id"},
      {"data: "
       "{\"choices\":[{\"index\":0,\"delta\":{\"tool_calls\":[{\"index\":99999,\"id\":\"a\"}]}}]}"
       "\n\n",
       ErrorCode::invalid_argument, "$.choices[0].delta.tool_calls[0].index"},
      {"data: "
       "{\"choices\":[{\"index\":0,\"delta\":{\"tool_calls\":[{\"index\":\"0\",\"id\":\"a\"}]}}]}"
       "\n\n",
       ErrorCode::invalid_argument, "$.choices[0].delta.tool_calls[0].index"},
      {"data: {\"choices\":\"x\"}\n\n", ErrorCode::invalid_argument, "$.choices"},
      {"data: {\"choices\":[}\n\n", ErrorCode::parse_error, "$"},
      {"data: {\"choices\":[{\"delta\":{\"content\":\"\xC3\x28\"}}]}\n\n", ErrorCode::parse_error,
       "$"},
      {"data: " + std::string(10000, '[') + std::string(10000, ']') + "\n\n",
       ErrorCode::parse_error, "$"},
  };
  for (const auto& c : cases) {
    auto r = decode_stream(c.sse);
    ASSERT_FALSE(r.status.ok()) << c.sse.substr(0, 100);
    EXPECT_EQ(r.status.error().code, c.code) << c.sse.substr(0, 100);
    EXPECT_EQ(r.status.error().path, c.path) << r.status.error().to_string();
  }
  // A malformed event's error names the position in its payload.
  auto r = decode_stream("data: {\"choices\":[]}\n\ndata: {\"choices\":[}\n\n");
  ASSERT_FALSE(r.status.ok());
  EXPECT_NE(r.status.error().message.find(
                "malformed JSON at byte 12 (line 1, column 13): expected a JSON value"),
            std::string::npos)
      << r.status.error().message;
  // Failure is final: more bytes do not revive the decoder.
  auto dec = openai().make_stream_decoder();
  Events out;
  EXPECT_FALSE(dec->feed("data: nope\n\n", out).ok());
  EXPECT_FALSE(dec->feed("data: [DONE]\n\n", out).ok());
  EXPECT_FALSE(dec->finish(out).ok());
}

// ---- encoder ----

std::string encode_all(const Events& events, Warnings* warnings = nullptr) {
  auto enc = openai().make_stream_encoder();
  std::string out;
  for (const auto& e : events) enc->encode(e, out);
  if (warnings) *warnings = enc->warnings();
  return out;
}

TEST(OpenAiStreamEncode, ExactBytes) {
  Events events = {ir::MessageStart{"chatcmpl-1", "gpt-4o", 7},
                   ir::TextDelta{"Hi"},
                   ir::ToolCallStart{0, "call_1", "f"},
                   ir::ToolCallDelta{0, "{\"a\":1}"},
                   ir::ToolCallEnd{0},
                   ir::UsageEvent{ir::Usage{10, 4, std::nullopt, std::nullopt}},
                   ir::Finish{{ir::FinishReason::Kind::stop, "end_turn"}}};
  const std::string head =
      R"({"id":"chatcmpl-1","object":"chat.completion.chunk","created":7,"model":"gpt-4o",)";
  std::string expected =
      "data: " + head +
      R"("choices":[{"index":0,"delta":{"role":"assistant","content":""},"logprobs":null,"finish_reason":null}]})"
      "\n\n"
      "data: " +
      head +
      R"("choices":[{"index":0,"delta":{"content":"Hi"},"logprobs":null,"finish_reason":null}]})"
      "\n\n"
      "data: " +
      head +
      R"("choices":[{"index":0,"delta":{"tool_calls":[{"index":0,"id":"call_1","type":"function","function":{"name":"f","arguments":""}}]},"logprobs":null,"finish_reason":null}]})"
      "\n\n"
      "data: " +
      head +
      R"("choices":[{"index":0,"delta":{"tool_calls":[{"index":0,"function":{"arguments":"{\"a\":1}"}}]},"logprobs":null,"finish_reason":null}]})"
      "\n\n"
      "data: " +
      head +
      R"("choices":[{"index":0,"delta":{},"logprobs":null,"finish_reason":"tool_calls"}]})"
      "\n\n"
      "data: " +
      head +
      R"("choices":[],"usage":{"prompt_tokens":10,"completion_tokens":4,"total_tokens":14}})"
      "\n\n"
      "data: [DONE]\n\n";
  EXPECT_EQ(encode_all(events), expected);
}

// A turn that opens with a call: OpenAI says the role with `content: null`
// in the call's own first chunk, so an SDK's accumulated message has content
// null, as in a whole response (not "").
TEST(OpenAiStreamEncode, ATurnOpeningWithACallSaysContentNullInItsFirstChunk) {
  Events events = {ir::MessageStart{"chatcmpl-2", "gpt-4o", 7}, ir::ToolCallStart{0, "call_1", "f"},
                   ir::ToolCallDelta{0, "{}"}, ir::ToolCallEnd{0},
                   ir::Finish{{ir::FinishReason::Kind::tool_calls, "tool_calls"}}};
  const std::string head =
      R"({"id":"chatcmpl-2","object":"chat.completion.chunk","created":7,"model":"gpt-4o",)";
  std::string out = encode_all(events);
  std::string first = out.substr(0, out.find("\n\n"));
  EXPECT_EQ(
      first,
      "data: " + head +
          R"("choices":[{"index":0,"delta":{"role":"assistant","content":null,"tool_calls":[{"index":0,"id":"call_1","type":"function","function":{"name":"f","arguments":""}}]},"logprobs":null,"finish_reason":null}]})");
  EXPECT_EQ(out.find("\"content\":\"\""), std::string::npos) << out;
  // A turn with no content at all still says its role once.
  std::string empty = encode_all({ir::MessageStart{"chatcmpl-3", "gpt-4o", 7},
                                  ir::Finish{{ir::FinishReason::Kind::stop, "stop"}}});
  EXPECT_NE(empty.find(R"("delta":{"role":"assistant","content":""})"), std::string::npos) << empty;
}

TEST(OpenAiStreamEncode, ReencodingTheTextFixtureGivesItsChunks) {
  auto r = decode_stream(text_stream());
  ASSERT_TRUE(r.status.ok());
  std::string out = encode_all(r.events);
  std::vector<std::string> got;
  for (size_t pos = 0; (pos = out.find("data: ", pos)) != std::string::npos;) {
    size_t end = out.find("\n\n", pos);
    got.push_back(out.substr(pos + 6, end - pos - 6));
    pos = end;
  }
  auto lines = fixture_lines("openai-chat-stream-text.chunks.txt");
  ASSERT_EQ(got.size(), lines.size() + 1);
  for (size_t i = 0; i < lines.size(); ++i) {
    json want = json::parse(lines[i]);
    want.erase("obfuscation");  // padding: nothing to carry
    EXPECT_EQ(json::parse(got[i]), want) << i;
  }
  EXPECT_EQ(got.back(), "[DONE]");
}

TEST(OpenAiStreamEncode, DecodingTheEncoderOutputGivesTheEventsBack) {
  ir::Usage usage{100, 20, 50, std::nullopt};
  Events events = {ir::MessageStart{"chatcmpl-x", "m", 123},
                   ir::ThinkingDelta{"plan", "", false},
                   ir::TextDelta{"Let me check \"both\".\n"},
                   ir::ToolCallStart{0, "call_a", "weather"},
                   ir::ToolCallStart{1, "call_b", "time"},
                   ir::ToolCallDelta{1, "{\"tz\":"},
                   ir::ToolCallDelta{0, "{\"city\":\"Paris\"}"},
                   ir::ToolCallDelta{1, "\"CET\"}"},
                   ir::UsageEvent{usage},
                   ir::ToolCallEnd{0},
                   ir::ToolCallEnd{1},
                   ir::Finish{{ir::FinishReason::Kind::tool_calls, "tool_calls"}}};
  std::string bytes = encode_all(events);
  expect_events(decode_stream(bytes), events, "round trip");
  std::mt19937 rng(7);
  for (int round = 0; round < 100; ++round) {
    std::vector<size_t> cuts;
    size_t pos = 0;
    while ((pos += 1 + rng() % 40) < bytes.size()) cuts.push_back(pos);
    expect_events(decode_stream(bytes, cuts), events, "round trip chunked");
  }
  Events text_only = {ir::MessageStart{"i", "m", 1}, ir::TextDelta{"a"},
                      ir::Finish{{ir::FinishReason::Kind::length, "length"}}};
  expect_events(decode_stream(encode_all(text_only)), text_only, "length");
  Events error = {ir::MessageStart{"i", "m", 1}, ir::TextDelta{"a"},
                  ir::ErrorEvent{"overloaded_error", "busy"}};
  std::string err_bytes = encode_all(error);
  EXPECT_EQ(err_bytes.find("[DONE]"), std::string::npos);
  expect_events(decode_stream(err_bytes), error, "error");
}

TEST(OpenAiStreamEncode, OutOfOrderIrIsRepairedWithWarnings) {
  Warnings w;
  std::string out = encode_all(
      {ir::TextDelta{"x"}, ir::ThinkingDelta{"", "sig", false}, ir::ToolCallDelta{2, "{}"},
       ir::Finish{{ir::FinishReason::Kind::stop, ""}}, ir::TextDelta{"late"}},
      &w);
  auto r = decode_stream(out);
  ASSERT_TRUE(r.status.ok()) << r.status.error().to_string();
  ASSERT_EQ(r.events.size(), 6u) << describe(r.events);
  EXPECT_EQ(std::get<ir::MessageStart>(r.events[0]).id.rfind("chatcmpl-toolwire-", 0), 0u);
  EXPECT_EQ(std::get<ir::TextDelta>(r.events[1]).text, "x");
  const auto& start = std::get<ir::ToolCallStart>(r.events[2]);
  EXPECT_EQ(start.index, 2);
  EXPECT_EQ(start.id.rfind("call_toolwire_", 0), 0u);
  EXPECT_EQ(r.events[3], ir::StreamEvent(ir::ToolCallDelta{2, "{}"}));
  EXPECT_EQ(std::get<ir::Finish>(r.events[5]).reason.kind, ir::FinishReason::Kind::tool_calls);
  std::vector<std::string> codes;
  for (const auto& x : w) codes.push_back(x.code);
  EXPECT_EQ(codes, (std::vector<std::string>{
                       "synthesized_message_start", "dropped_thinking_signature",
                       "synthesized_tool_call_start", "synthesized_call_id", "event_after_end"}));
}

// The `data:` payloads of an SSE body.
std::vector<std::string> data_lines(const std::string& sse) {
  std::vector<std::string> out;
  size_t pos = 0;
  while ((pos = sse.find("data: ", pos)) != std::string::npos) {
    const size_t end = sse.find('\n', pos);
    out.push_back(sse.substr(pos + 6, end - pos - 6));
    pos = end;
  }
  return out;
}

std::string chunk(const std::string& choices, const std::string& extra = "") {
  return R"({"id":"c","object":"chat.completion.chunk","created":1,"model":"m",)" + extra +
         R"("choices":)" + choices + "}";
}
std::string choice(const std::string& delta, const std::string& logprobs = "null",
                   const std::string& finish = "null", int index = 0) {
  return R"({"index":)" + std::to_string(index) + R"(,"delta":)" + delta + R"(,"logprobs":)" +
         logprobs + R"(,"finish_reason":)" + finish + "}";
}

// delta.refusal is a refusal delta: an `openai` client gets it back as
// delta.refusal (and the whole answer's message.refusal), the others drop it
// with the warning the whole response gives.
TEST(OpenAiStreamGaps, RefusalSurvivesSameDialectAndWarnsElsewhere) {
  const std::string sse =
      sse_from_chunks({chunk("[" + choice(R"({"role":"assistant","refusal":""})") + "]"),
                       chunk("[" + choice(R"({"refusal":"I can't"})") + "]"),
                       chunk("[" + choice("{}", "null", R"("stop")") + "]")});
  auto r = decode_stream(sse);
  ASSERT_TRUE(r.status.ok()) << r.status.error().to_string();
  EXPECT_TRUE(r.warnings.empty()) << testing::warnings_text(r.warnings);
  ASSERT_EQ(r.events.size(), 3u) << describe(r.events);
  const auto& refusal = std::get<ir::TextDelta>(r.events[1]);
  EXPECT_TRUE(refusal.refusal);
  EXPECT_EQ(refusal.text, "I can't");

  Warnings same;
  const std::string again = testing::encode_stream(openai(), r.events, &same);
  EXPECT_TRUE(same.empty()) << testing::warnings_text(same);
  EXPECT_NE(again.find(R"("delta":{"refusal":"I can't"})"), std::string::npos) << again;
  EXPECT_EQ(decode_stream(again).events, r.events);

  // The accumulated answer holds it as the whole response's decoder does.
  ir::StreamAccumulator acc;
  for (const auto& e : r.events) acc.add(e);
  Warnings ww;
  auto whole = openai().encode_response(std::move(acc).take(), ww);
  ASSERT_TRUE(whole.ok());
  EXPECT_EQ(json::parse(*whole)["choices"][0]["message"]["refusal"], "I can't") << *whole;

  // A Responses client gets refusal events
  // (ResponsesStreamGaps.ChatRefusalIsWrittenAsRefusalEvents).
  for (const char* other : {"anthropic_messages", "gemini", "bedrock_converse"}) {
    Warnings w;
    const std::string out = testing::encode_stream(*find_codec(other), r.events, &w);
    EXPECT_TRUE(has_warning(w, "dropped_unknown_part", "$.choices[0].delta.refusal"))
        << other << ": " << testing::warnings_text(w);
    EXPECT_EQ(out.find("I can't"), std::string::npos) << other << ": " << out;
  }
}

// choices[0].logprobs of a chunk ride on its text delta: written back into an
// `openai` stream, dropped with a warning at their path by the others.
TEST(OpenAiStreamGaps, LogprobsSurviveSameDialectAndWarnElsewhere) {
  const std::string lp =
      R"({"content":[{"token":"Hi","logprob":-0.5,"bytes":[72,105],"top_logprobs":[]}],"refusal":null})";
  const std::string sse =
      sse_from_chunks({chunk("[" + choice(R"({"role":"assistant","content":""})") + "]"),
                       chunk("[" + choice(R"({"content":"Hi"})", lp) + "]"),
                       chunk("[" + choice("{}", "null", R"("stop")") + "]")});
  auto r = decode_stream(sse);
  ASSERT_TRUE(r.status.ok()) << r.status.error().to_string();
  EXPECT_TRUE(r.warnings.empty()) << testing::warnings_text(r.warnings);
  ASSERT_EQ(r.events.size(), 3u) << describe(r.events);
  const auto& text = std::get<ir::TextDelta>(r.events[1]);
  EXPECT_EQ(text.text, "Hi");
  EXPECT_FALSE(text.refusal);
  EXPECT_EQ(json::parse(text.logprobs), json::parse(lp));

  Warnings same;
  const std::string again = testing::encode_stream(openai(), r.events, &same);
  EXPECT_TRUE(same.empty()) << testing::warnings_text(same);
  bool found = false;
  for (const auto& line : data_lines(again)) {
    json c = json::parse(line, nullptr, false);
    if (c.is_object() && c["choices"].size() == 1 && c["choices"][0]["delta"].contains("content") &&
        c["choices"][0]["delta"]["content"] == "Hi") {
      EXPECT_EQ(c["choices"][0]["logprobs"], json::parse(lp)) << line;
      found = true;
    }
  }
  EXPECT_TRUE(found) << again;
  EXPECT_EQ(decode_stream(again).events, r.events);

  for (const char* other :
       {"anthropic_messages", "openai_responses", "gemini", "bedrock_converse"}) {
    Warnings w;
    const std::string out = testing::encode_stream(*find_codec(other), r.events, &w);
    EXPECT_TRUE(has_warning(w, "dropped_unknown_field", "$.choices[0].logprobs"))
        << other << ": " << testing::warnings_text(w);
    EXPECT_NE(out.find("Hi"), std::string::npos) << other << ": " << out;  // the text stays
  }
}

// What a chunk says that no event carries is warned about at the path the
// whole response keeps it at, once per stream. The first chunk's envelope
// members (`system_fingerprint`, `service_tier`) ride on the MessageStart
// instead: not warned, written back into every chunk of an `openai` stream,
// dropped with the whole response's warning by the others.
TEST(OpenAiStreamGaps, UncarriedMembersWarnOnce) {
  const std::string two = "[" + choice(R"({"audio":{"id":"a1","transcript":"hi"}})") + "," +
                          choice(R"({"content":"other"})", "null", "null", 1) + "]";
  const std::string extra = R"("system_fingerprint":"fp","service_tier":"default",)";
  const std::string sse = sse_from_chunks(
      {chunk(two, extra), chunk(two, extra), chunk("[" + choice("{}", "null", R"("stop")") + "]")});
  auto r = decode_stream(sse);
  ASSERT_TRUE(r.status.ok()) << r.status.error().to_string();
  EXPECT_EQ(r.warnings.size(), 2u) << testing::warnings_text(r.warnings);
  EXPECT_TRUE(has_warning(r.warnings, "dropped_unknown_field", "$.choices[0].message.audio"));
  EXPECT_TRUE(has_warning(r.warnings, "dropped_extra_choices", "$.choices"));
  for (const auto& e : r.events)
    EXPECT_FALSE(std::holds_alternative<ir::TextDelta>(e)) << describe(r.events);
  // A member a later chunk adds has no event: warned.
  auto later = decode_stream(
      sse_from_chunks({chunk("[" + choice("{}") + "]"), chunk("[" + choice("{}") + "]", extra),
                       chunk("[" + choice("{}", "null", R"("stop")") + "]")}));
  ASSERT_TRUE(later.status.ok());
  EXPECT_TRUE(has_warning(later.warnings, "dropped_unknown_field", "$.system_fingerprint"));
  EXPECT_TRUE(has_warning(later.warnings, "dropped_unknown_field", "$.service_tier"));
}

TEST(OpenAiStreamGaps, EnvelopeMembersSurviveSameDialectAndWarnElsewhere) {
  auto f = decode_stream(text_stream());  // the recorded API stream: its system_fingerprint
  ASSERT_TRUE(f.status.ok());
  EXPECT_TRUE(f.warnings.empty()) << testing::warnings_text(f.warnings);
  const std::string extra = R"("service_tier":"default","system_fingerprint":"fp",)";
  auto r =
      decode_stream(sse_from_chunks({chunk("[" + choice(R"({"content":"Hi"})") + "]", extra),
                                     chunk("[" + choice("{}", "null", R"("stop")") + "]", extra)}));
  ASSERT_TRUE(r.status.ok());
  EXPECT_TRUE(r.warnings.empty()) << testing::warnings_text(r.warnings);

  Warnings same;
  const std::string again = testing::encode_stream(openai(), r.events, &same);
  EXPECT_TRUE(same.empty()) << testing::warnings_text(same);
  for (const auto& line : data_lines(again)) {
    if (line == "[DONE]") continue;
    json c = json::parse(line);
    EXPECT_EQ(c["system_fingerprint"], "fp") << line;
    EXPECT_EQ(c["service_tier"], "default") << line;
  }
  EXPECT_EQ(decode_stream(again).events, r.events);
  // The folded answer keeps them as the whole response does.
  ir::StreamAccumulator acc;
  for (const auto& e : r.events) acc.add(e);
  Warnings ww;
  auto whole = openai().encode_response(std::move(acc).take(), ww);
  ASSERT_TRUE(whole.ok());
  EXPECT_EQ(json::parse(*whole)["system_fingerprint"], "fp") << *whole;

  for (const char* other :
       {"anthropic_messages", "openai_responses", "gemini", "bedrock_converse"}) {
    Warnings w;
    const std::string out = testing::encode_stream(*find_codec(other), r.events, &w);
    EXPECT_TRUE(has_warning(w, "dropped_unknown_field", "$.system_fingerprint"))
        << other << ": " << testing::warnings_text(w);
    EXPECT_TRUE(has_warning(w, "dropped_unknown_field", "$.service_tier"))
        << other << ": " << testing::warnings_text(w);
  }
}

// The usage chunk's details no IR count holds (accepted / rejected
// prediction tokens, audio tokens) ride on the UsageEvent as the whole
// response keeps them: an `openai` stream writes them back, the folded answer
// keeps them, the others drop them with the whole response's warning.
TEST(OpenAiStreamGaps, UsageDetailsSurviveSameDialectAndWarnElsewhere) {
  const std::string usage =
      R"({"id":"c","object":"chat.completion.chunk","created":1,"model":"m","choices":[],)"
      R"("usage":{"prompt_tokens":9,"completion_tokens":4,"total_tokens":13,)"
      R"("prompt_tokens_details":{"cached_tokens":2,"audio_tokens":3},)"
      R"("completion_tokens_details":{"reasoning_tokens":0,"audio_tokens":0,)"
      R"("accepted_prediction_tokens":1,"rejected_prediction_tokens":2}}})";
  auto r =
      decode_stream(sse_from_chunks({chunk("[" + choice(R"({"content":"Hi"})") + "]"),
                                     chunk("[" + choice("{}", "null", R"("stop")") + "]"), usage}));
  ASSERT_TRUE(r.status.ok()) << r.status.error().to_string();
  EXPECT_TRUE(r.warnings.empty()) << testing::warnings_text(r.warnings);

  const json want = json::parse(usage)["usage"];
  Warnings same;
  const std::string again = testing::encode_stream(openai(), r.events, &same);
  EXPECT_TRUE(same.empty()) << testing::warnings_text(same);
  bool found = false;
  for (const auto& line : data_lines(again)) {
    json c = json::parse(line, nullptr, false);
    if (c.is_object() && c.contains("usage")) {
      EXPECT_EQ(c["usage"], want) << line;
      found = true;
    }
  }
  EXPECT_TRUE(found) << again;
  EXPECT_EQ(decode_stream(again).events, r.events);

  ir::StreamAccumulator acc;
  for (const auto& e : r.events) acc.add(e);
  Warnings ww;
  auto whole = openai().encode_response(std::move(acc).take(), ww);
  ASSERT_TRUE(whole.ok());
  EXPECT_EQ(json::parse(*whole)["usage"], want) << *whole;

  for (const char* other :
       {"anthropic_messages", "openai_responses", "gemini", "bedrock_converse"}) {
    Warnings w;
    testing::encode_stream(*find_codec(other), r.events, &w);
    EXPECT_TRUE(has_warning(w, "dropped_unknown_field", "$.usage.completion_tokens_details"))
        << other << ": " << testing::warnings_text(w);
    EXPECT_TRUE(
        has_warning(w, "dropped_unknown_field", "$.usage.prompt_tokens_details.audio_tokens"))
        << other << ": " << testing::warnings_text(w);
  }
}

// A folded stream (the gateway's stored or server-mode answer) keeps the
// chunks' logprobs as the whole response keeps them: one choices[0].logprobs.
TEST(OpenAiStreamGaps, LogprobsSurviveTheFoldedAnswer) {
  const std::string a = R"({"token":"Hi","logprob":-0.5,"bytes":[72,105],"top_logprobs":[]})";
  const std::string b = R"({"token":"!","logprob":-0.1,"bytes":[33],"top_logprobs":[]})";
  auto r = decode_stream(sse_from_chunks(
      {chunk("[" + choice(R"({"content":"Hi"})", R"({"content":[)" + a + R"(],"refusal":null})") +
             "]"),
       chunk("[" + choice(R"({"content":"!"})", R"({"content":[)" + b + R"(],"refusal":null})") +
             "]"),
       chunk("[" + choice("{}", "null", R"("stop")") + "]")}));
  ASSERT_TRUE(r.status.ok()) << r.status.error().to_string();
  ir::StreamAccumulator acc;
  for (const auto& e : r.events) acc.add(e);
  ir::Response folded = std::move(acc).take();
  Warnings ww;
  auto whole = openai().encode_response(folded, ww);
  ASSERT_TRUE(whole.ok());
  EXPECT_TRUE(ww.empty()) << testing::warnings_text(ww);
  EXPECT_EQ(json::parse(*whole)["choices"][0]["logprobs"],
            json::parse(R"({"content":[)" + a + "," + b + R"(],"refusal":null})"))
      << *whole;
  Warnings other;
  ASSERT_TRUE(find_codec("anthropic_messages")->encode_response(folded, other).ok());
  EXPECT_TRUE(has_warning(other, "dropped_unknown_field", "$.choices[0].logprobs"))
      << testing::warnings_text(other);
}

}  // namespace
}  // namespace toolwire::dialects::openai_chat_test
