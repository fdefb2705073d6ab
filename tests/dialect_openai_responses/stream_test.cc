// openai_responses streams: the published event streams → exact IR events at
// every byte split; the encoder's framing (event names, sequence numbers,
// output_index / item_id / content_index) decodable back; errors; bad streams.
#include <gtest/gtest.h>

#include <map>
#include <random>
#include <regex>
#include <sstream>

#include "sse_respace.h"
#include "test_util.h"
#include "toolwire/ir/accumulator.h"

namespace toolwire::dialects::openai_responses_test {
namespace {

using nlohmann::json;
using Events = std::vector<ir::StreamEvent>;
using Kind = ir::FinishReason::Kind;

// The published text stream; its last event lacks the blank line that ends
// an SSE event (the example stops at the final data line): added here.
std::string text_stream() { return read_fixture("openai-responses-stream-text.sse") + "\n"; }

// `event: <type>\ndata: <json>\n\n` per JSON line.
std::string sse_of(const std::vector<std::string>& lines) {
  std::string out;
  for (const auto& line : lines)
    out += "event: " + json::parse(line)["type"].get<std::string>() + "\ndata: " + line + "\n\n";
  return out;
}

// The guide's function-call events, which have no response.created or
// response.completed: the terminal event added, as a real stream ends.
std::string tool_stream() {
  auto lines = fixture_lines("openai-responses-stream-function-call.events.jsonl");
  lines.push_back(
      R"({"type":"response.completed","response":{"id":"resp_1234xyz","object":"response","status":"completed","output":[],"usage":{"input_tokens":50,"output_tokens":18}}})");
  return sse_of(lines);
}

const Events& text_events() {
  static const Events e = {ir::MessageStart{"resp_67c9fdcecf488190bdd9a0409de3a1ec07b8b0ad4e5eb654",
                                            "gpt-5.4", 1741290958},
                           ir::TextDelta{"Hi"}, ir::UsageEvent{{37, 11, {}, {}, false}},
                           ir::Finish{{Kind::stop, "completed"}}};
  return e;
}

const Events& tool_events() {
  static const Events e = [] {
    Events ev = {ir::MessageStart{"resp_1234xyz", "", 0},
                 ir::ToolCallStart{0, "call_1234xyz", "get_weather", ""}};
    for (const char* f : {"{\"", "location", "\":\"", "Paris", ",", " France", "\"}"})
      ev.push_back(ir::ToolCallDelta{0, f});
    ev.push_back(ir::ToolCallEnd{0});
    ev.push_back(ir::UsageEvent{{50, 18, {}, {}, false}});
    ev.push_back(ir::Finish{{Kind::tool_calls, "completed"}});
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

ir::Response accumulate(const Events& events) {
  ir::StreamAccumulator acc;
  for (const auto& e : events) acc.add(e);
  return std::move(acc).take();
}

TEST(ResponsesStreamDecode, TextFixture) {
  expect_events(decode_stream(text_stream()), text_events(), "whole");
}

TEST(ResponsesStreamDecode, FunctionCallFixtureAccumulatesToThePublishedCall) {
  auto r = decode_stream(tool_stream());
  expect_events(r, tool_events(), "whole");
  ir::Response resp = accumulate(r.events);
  json acc = json::parse(read_fixture("openai-responses-stream-function-call.accumulated.json"));
  ASSERT_EQ(resp.parts.size(), 1u);
  const auto& call = std::get<ir::ToolCallPart>(resp.parts[0]);
  EXPECT_EQ(call.name, acc["name"]);
  EXPECT_EQ(call.arguments, acc["arguments"]);
  EXPECT_EQ(resp.finish.kind, Kind::tool_calls);
}

TEST(ResponsesStreamDecode, SplitAtEveryByte) {
  for (const auto& [bytes, expected] :
       {std::pair{text_stream(), text_events()}, std::pair{tool_stream(), tool_events()}}) {
    for (size_t k = 0; k <= bytes.size(); ++k)
      expect_events(decode_stream(bytes, {k}), expected, "cut " + std::to_string(k));
    std::vector<size_t> every(bytes.size());
    for (size_t i = 0; i < every.size(); ++i) every[i] = i;
    expect_events(decode_stream(bytes, every), expected, "byte by byte");
  }
}

TEST(ResponsesStreamDecode, RandomChunkings) {
  std::mt19937 rng(4242);
  const std::string bytes = tool_stream();
  for (int round = 0; round < 200; ++round) {
    std::vector<size_t> cuts;
    size_t pos = 0;
    std::uniform_int_distribution<size_t> step(1, 1 + round % 64);
    while ((pos += step(rng)) < bytes.size()) cuts.push_back(pos);
    expect_events(decode_stream(bytes, cuts), tool_events(), "round " + std::to_string(round));
  }
}

TEST(ResponsesStreamDecode, ArgumentsDoneAloneGivesTheWholeArguments) {
  // The reference's .done event (with sequence_number) after its item, no deltas.
  std::string sse = sse_of(
      {R"({"type":"response.created","sequence_number":0,"response":{"id":"r","model":"m","created_at":3}})",
       R"({"type":"response.output_item.added","sequence_number":1,"output_index":1,"item":{"type":"function_call","id":"item-abc","call_id":"call_q","name":"get_weather","arguments":""}})",
       json::parse(read_fixture("openai-responses-event-function_call_arguments.done.json")).dump(),
       R"({"type":"response.completed","sequence_number":3,"response":{"status":"completed"}})"});
  auto r = decode_stream(sse);
  ASSERT_TRUE(r.status.ok()) << r.status.error().to_string();
  ir::Response resp = accumulate(r.events);
  const auto& call = std::get<ir::ToolCallPart>(resp.parts.at(0));
  EXPECT_EQ(call.id, "call_q");
  EXPECT_EQ(call.arguments, "{ \"arg\": 123 }");
}

TEST(ResponsesStreamDecode, PublishedInvalidJsonDeltaIsAParseErrorNamingTheEvent) {
  std::string sse = "event: response.function_call_arguments.delta\n";
  std::istringstream in(
      read_fixture("openai-responses-event-function_call_arguments.delta.invalid-json.txt"));
  std::string line;
  while (std::getline(in, line)) sse += "data: " + line + "\n";
  sse += "\n";
  auto r = decode_stream(sse);
  ASSERT_FALSE(r.status.ok());
  const std::string err = r.status.error().to_string();
  EXPECT_EQ(r.status.error().code, ErrorCode::parse_error) << err;
  EXPECT_NE(err.find("response.function_call_arguments.delta"), std::string::npos) << err;
  EXPECT_NE(err.find("malformed JSON"), std::string::npos) << err;
}

TEST(ResponsesStreamDecode, ReasoningIncompleteFailedAndErrorEvents) {
  auto reasoning = decode_stream(sse_of(
      {R"({"type":"response.created","response":{"id":"r1","model":"o4"}})",
       R"({"type":"response.output_item.added","output_index":0,"item":{"type":"reasoning","id":"rs_1","summary":[]}})",
       R"({"type":"response.reasoning_summary_text.delta","item_id":"rs_1","output_index":0,"summary_index":0,"delta":"Plan"})",
       R"({"type":"response.output_item.done","output_index":0,"item":{"type":"reasoning","id":"rs_1","summary":[{"type":"summary_text","text":"Plan"}],"encrypted_content":"ENC"}})",
       R"({"type":"response.incomplete","response":{"status":"incomplete","incomplete_details":{"reason":"max_output_tokens"}}})"}));
  ASSERT_TRUE(reasoning.status.ok()) << reasoning.status.error().to_string();
  ir::Response resp = accumulate(reasoning.events);
  const auto& th = std::get<ir::ThinkingPart>(resp.parts.at(0));
  EXPECT_EQ(th.text, "Plan");
  EXPECT_EQ(th.item_id, "rs_1");
  EXPECT_EQ(th.encrypted_content, "ENC");
  EXPECT_EQ(resp.finish.kind, Kind::length);

  auto failed = decode_stream(sse_of(
      {R"({"type":"response.created","response":{"id":"r2"}})",
       R"({"type":"response.failed","response":{"status":"failed","error":{"code":"server_error","message":"boom"}}})"}));
  ASSERT_TRUE(failed.status.ok());
  EXPECT_EQ(failed.events.back(), ir::StreamEvent(ir::ErrorEvent{"server_error", "boom"}));

  auto error = decode_stream(
      "event: error\ndata: {\"type\":\"error\",\"code\":\"rate_limit_exceeded\","
      "\"message\":\"slow down\",\"param\":null,\"sequence_number\":1}\n\n");
  ASSERT_TRUE(error.status.ok());
  EXPECT_EQ(error.events, (Events{ir::ErrorEvent{"rate_limit_exceeded", "slow down"}}));
  EXPECT_EQ(find_dialect("responses")->stream_error_code("rate_limit_exceeded"),
            ErrorCode::resource_exhausted);
}

TEST(ResponsesStreamDecode, BadStreamsNameThePath) {
  const std::string created = R"({"type":"response.created","response":{"id":"r"}})";
  struct Case {
    std::vector<std::string> lines;
    const char* needle;
  };
  const Case cases[] = {
      {{created,
        R"({"type":"response.output_text.delta","item_id":"m","output_index":3,"content_index":0,"delta":"x"})"},
       "$.output_index: in 'response.output_text.delta' event: output item 3 was never added"},
      {{created,
        R"({"type":"response.output_item.added","output_index":0,"item":{"type":"message"}})",
        R"({"type":"response.function_call_arguments.delta","output_index":0,"delta":"x"})"},
       "is not a function call"},
      {{created,
        R"({"type":"response.output_item.added","output_index":0,"item":{"type":"function_call","name":"f"}})"},
       "$.item.call_id"},
      {{created,
        R"({"type":"response.output_item.added","output_index":0,"item":{"type":"message"}})",
        R"({"type":"response.output_item.added","output_index":0,"item":{"type":"message"}})"},
       "added twice"},
      {{created, R"({"type":"response.output_item.added","output_index":-1,"item":{}})"},
       "out of range"},
      {{created,
        R"({"type":"response.output_item.added","output_index":0,"item":{"type":"message"}})",
        R"({"type":"response.output_text.delta","output_index":0,"delta":5})"},
       "$.delta"},
  };
  for (const auto& c : cases) {
    auto r = decode_stream(sse_of(c.lines));
    ASSERT_FALSE(r.status.ok()) << c.needle;
    EXPECT_NE(r.status.error().to_string().find(c.needle), std::string::npos)
        << r.status.error().to_string();
  }
  // Cut before the terminal event.
  auto cut = decode_stream(sse_of({created}));
  ASSERT_FALSE(cut.status.ok());
  EXPECT_NE(cut.status.error().to_string().find("before response.completed"), std::string::npos);
  auto mid = decode_stream(sse_of({created}) + "event: response.completed\ndata: {\"ty");
  ASSERT_FALSE(mid.status.ok());
  EXPECT_NE(mid.status.error().to_string().find("inside an event"), std::string::npos);
}

// Text, reasoning, two interleaved calls, usage, finish.
const Events& rich_events() {
  static const Events e = {ir::MessageStart{"resp_x", "gpt-4.1", 1700000000},
                           ir::ThinkingDelta{"Let me", {}, false, "rs_7", {}},
                           ir::ThinkingDelta{" think", {}, false, {}, {}},
                           ir::ThinkingDelta{{}, {}, false, {}, "ENC"},
                           ir::TextDelta{"Checking "},
                           ir::TextDelta{"two \"cities\"…"},
                           ir::ToolCallStart{0, "call_a", "get_weather", ""},
                           ir::ToolCallStart{1, "call_b", "get_time", ""},
                           ir::ToolCallDelta{0, "{\"city\":"},
                           ir::ToolCallDelta{1, "{\"tz\":\"CET\"}"},
                           ir::ToolCallDelta{0, "\"Paris\"}"},
                           ir::ToolCallEnd{0},
                           ir::ToolCallEnd{1},
                           ir::UsageEvent{{120, 30, 20, {}, false}},
                           ir::Finish{{Kind::tool_calls, "tool_calls"}}};
  return e;
}

TEST(ResponsesStreamEncode, FramingSequenceNumbersAndIndexes) {
  Warnings w;
  const std::string sse = testing::encode_stream(responses(), rich_events(), &w);
  EXPECT_TRUE(w.empty()) << warnings_text(w);
  // Every event: `event: T` then `data: {"type":"T","sequence_number":n,...}`, n = 0, 1, ...
  std::istringstream in(sse);
  std::string line, name;
  int64_t expected_seq = 0;
  std::map<int, std::string> args;  // accumulated as the SDKs do: by output_index
  std::vector<std::string> types;
  json completed;
  while (std::getline(in, line)) {
    if (line.starts_with("event: ")) {
      name = line.substr(7);
      continue;
    }
    if (!line.starts_with("data: ")) continue;
    json ev = json::parse(line.substr(6));
    EXPECT_EQ(ev["type"], name);
    EXPECT_EQ(ev["sequence_number"], expected_seq++) << line;
    types.push_back(name);
    if (name == "response.output_text.delta") {
      EXPECT_TRUE(ev.contains("item_id") && ev.contains("output_index") &&
                  ev.contains("content_index"))
          << line;
    }
    if (name == "response.function_call_arguments.delta") {
      EXPECT_TRUE(ev["item_id"].get<std::string>().starts_with("fc_")) << line;
      args[ev["output_index"].get<int>()] += ev["delta"].get<std::string>();
    }
    if (name == "response.completed") completed = ev["response"];
  }
  EXPECT_EQ(types.front(), "response.created");
  EXPECT_EQ(types[1], "response.in_progress");
  EXPECT_EQ(types.back(), "response.completed");
  ASSERT_EQ(args.size(), 2u);
  EXPECT_EQ(json::parse(args[2]), json::parse(R"({"city":"Paris"})"));
  EXPECT_EQ(json::parse(args[3]), json::parse(R"({"tz":"CET"})"));
  // The final response holds every item.
  ASSERT_EQ(completed["output"].size(), 4u) << completed;
  EXPECT_EQ(completed["output"][0]["id"], "rs_7");
  EXPECT_EQ(completed["output"][0]["encrypted_content"], "ENC");
  EXPECT_EQ(completed["output"][1]["content"][0]["text"], "Checking two \"cities\"…");
  EXPECT_EQ(completed["output"][2]["arguments"], "{\"city\":\"Paris\"}");
  EXPECT_EQ(completed["output"][3]["call_id"], "call_b");
  EXPECT_EQ(completed["usage"]["input_tokens_details"]["cached_tokens"], 20);
  EXPECT_EQ(completed["status"], "completed");

  // And it decodes back to the same response, at every split.
  ir::Response want = accumulate(rich_events());
  for (size_t k = 0; k <= sse.size(); k += 7) {
    auto r = decode_stream(sse, {k});
    ASSERT_TRUE(r.status.ok()) << k << ": " << r.status.error().to_string();
    ir::Response got = accumulate(r.events);
    EXPECT_EQ(got.parts, want.parts) << k << "\n" << describe(r.events);
    EXPECT_EQ(got.usage, want.usage);
    EXPECT_EQ(got.finish.kind, Kind::tool_calls);
  }
}

TEST(ResponsesStreamEncode, LengthErrorAndWarnings) {
  const std::string incomplete = testing::encode_stream(
      responses(),
      {ir::MessageStart{"r", "m", 0}, ir::TextDelta{"cut"}, ir::Finish{{Kind::length, "length"}}});
  EXPECT_NE(incomplete.find("event: response.incomplete\n"), std::string::npos);
  auto back = decode_stream(incomplete);
  ASSERT_TRUE(back.status.ok());
  EXPECT_EQ(std::get<ir::Finish>(back.events.back()).reason.kind, Kind::length);

  const std::string err = testing::encode_stream(
      responses(), {ir::MessageStart{"r", "m", 0}, ir::ErrorEvent{"overloaded_error", "busy"}});
  EXPECT_NE(err.find("event: error\ndata: {\"type\":\"error\",\"sequence_number\":2,"
                     "\"code\":\"overloaded_error\",\"message\":\"busy\",\"param\":null}"),
            std::string::npos)
      << err;
  auto err_back = decode_stream(err);
  ASSERT_TRUE(err_back.status.ok());
  EXPECT_EQ(err_back.events.back(), ir::StreamEvent(ir::ErrorEvent{"overloaded_error", "busy"}));

  Warnings w;
  testing::encode_stream(
      responses(),
      {ir::TextDelta{"no start"}, ir::ThinkingDelta{"t", "sig", false, {}, {}},
       ir::ThinkingDelta{"data", {}, true, {}, {}}, ir::UsageEvent{{1, 1, {}, 5, false}},
       ir::Finish{}, ir::TextDelta{"late"}},
      &w);
  for (const char* code :
       {"synthesized_message_start", "dropped_thinking_signature", "dropped_redacted_thinking",
        "dropped_cache_write_tokens", "event_after_end"})
    EXPECT_TRUE(has_warning(w, code)) << code << "\n" << warnings_text(w);
}

// The encoder's own output at every byte offset: the fast path and the full
// path must agree wherever a cut falls.
TEST(ResponsesStreamEncode, OwnOutputSplitAtEveryByte) {
  const std::string sse = testing::encode_stream(responses(), rich_events());
  const auto whole = decode_stream(sse);
  ASSERT_TRUE(whole.status.ok()) << whole.status.error().to_string();
  for (size_t k = 0; k <= sse.size(); ++k) {
    auto r = decode_stream(sse, {k});
    ASSERT_TRUE(r.status.ok()) << k;
    EXPECT_EQ(r.events, whole.events) << "cut " << k;
  }
}

// The fast path (text / argument deltas in the encoder's exact layout) must
// decode exactly what the full path decodes: every stream decoded as is and
// "respaced" (a space after each ':' and ',' outside strings, which no fast
// matcher accepts) gives the same events and the same errors.
void expect_same_as_full_path(const std::string& sse, const std::string& label) {
  SCOPED_TRACE(label);
  for (size_t chunk : {size_t{0}, size_t{1}, size_t{7}, size_t{4096}}) {
    auto fast = testing::decode_stream_chunked(responses(), sse, chunk);
    auto full = testing::decode_stream_chunked(responses(), testing::respace(sse), chunk);
    EXPECT_EQ(fast.status.ok(), full.status.ok()) << chunk;
    if (!fast.status.ok() && !full.status.ok()) {  // same error; byte offsets move with spaces
      static const std::regex kAt("at byte [0-9]+ \\(line [0-9]+, column [0-9]+\\)");
      EXPECT_EQ(fast.status.error().code, full.status.error().code) << chunk;
      EXPECT_EQ(std::regex_replace(fast.status.error().message, kAt, "at <offset>"),
                std::regex_replace(full.status.error().message, kAt, "at <offset>"));
    }
    EXPECT_EQ(fast.events, full.events) << "chunk " << chunk << "\n" << describe(fast.events);
  }
}

TEST(ResponsesStreamFastPath, DecodesLikeTheFullPath) {
  EXPECT_NE(testing::respace(testing::encode_stream(responses(), rich_events())),
            testing::encode_stream(responses(), rich_events()));
  expect_same_as_full_path(text_stream(), "text fixture");
  expect_same_as_full_path(tool_stream(), "tool fixture");
  expect_same_as_full_path(testing::encode_stream(responses(), rich_events()), "rich");
  Events tricky = {ir::MessageStart{"resp_t", "m", 1}};
  const std::vector<std::string> texts = {
      "plain ",         "with \"quotes\"",       "tab\there",           "back\\slash",
      "é 中文 🙂", std::string("ctl \x01"), std::string(3000, 'x')};
  for (const auto& t : texts) tricky.push_back(ir::TextDelta{t});
  tricky.push_back(ir::ToolCallStart{0, "call_t", "write_file", ""});
  for (const auto& t : texts) tricky.push_back(ir::ToolCallDelta{0, t});
  tricky.push_back(ir::ToolCallEnd{0});
  tricky.push_back(ir::Finish{{Kind::tool_calls, ""}});
  const std::string sse = testing::encode_stream(responses(), tricky);
  expect_same_as_full_path(sse, "tricky texts");
  ir::Response r = accumulate(decode_stream(sse).events);
  std::string all;
  for (const auto& t : texts) all += t;
  EXPECT_EQ(std::get<ir::TextPart>(r.parts.at(0)).text, all);
  EXPECT_EQ(std::get<ir::ToolCallPart>(r.parts.at(1)).arguments, all);
}

TEST(ResponsesStreamFastPath, EdgeCasesGetTheFullPathsAnswer) {
  const std::string head =
      "event: response.created\ndata: {\"type\":\"response.created\",\"sequence_number\":0,"
      "\"response\":{\"id\":\"r\"}}\n\n"
      "event: response.output_item.added\ndata: {\"type\":\"response.output_item.added\","
      "\"sequence_number\":1,\"output_index\":0,\"item\":{\"type\":\"message\",\"id\":\"m\"}}\n\n";
  const std::string tail =
      "event: response.completed\ndata: {\"type\":\"response.completed\",\"sequence_number\":9,"
      "\"response\":{\"status\":\"completed\"}}\n\n";
  auto text_delta = [](std::string index, std::string delta) {
    return "event: response.output_text.delta\ndata: {\"type\":\"response.output_text.delta\","
           "\"sequence_number\":2,\"item_id\":\"m\",\"output_index\":" +
           index + ",\"content_index\":0,\"delta\":\"" + delta + "\",\"logprobs\":[]}\n\n";
  };
  const std::vector<std::string> cases = {
      text_delta("0", "ok"),
      text_delta("1", "never added"),
      text_delta("00", "leading zero"),
      text_delta("0", "bad \xff utf8"),
      text_delta("0", "esc \\u00e9"),
      "event: response.function_call_arguments.delta\ndata: {\"type\":"
      "\"response.function_call_arguments.delta\",\"sequence_number\":2,\"item_id\":\"m\","
      "\"output_index\":0,\"delta\":\"wrong kind\"}\n\n",
  };
  for (const auto& c : cases) expect_same_as_full_path(head + c + tail, c);
}

// response.refusal.delta is a refusal delta: an `openai` (Chat) client gets
// it as delta.refusal; a dialect without a refusal drops it with a warning.
TEST(ResponsesStreamGaps, RefusalCrossesToChatAndWarnsElsewhere) {
  auto r = decode_stream(sse_of(
      {R"({"type":"response.created","response":{"id":"r1","model":"m"}})",
       R"({"type":"response.output_item.added","output_index":0,"item":{"type":"message","id":"msg_1","role":"assistant","content":[]}})",
       R"({"type":"response.content_part.added","output_index":0,"content_index":0,"part":{"type":"refusal","refusal":""}})",
       R"({"type":"response.refusal.delta","output_index":0,"content_index":0,"delta":"No."})",
       R"({"type":"response.refusal.done","output_index":0,"content_index":0,"refusal":"No."})",
       R"({"type":"response.completed","response":{"status":"completed"}})"}));
  ASSERT_TRUE(r.status.ok()) << r.status.error().to_string();
  EXPECT_TRUE(r.warnings.empty()) << warnings_text(r.warnings);
  ASSERT_EQ(r.events.size(), 3u) << describe(r.events);
  const auto& refusal = std::get<ir::TextDelta>(r.events[1]);
  EXPECT_TRUE(refusal.refusal);
  EXPECT_EQ(refusal.text, "No.");

  Warnings to_chat;
  const std::string c = testing::encode_stream(chat(), r.events, &to_chat);
  EXPECT_TRUE(to_chat.empty()) << warnings_text(to_chat);
  EXPECT_NE(c.find(R"("delta":{"refusal":"No."})"), std::string::npos) << c;

  Warnings w;
  testing::encode_stream(anthropic(), r.events, &w);
  EXPECT_TRUE(has_warning(w, "dropped_unknown_part", "response.refusal.delta")) << warnings_text(w);
  Warnings same;  // the responses encoder writes it back (its usage and time besides)
  const auto back = decode_stream(testing::encode_stream(responses(), r.events, &same)).events;
  EXPECT_TRUE(same.empty()) << warnings_text(same);
  ASSERT_GE(back.size(), 2u) << describe(back);
  EXPECT_EQ(back[1], r.events[1]) << describe(back);
}

// The JSON of each `data:` line of an SSE body.
std::vector<json> data_objects(const std::string& sse) {
  std::vector<json> out;
  std::istringstream in(sse);
  for (std::string line; std::getline(in, line);)
    if (line.rfind("data: ", 0) == 0) out.push_back(json::parse(line.substr(6)));
  return out;
}

// A Chat stream's delta.refusal reaches a Responses client as the events the
// API streams for a refusal: a `refusal` content part added to the message,
// response.refusal.delta, response.refusal.done, the part done, and the part
// in the item and in response.completed; after answer text, as the next
// content part of the same message.
TEST(ResponsesStreamGaps, ChatRefusalIsWrittenAsRefusalEvents) {
  const std::string head =
      R"({"id":"c","object":"chat.completion.chunk","created":1,"model":"m","choices":[{"index":0,"delta":)";
  const std::string tail = R"(,"logprobs":null,"finish_reason":null}]})";
  std::string chat_sse;
  for (const char* delta : {R"({"role":"assistant","content":"Well. "})",
                            R"({"refusal":"I can't"})", R"({"refusal":" help."})"})
    chat_sse += "data: " + head + delta + tail + "\n\n";
  chat_sse += "data: " + head + R"({},"logprobs":null,"finish_reason":"stop"}]})" + "\n\n";
  chat_sse += "data: [DONE]\n\n";
  const auto events = testing::decode_stream_events(chat(), chat_sse);

  Warnings w;
  const std::string sse = testing::encode_stream(responses(), events, &w);
  EXPECT_TRUE(w.empty()) << warnings_text(w);
  std::vector<std::string> types;
  std::vector<json> objects = data_objects(sse);
  for (const auto& o : objects) types.push_back(o["type"]);
  EXPECT_EQ(
      types,
      (std::vector<std::string>{
          "response.created", "response.in_progress", "response.output_item.added",
          "response.content_part.added", "response.output_text.delta", "response.output_text.done",
          "response.content_part.done", "response.content_part.added", "response.refusal.delta",
          "response.refusal.delta", "response.refusal.done", "response.content_part.done",
          "response.output_item.done", "response.completed"}))
      << sse;
  const json refusal_part = {{"type", "refusal"}, {"refusal", "I can't help."}};
  for (const auto& o : objects) {
    const std::string type = o["type"];
    if (type.starts_with("response.refusal.") ||
        (type.starts_with("response.content_part.") && o["part"]["type"] == "refusal")) {
      EXPECT_EQ(o["content_index"], 1) << o.dump();
      EXPECT_EQ(o["output_index"], 0) << o.dump();
      EXPECT_EQ(o["item_id"], objects[2]["item"]["id"]) << o.dump();
    }
    if (type == "response.content_part.added" && o["content_index"] == 1) {
      EXPECT_EQ(o["part"], (json{{"type", "refusal"}, {"refusal", ""}}));
    }
    if (type == "response.refusal.delta") {
      EXPECT_TRUE(o["delta"] == "I can't" || o["delta"] == " help.") << o.dump();
    }
    if (type == "response.refusal.done") {
      EXPECT_EQ(o["refusal"], "I can't help.");
    }
    if (type == "response.content_part.done" && o["content_index"] == 1) {
      EXPECT_EQ(o["part"], refusal_part);
    }
    if (type == "response.output_item.done") {
      EXPECT_EQ(o["item"]["content"][1], refusal_part) << o.dump();
    }
    if (type == "response.completed") {
      EXPECT_EQ(o["response"]["output"][0]["content"][0]["text"], "Well. ") << o.dump();
      EXPECT_EQ(o["response"]["output"][0]["content"][1], refusal_part) << o.dump();
    }
  }
  // Read back: the same text and refusal.
  ir::Response back = accumulate(decode_stream(sse).events);
  ASSERT_EQ(back.parts.size(), 2u);
  EXPECT_EQ(std::get<ir::TextPart>(back.parts[0]).text, "Well. ");
  EXPECT_NE(std::get<ir::UnknownPart>(back.parts[1]).raw_json.find("I can't help."),
            std::string::npos);
}

// What a Responses stream says that no event carries: logprobs of a text
// delta, an annotation, raw reasoning text, a built-in tool's item; each
// warned once, with the code and path the whole response uses.
TEST(ResponsesStreamGaps, UncarriedEventsWarnAtTheWholeResponsesPath) {
  auto r = decode_stream(sse_of(
      {R"({"type":"response.created","response":{"id":"r1","model":"m"}})",
       R"({"type":"response.output_item.added","output_index":0,"item":{"type":"web_search_call","id":"ws_1","status":"in_progress"}})",
       R"({"type":"response.web_search_call.completed","output_index":0,"item_id":"ws_1"})",
       R"({"type":"response.output_item.added","output_index":1,"item":{"type":"message","id":"msg_1","role":"assistant","content":[]}})",
       R"({"type":"response.output_text.delta","output_index":1,"content_index":0,"delta":"Hi","logprobs":[{"token":"Hi","logprob":-0.1,"bytes":[72,105],"top_logprobs":[]}]})",
       R"({"type":"response.output_text.delta","output_index":1,"content_index":0,"delta":"!","logprobs":[{"token":"!","logprob":-0.2,"bytes":[33],"top_logprobs":[]}]})",
       R"({"type":"response.output_text.annotation.added","output_index":1,"content_index":0,"annotation_index":0,"annotation":{"type":"url_citation","url":"https://example.com","start_index":0,"end_index":2,"title":"x"}})",
       R"({"type":"response.output_item.added","output_index":2,"item":{"type":"reasoning","id":"rs_1","summary":[]}})",
       R"({"type":"response.reasoning_text.delta","output_index":2,"content_index":0,"delta":"hmm"})",
       R"({"type":"response.completed","response":{"status":"completed"}})"}));
  ASSERT_TRUE(r.status.ok()) << r.status.error().to_string();
  EXPECT_EQ(r.warnings.size(), 4u) << warnings_text(r.warnings);
  EXPECT_TRUE(has_warning(r.warnings, "dropped_unknown_part", "$.output[0]"));
  EXPECT_TRUE(has_warning(r.warnings, "dropped_logprobs", "$.output[1].content[0].logprobs"));
  EXPECT_TRUE(has_warning(r.warnings, "dropped_annotations", "$.output[1].content[0].annotations"));
  EXPECT_TRUE(has_warning(r.warnings, "dropped_reasoning_text", "$.output[2].content[0]"));
  EXPECT_EQ(accumulate(r.events).parts.size(), 2u) << describe(r.events);  // text, reasoning
}

}  // namespace
}  // namespace toolwire::dialects::openai_responses_test
