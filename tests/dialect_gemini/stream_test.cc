// Gemini streamGenerateContent?alt=sse: a stream in the API's shape, decoded
// at every cut; the encoder's chunks; calls buffered whole; errors and bad
// input.
#include <gtest/gtest.h>

#include <random>

#include "test_util.h"
#include "toolwire/ir/accumulator.h"

namespace toolwire::dialects::gemini_test {
namespace {

using ir::StreamEvent;
using nlohmann::json;
using Kind = ir::FinishReason::Kind;

// Written in the shape the API documents for alt=sse (each event a whole
// GenerateContentResponse, CRLF-framed), with Gemini 2's id-less calls.
const std::string kStream =
    "data: {\"candidates\": [{\"content\": {\"parts\": [{\"text\": \"I'll check\"}],\"role\": "
    "\"model\"},\"index\": 0}],\"usageMetadata\": {\"promptTokenCount\": 30,\"totalTokenCount\": "
    "30},\"modelVersion\": \"gemini-2.5-flash\",\"responseId\": \"r1\"}\r\n\r\n"
    "data: {\"candidates\": [{\"content\": {\"parts\": [{\"text\": \" both cities.\"}],\"role\": "
    "\"model\"},\"index\": 0}],\"usageMetadata\": {\"promptTokenCount\": 30,\"totalTokenCount\": "
    "30},\"modelVersion\": \"gemini-2.5-flash\",\"responseId\": \"r1\"}\r\n\r\n"
    "data: {\"candidates\": [{\"content\": {\"parts\": [{\"functionCall\": {\"name\": "
    "\"get_weather\",\"args\": {\"city\": \"Paris\"}},\"thoughtSignature\": \"c2ln\"},"
    "{\"functionCall\": {\"name\": \"get_weather\",\"args\": {\"city\": \"Rome\"}}}],\"role\": "
    "\"model\"},\"finishReason\": \"STOP\",\"index\": 0}],\"usageMetadata\": "
    "{\"promptTokenCount\": 30,\"candidatesTokenCount\": 25,\"totalTokenCount\": 55},"
    "\"modelVersion\": \"gemini-2.5-flash\",\"responseId\": \"r1\"}\r\n\r\n";

std::vector<StreamEvent> expected() {
  const std::vector<StreamEvent> events = testing::decode_stream_events(codec(), kStream);
  // The ids the model did not give: synthesized, and the same every time.
  std::string id0, id1;
  for (const auto& e : events)
    if (auto* s = std::get_if<ir::ToolCallStart>(&e)) (s->index == 0 ? id0 : id1) = s->id;
  EXPECT_TRUE(id0.starts_with("call_"));
  EXPECT_NE(id0, id1);
  return {ir::MessageStart{"r1", "gemini-2.5-flash", 0},
          ir::TextDelta{"I'll check"},
          usage(30, std::nullopt),
          ir::TextDelta{" both cities."},
          ir::ToolCallStart{0, id0, "get_weather", "c2ln"},
          ir::ToolCallDelta{0, R"({"city":"Paris"})"},
          ir::ToolCallEnd{0},
          ir::ToolCallStart{1, id1, "get_weather", ""},
          ir::ToolCallDelta{1, R"({"city":"Rome"})"},
          ir::ToolCallEnd{1},
          usage(30, 25),
          ir::Finish{{Kind::tool_calls, "STOP"}}};
}

TEST(GeminiStream, DecodesToExactEvents) {
  auto events = testing::decode_stream_events(codec(), kStream);
  EXPECT_EQ(events, expected()) << describe(events);
}

TEST(GeminiStream, SameEventsAtEveryCut) {
  const auto want = expected();
  for (size_t i = 0; i <= kStream.size(); ++i)
    ASSERT_EQ(testing::decode_stream_events(codec(), kStream, {i}), want) << "split at " << i;
  std::vector<size_t> every;
  for (size_t i = 1; i < kStream.size(); ++i) every.push_back(i);
  EXPECT_EQ(testing::decode_stream_events(codec(), kStream, every), want);
  std::mt19937 rng(7);
  for (int round = 0; round < 50; ++round) {
    std::vector<size_t> cuts;
    for (size_t i = 1; i < kStream.size(); ++i)
      if (rng() % 9 == 0) cuts.push_back(i);
    ASSERT_EQ(testing::decode_stream_events(codec(), kStream, cuts), want) << "round " << round;
  }
}

TEST(GeminiStream, SameIdsAsTheWholeResponse) {
  // The same answer, not streamed: the same synthesized ids.
  const std::string body =
      R"({"candidates":[{"content":{"role":"model","parts":[{"text":"I'll check both cities."},
      {"functionCall":{"name":"get_weather","args":{"city": "Paris"}},"thoughtSignature":"c2ln"},
      {"functionCall":{"name":"get_weather","args":{"city":"Rome"}}}]},"finishReason":"STOP"}],
      "responseId":"r1"})";
  Warnings w;
  auto r = codec().decode_response(body, w);
  ASSERT_TRUE(r);
  ir::StreamAccumulator acc;
  for (const auto& e : testing::decode_stream_events(codec(), kStream)) acc.add(e);
  ir::Response streamed = std::move(acc).take();
  EXPECT_EQ(std::get<ir::ToolCallPart>(r->parts.at(1)).id,
            std::get<ir::ToolCallPart>(streamed.parts.at(1)).id);
  EXPECT_EQ(std::get<ir::ToolCallPart>(r->parts.at(2)).id,
            std::get<ir::ToolCallPart>(streamed.parts.at(2)).id);
}

TEST(GeminiStream, EncoderWritesTheApisChunksAndRoundTrips) {
  const auto events = expected();
  Warnings w;
  const std::string sse = testing::encode_stream(codec(), events, &w);
  EXPECT_TRUE(w.empty()) << warnings_text(w);
  // Every event: "data: <one JSON object>\r\n\r\n".
  size_t at = 0, chunks = 0;
  while (at < sse.size()) {
    ASSERT_EQ(sse.compare(at, 6, "data: "), 0) << sse.substr(at);
    const size_t end = sse.find("\r\n\r\n", at);
    ASSERT_NE(end, std::string::npos);
    json chunk = parse(sse.substr(at + 6, end - at - 6));
    EXPECT_EQ(chunk["responseId"], "r1");
    EXPECT_EQ(chunk["modelVersion"], "gemini-2.5-flash");
    at = end + 4;
    ++chunks;
  }
  EXPECT_EQ(chunks, 5u);  // two texts, two calls, the finish
  // Usage rides on every chunk once known, as the API sends it: the same
  // response, usage events where the chunks carry a change.
  auto accumulate = [](const std::vector<StreamEvent>& ev) {
    ir::StreamAccumulator acc;
    for (const auto& e : ev) acc.add(e);
    return std::move(acc).take();
  };
  const auto back = testing::decode_stream_events(codec(), sse);
  EXPECT_EQ(accumulate(back), accumulate(events)) << sse;
}

TEST(GeminiStream, CallArgumentsAreBufferedUntilTheCallIsWhole) {
  std::vector<StreamEvent> events = {ir::MessageStart{"m", "x", 0},
                                     ir::ToolCallStart{0, "call_a", "f", ""},
                                     ir::ToolCallStart{1, "call_b", "g", ""},
                                     ir::ToolCallDelta{0, "{\"a\""},
                                     ir::ToolCallDelta{1, "{\"b\":"},
                                     ir::ToolCallDelta{0, ":1}"},
                                     ir::ToolCallEnd{0},
                                     ir::ToolCallDelta{1, "2}"},
                                     ir::ToolCallEnd{1},
                                     ir::Finish{{Kind::tool_calls, "tool_calls"}}};
  dialects::Codec const& c = codec();
  auto enc = c.make_stream_encoder();
  std::string out;
  for (size_t i = 0; i + 1 < events.size(); ++i) enc->encode(events[i], out);
  EXPECT_EQ(out, "");  // nothing whole yet: Gemini sends calls whole
  enc->encode(events.back(), out);
  auto back = testing::decode_stream_events(codec(), out);
  ASSERT_EQ(back.size(), 8u) << describe(back);
  EXPECT_EQ(back[1], (StreamEvent{ir::ToolCallStart{0, "call_a", "f", ""}}));
  EXPECT_EQ(back[2], (StreamEvent{ir::ToolCallDelta{0, R"({"a":1})"}}));
  EXPECT_EQ(back[5], (StreamEvent{ir::ToolCallDelta{1, R"({"b":2})"}}));
  EXPECT_EQ(std::get<ir::Finish>(back.back()).reason.kind, Kind::tool_calls);
  // Pretty-printed arguments still make one data line.
  std::string pretty = testing::encode_stream(
      codec(), {ir::MessageStart{}, ir::ToolCallStart{0, "i", "f", ""},
                ir::ToolCallDelta{0, "{\n  \"a\": 1\n}"}, ir::ToolCallEnd{0}, ir::Finish{}});
  EXPECT_EQ(
      std::get<ir::ToolCallDelta>(testing::decode_stream_events(codec(), pretty).at(2)).fragment,
      R"({"a":1})");
}

TEST(GeminiStream, ThoughtsAndSignatures) {
  const std::string sse =
      "data: {\"candidates\":[{\"content\":{\"parts\":[{\"text\":\"hmm\",\"thought\":true}],"
      "\"role\":\"model\"}}]}\r\n\r\n"
      "data: {\"candidates\":[{\"content\":{\"parts\":[{\"text\":\"Hi\"}],\"role\":\"model\"}}]}"
      "\r\n\r\n"
      "data: {\"candidates\":[{\"content\":{\"parts\":[{\"text\":\"\",\"thoughtSignature\":"
      "\"U0lH\"}],\"role\":\"model\"},\"finishReason\":\"STOP\"}]}\r\n\r\n";
  auto events = testing::decode_stream_events(codec(), sse);
  ASSERT_EQ(events.size(), 5u) << describe(events);
  EXPECT_EQ(std::get<ir::ThinkingDelta>(events[1]).text, "hmm");
  EXPECT_EQ(std::get<ir::TextDelta>(events[2]).text, "Hi");
  EXPECT_EQ(std::get<ir::ThinkingDelta>(events[3]).signature, "U0lH");
  EXPECT_EQ(testing::decode_stream_events(codec(), testing::encode_stream(codec(), events)),
            events);
}

TEST(GeminiStream, ErrorsAndBlocks) {
  auto events = testing::decode_stream_events(
      codec(),
      "data: {\"error\":{\"code\":503,\"message\":\"The model is overloaded.\",\"status\":"
      "\"UNAVAILABLE\"}}\r\n\r\n");
  ASSERT_EQ(events.size(), 1u);
  EXPECT_EQ(events[0], (StreamEvent{ir::ErrorEvent{"UNAVAILABLE", "The model is overloaded."}}));
  json err = parse(testing::encode_stream(codec(), events).substr(6));
  EXPECT_EQ(err["error"]["code"], 503);
  EXPECT_EQ(err["error"]["status"], "UNAVAILABLE");
  auto blocked = testing::decode_stream_events(
      codec(),
      "data: {\"promptFeedback\":{\"blockReason\":\"PROHIBITED_CONTENT\"},\"usageMetadata\":"
      "{\"promptTokenCount\":5}}\r\n\r\n");
  ASSERT_EQ(blocked.size(), 3u) << describe(blocked);
  EXPECT_EQ(std::get<ir::Finish>(blocked[2]).reason.kind, Kind::content_filter);
  EXPECT_EQ(std::get<ir::Finish>(blocked[2]).reason.raw, "PROHIBITED_CONTENT");
  auto length = testing::decode_stream_events(
      codec(),
      "data: {\"candidates\":[{\"content\":{\"parts\":[{\"text\":\"cut\"}]},\"finishReason\":"
      "\"MAX_TOKENS\"}]}\n\n");
  EXPECT_EQ(std::get<ir::Finish>(length.back()).reason.kind, Kind::length);
}

// The fast path (text chunks whose bytes around the text repeat) gives the
// events the full path gives: each chunk decoded alone, by a fresh decoder,
// never meets a template.
TEST(GeminiStream, FastPathDecodesLikeTheFullPath) {
  auto text_chunk = [](const std::string& body, const std::string& usage) {
    return "data: {\"candidates\": [{\"content\": {\"parts\": [{\"text\": \"" + body +
           "\"}],\"role\": \"model\"},\"index\": 0}],\"usageMetadata\": {\"promptTokenCount\": " +
           usage + "},\"modelVersion\": \"gemini-2.5-flash\",\"responseId\": \"r9\"}\r\n\r\n";
  };
  const std::vector<std::string> chunks = {
      text_chunk("first", "5"),
      text_chunk("second", "5"),
      text_chunk("third, same envelope", "5"),
      text_chunk("with \\\"escapes\\\" and \\n", "5"),  // full path
      text_chunk("naïve 🙂", "5"),
      text_chunk("", "5"),
      text_chunk("\"},{\"text\": \"y", "5"),  // two parts: the full path reads both
      text_chunk("usage changed", "6"),
      text_chunk("after", "6"),
      "data: {\"candidates\": [{\"content\": {\"parts\": [{\"text\": \"end\"}],\"role\": "
      "\"model\"},\"finishReason\": \"STOP\",\"index\": 0}],\"usageMetadata\": "
      "{\"promptTokenCount\": 6},\"modelVersion\": \"gemini-2.5-flash\",\"responseId\": "
      "\"r9\"}\r\n\r\n"};
  std::string sse;
  for (const auto& c : chunks) sse += c;
  auto content = [](std::vector<StreamEvent> ev) {
    std::erase_if(ev, [](const StreamEvent& e) {
      return std::holds_alternative<ir::MessageStart>(e) ||
             std::holds_alternative<ir::UsageEvent>(e);
    });
    return ev;
  };
  std::vector<StreamEvent> reference;
  for (const auto& c : chunks) {
    auto dec = codec().make_stream_decoder();
    std::vector<StreamEvent> ev;
    ASSERT_TRUE(dec->feed(c, ev).ok()) << c;
    for (auto& e : content(ev)) reference.push_back(std::move(e));
  }
  for (size_t cut : {size_t{0}, size_t{1}, sse.size() / 3, sse.size() - 1}) {
    auto events = testing::decode_stream_events(codec(), sse, {cut});
    EXPECT_EQ(content(events), reference) << describe(events);
    size_t usages = 0;
    for (const auto& e : events) usages += std::holds_alternative<ir::UsageEvent>(e);
    EXPECT_EQ(usages, 2u) << describe(events);  // 5, then 6
  }
}

TEST(GeminiStream, TruncatedAndBadStreamsFail) {
  Status st;
  testing::decode_stream_events(codec(), kStream.substr(0, kStream.size() / 2), {}, &st);
  ASSERT_FALSE(st.ok());
  EXPECT_EQ(st.error().code, ErrorCode::parse_error);
  const size_t second = kStream.find("data: ", 1);
  testing::decode_stream_events(codec(), kStream.substr(0, second), {},
                                &st);  // whole chunks, but no finishReason
  ASSERT_FALSE(st.ok());
  EXPECT_NE(st.error().message.find("finishReason"), std::string::npos) << st.error().to_string();
  testing::decode_stream_events(codec(), "data: {\"candidates\": [\r\n\r\n", {}, &st);
  ASSERT_FALSE(st.ok());
  EXPECT_NE(st.error().message.find("in chunk 0"), std::string::npos) << st.error().to_string();
  testing::decode_stream_events(
      codec(),
      "data: {\"candidates\":[{\"content\":{\"parts\":[{\"functionCall\":{\"name\":\"f\","
      "\"args\":[]}}]}}]}\r\n\r\n",
      {}, &st);
  ASSERT_FALSE(st.ok());
  EXPECT_EQ(st.error().path, "$.candidates[0].content.parts[0].functionCall.args");
}

// What a Gemini stream chunk says that no event carries (the candidate's
// safety ratings, grounding, finish message; a part other than text, thought
// or call; a second candidate) is warned about once each, at the
// path the whole response keeps it at; the text still goes through.
TEST(GeminiStreamGaps, UncarriedMembersAndPartsWarnOnce) {
  const std::string ratings =
      R"("safetyRatings":[{"category":"HARM_CATEGORY_HARASSMENT","probability":"NEGLIGIBLE"}])";
  const std::string sse =
      "data: {\"candidates\":[{\"content\":{\"parts\":[{\"text\":\"Hi\"}],\"role\":\"model\"},"
      "\"index\":0," +
      ratings +
      "},{\"content\":{\"parts\":[{\"text\":\"other\"}],\"role\":"
      "\"model\"},\"index\":1}],\"modelVersion\":\"g\",\"responseId\":\"r1\",\"createTime\":"
      "\"2026-11-27T00:00:00Z\"}\n\n"
      "data: {\"candidates\":[{\"content\":{\"parts\":[{\"text\":\" there\"},{\"inlineData\":"
      "{\"mimeType\":\"image/png\",\"data\":\"AAAA\"}}],\"role\":\"model\"},\"index\":0," +
      ratings +
      "}],\"modelVersion\":\"g\",\"responseId\":\"r1\"}\n\n"
      "data: {\"candidates\":[{\"content\":{\"parts\":[{\"text\":\"!\"}],\"role\":\"model\"},"
      "\"finishReason\":\"STOP\",\"finishMessage\":\"done\",\"groundingMetadata\":"
      "{\"webSearchQueries\":[\"q\"]},\"index\":0," +
      ratings +
      "}],\"modelVersion\":\"g\","
      "\"responseId\":\"r1\"}\n\n";
  for (size_t chunk : {size_t{0}, size_t{7}}) {
    auto r = testing::decode_stream_chunked(codec(), sse, chunk);
    ASSERT_TRUE(r.status.ok()) << r.status.error().to_string();
    // The candidate's members ride on the Finish (GeminiStreamGaps.CandidateMembers...).
    EXPECT_EQ(r.warnings.size(), 2u) << warnings_text(r.warnings);
    // createTime is the MessageStart's `created` (gap 17).
    const auto* start = std::get_if<ir::MessageStart>(&r.events.front());
    ASSERT_TRUE(start);
    EXPECT_EQ(start->created, 1795737600);
    EXPECT_TRUE(has_warning(r.warnings, "dropped_extra_candidates", "$.candidates"));
    EXPECT_TRUE(
        has_warning(r.warnings, "dropped_unknown_part", "$.candidates[0].content.parts[1]"));
    std::string text;
    for (const auto& e : r.events)
      if (auto* t = std::get_if<ir::TextDelta>(&e)) text += t->text;
    EXPECT_EQ(text, "Hi there!");
  }
  // A plain stream warns about nothing.
  auto plain = testing::decode_stream(codec(), kStream, {});
  EXPECT_TRUE(plain.warnings.empty()) << warnings_text(plain.warnings);
}

// A candidate's members no event field models (safetyRatings,
// groundingMetadata, finishMessage...) ride on the Finish, the last value of
// each, as the whole response keeps them: a `gemini` stream writes them back
// into its last candidate, a folded answer keeps them, the others drop them
// with the whole response's warning.
TEST(GeminiStreamGaps, CandidateMembersSurviveSameDialectAndWarnElsewhere) {
  const std::string ratings =
      R"("safetyRatings":[{"category":"HARM_CATEGORY_HARASSMENT","probability":"NEGLIGIBLE"}])";
  const std::string sse =
      "data: {\"candidates\":[{\"content\":{\"parts\":[{\"text\":\"Hi\"}],\"role\":\"model\"},"
      "\"index\":0,\"safetyRatings\":[]}],\"modelVersion\":\"g\",\"responseId\":\"r1\"}\n\n"
      "data: {\"candidates\":[{\"content\":{\"parts\":[{\"text\":\"!\"}],\"role\":\"model\"},"
      "\"finishReason\":\"STOP\",\"finishMessage\":\"done\",\"index\":0," +
      ratings + "}],\"modelVersion\":\"g\",\"responseId\":\"r1\"}\n\n";
  auto r = testing::decode_stream(codec(), sse, {});
  ASSERT_TRUE(r.status.ok()) << r.status.error().to_string();
  EXPECT_TRUE(r.warnings.empty()) << warnings_text(r.warnings);

  Warnings same;
  const std::string again = testing::encode_stream(codec(), r.events, &same);
  EXPECT_TRUE(same.empty()) << warnings_text(same);
  EXPECT_NE(again.find(ratings), std::string::npos) << again;
  EXPECT_NE(again.find(R"("finishMessage":"done")"), std::string::npos) << again;
  EXPECT_EQ(testing::decode_stream_events(codec(), again).back(), r.events.back());

  ir::StreamAccumulator acc;
  for (const auto& e : r.events) acc.add(e);
  Warnings ww;
  auto whole = codec().encode_response(std::move(acc).take(), ww);
  ASSERT_TRUE(whole.ok());
  EXPECT_NE(whole->find(ratings), std::string::npos) << *whole;

  for (const char* other :
       {"openai_chat", "anthropic_messages", "openai_responses", "bedrock_converse"}) {
    Warnings w;
    testing::encode_stream(*find_codec(other), r.events, &w);
    EXPECT_TRUE(has_warning(w, "dropped_unknown_field", "$.candidates[0].safetyRatings"))
        << other << ": " << warnings_text(w);
    EXPECT_TRUE(has_warning(w, "dropped_unknown_field", "$.candidates[0].finishMessage"))
        << other << ": " << warnings_text(w);
  }
}

}  // namespace
}  // namespace toolwire::dialects::gemini_test
