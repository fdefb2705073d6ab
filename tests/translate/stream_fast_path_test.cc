// The stream decoders' fast paths (Anthropic content_block_delta events and
// OpenAI chunks around a learnt envelope are decoded without a DOM when their
// bytes have the exact layout the APIs write) must decode exactly what the
// full path decodes. Each stream is decoded as is and "respaced" (a space
// after every ':' and ',' outside strings, which no fast matcher accepts, so
// every event takes the full path); both must give the same events. Edge cases
// the fast matchers see first (escapes, bad UTF-8, unknown blocks, calls that
// never started) must give the full path's answer, errors included.
#include <gtest/gtest.h>

#include <nlohmann/json.hpp>

#include "../support/sse_respace.h"
#include "ir_print.h"
#include "wire.h"

namespace toolwire::testing {
namespace {

// Texts that stress the matchers: escapes, non-ASCII, control characters.
const std::vector<std::string>& tricky_texts() {
  static const std::vector<std::string> texts = {
      "plain words ",
      "with \"quotes\" inside",
      "tab\there, newline\nthere",
      "back\\slash and slash /",
      "é ü 中文 🙂",
      std::string("ctrl \x01\x1f end"),
      "{\"path\":\"a.md\",\"content\":\"",
      "</script><!-- -->",
      std::string(3000, 'x') + "\"" + std::string(100, 'y'),
  };
  return texts;
}

std::vector<ir::StreamEvent> tricky_events() {
  std::vector<ir::StreamEvent> events;
  events.push_back(ir::MessageStart{"msg_fast", "model-x", 1700000000});
  for (const auto& t : tricky_texts()) events.push_back(ir::TextDelta{t});
  events.push_back(ir::ToolCallStart{0, "call_fast_0", "write_file"});
  for (const auto& t : tricky_texts()) events.push_back(ir::ToolCallDelta{0, t});
  events.push_back(ir::ToolCallStart{1, "call_fast_1", "read_file"});
  events.push_back(ir::ToolCallDelta{1, "{\"path\":\"b.md\"}"});
  events.push_back(ir::ToolCallDelta{0, "\"}"});
  events.push_back(ir::ToolCallEnd{0});
  events.push_back(ir::ToolCallEnd{1});
  events.push_back(ir::Finish{ir::FinishReason{ir::FinishReason::Kind::tool_calls, "tool_calls"}});
  return events;
}

void expect_same_as_full_path(const dialects::Codec& codec, const std::string& sse,
                              const std::string& label) {
  SCOPED_TRACE(label);
  for (size_t chunk : {size_t{0}, size_t{1}, size_t{7}, size_t{4096}}) {
    Decoded fast = decode_stream(codec, sse, chunk);
    Decoded full = decode_stream(codec, respace(sse), chunk);
    EXPECT_EQ(fast.error, full.error) << "chunk " << chunk;
    EXPECT_EQ(print(fast.events), print(full.events)) << "chunk " << chunk;
  }
}

TEST(StreamFastPath, RespacingReallyChangesTheBytes) {
  EXPECT_EQ(respace("data: {\"a\":\"x:y,z\",\"b\":[1,2]}\n\n"),
            "data: {\"a\": \"x:y,z\", \"b\": [1, 2]}\n\n");
}

TEST(StreamFastPath, AnthropicDecodesLikeTheFullPath) {
  for (const auto& name : fixtures_matching("anthropic-messages-stream-", ".sse"))
    expect_same_as_full_path(anthropic(), read_fixture(name), name);
  const std::string sse = encode_stream(anthropic(), tricky_events());
  expect_same_as_full_path(anthropic(), sse, "tricky texts");
  Decoded d = decode_stream(anthropic(), sse);
  ASSERT_EQ(d.error, "");
  ir::Response r = accumulate(d.events);
  ASSERT_GE(r.parts.size(), 3u);
  std::string all_text;
  for (const auto& t : tricky_texts()) all_text += t;
  EXPECT_EQ(std::get<ir::TextPart>(r.parts[0]).text, all_text);
}

TEST(StreamFastPath, OpenAiDecodesLikeTheFullPath) {
  expect_same_as_full_path(
      openai(), openai_sse_from_chunk_lines(read_fixture("openai-chat-stream-text.chunks.txt")),
      "text fixture");
  expect_same_as_full_path(openai(),
                           openai_sse_from_tool_call_deltas(read_fixture(
                               "openai-chat-stream-tool-calls.delta-tool_calls.jsonl")),
                           "tool call fixture");
  const std::string sse = encode_stream(openai(), tricky_events());
  expect_same_as_full_path(openai(), sse, "tricky texts");
  Decoded d = decode_stream(openai(), sse);
  ASSERT_EQ(d.error, "");
  ir::Response r = accumulate(d.events);
  std::string args;
  for (const auto& t : tricky_texts()) args += t;
  args += "\"}";
  bool found = false;
  for (const auto& p : r.parts)
    if (auto* c = std::get_if<ir::ToolCallPart>(&p); c && c->id == "call_fast_0") {
      EXPECT_EQ(c->arguments, args);
      found = true;
    }
  EXPECT_TRUE(found);
}

// ---- edge cases the fast matchers see first ----

std::string anthropic_stream_with(const std::string& delta_data) {
  return "event: message_start\ndata: "
         "{\"type\":\"message_start\",\"message\":{\"id\":\"msg_1\",\"type\":\"message\","
         "\"role\":\"assistant\",\"model\":\"m\",\"content\":[],\"usage\":{\"input_tokens\":1,"
         "\"output_tokens\":0}}}\n\n"
         "event: content_block_start\ndata: "
         "{\"type\":\"content_block_start\",\"index\":0,\"content_block\":"
         "{\"type\":\"text\",\"text\":\"\"}}\n\n"
         "event: content_block_delta\ndata: " +
         delta_data +
         "\n\n"
         "event: content_block_stop\ndata: {\"type\":\"content_block_stop\",\"index\":0}\n\n"
         "event: message_stop\ndata: {\"type\":\"message_stop\"}\n\n";
}

std::string text_of(const Decoded& d) {
  std::string text;
  for (const auto& e : d.events)
    if (auto* t = std::get_if<ir::TextDelta>(&e)) text += t->text;
  return text;
}

TEST(StreamFastPath, AnthropicEdgeCasesGetTheFullPathsAnswer) {
  const std::string head = R"({"type":"content_block_delta","index":)";
  struct Case {
    std::string data;
    std::string text;   // expected text when it decodes
    std::string error;  // a piece of the expected error, or "" for success
  };
  const Case cases[] = {
      {head + R"(0,"delta":{"type":"text_delta","text":"hi"}})", "hi", ""},
      {head + R"(0,"delta":{"type":"text_delta","text":"caf\u00e9 \"q\""}})", "café \"q\"", ""},
      {head + R"(0,"delta":{"type":"text_delta","text":""}})", "", ""},
      {head + R"(1,"delta":{"type":"text_delta","text":"hi"}})", "", "never started"},
      {head + R"(00,"delta":{"type":"text_delta","text":"hi"}})", "", "malformed JSON"},
      {head + R"(0,"delta":{"type":"input_json_delta","partial_json":"{}"}})", "", "does not fit"},
      {head + "0,\"delta\":{\"type\":\"text_delta\",\"text\":\"bad \xff byte\"}}", "", "UTF-8"},
      {head + "0,\"delta\":{\"type\":\"text_delta\",\"text\":\"raw \x01 control\"}}", "",
       "malformed JSON"},
      {head + R"(0,"delta":{"type":"text_delta","text":"unterminated}})", "", "malformed JSON"},
      {head + R"(0,"delta":{"type":"text_delta","text":"a" "b"}})", "", "malformed JSON"},
  };
  for (const Case& c : cases) {
    SCOPED_TRACE(c.data);
    Decoded d = decode_stream(anthropic(), anthropic_stream_with(c.data));
    if (c.error.empty()) {
      EXPECT_EQ(d.error, "");
      EXPECT_EQ(text_of(d), c.text);
    } else {
      EXPECT_NE(d.error.find(c.error), std::string::npos) << d.error;
    }
  }
}

// The fixed-form events (a block's end, the message's end, a ping) decoded
// without a DOM give what the full path gives: each stream is decoded as is
// and respaced, and compared; a bad one gives the full path's error.
TEST(StreamFastPath, AnthropicFixedFormEventsDecodeLikeTheFullPath) {
  const std::string start =
      "event: message_start\ndata: "
      "{\"type\":\"message_start\",\"message\":{\"id\":\"msg_1\",\"type\":\"message\","
      "\"role\":\"assistant\",\"model\":\"m\",\"content\":[],\"usage\":{\"input_tokens\":1,"
      "\"output_tokens\":0}}}\n\n"
      "event: ping\ndata: {\"type\": \"ping\"}\n\n"
      "event: content_block_start\ndata: {\"type\":\"content_block_start\",\"index\":0,"
      "\"content_block\":{\"type\":\"text\",\"text\":\"\"}}\n\n"
      "event: content_block_start\ndata: {\"type\":\"content_block_start\",\"index\":1,"
      "\"content_block\":{\"type\":\"tool_use\",\"id\":\"toolu_1\",\"name\":\"f\","
      "\"input\":{}}}\n\n";
  const std::string delta_stop =
      "event: message_delta\ndata: {\"type\":\"message_delta\",\"delta\":"
      "{\"stop_reason\":\"tool_use\",\"stop_sequence\":null},\"usage\":{\"output_tokens\":3}}\n\n";
  auto stop = [](const std::string& index) {
    return "event: content_block_stop\ndata: {\"type\":\"content_block_stop\",\"index\":" + index +
           "}\n\n";
  };
  const std::string message_stop = "event: message_stop\ndata: {\"type\":\"message_stop\"}\n\n";
  struct Case {
    std::string tail;
    std::string error;  // a piece of the expected error, or "" for success
  };
  const Case cases[] = {
      {stop("0") + stop("1") + delta_stop + message_stop, ""},
      {stop("1") + stop("0") + "event: ping\ndata: {\"type\":\"ping\"}\n\n" + delta_stop +
           message_stop + message_stop,
       ""},  // a second message_stop is ignored
      {stop("7") + message_stop, "never started"},
      {stop("01") + message_stop, "malformed JSON"},
      {stop("0,\"extra\":true") + stop("1") + message_stop, ""},
      {stop("1") + "event: message_stop\ndata: {\"type\":\"message_stop\",\"x\":1}\n\n", ""},
  };
  for (const Case& c : cases) {
    SCOPED_TRACE(c.tail);
    const std::string sse = start + c.tail;
    Decoded d = decode_stream(anthropic(), sse);
    if (c.error.empty()) {
      // (An error's byte offset moves with the respacing: errors are checked by their words.)
      expect_same_as_full_path(anthropic(), sse, "fixed-form events");
      EXPECT_EQ(d.error, "");
      ASSERT_FALSE(d.events.empty());
      EXPECT_TRUE(std::holds_alternative<ir::Finish>(d.events.back()));
      bool ended = false;
      for (const auto& e : d.events)
        if (auto* end = std::get_if<ir::ToolCallEnd>(&e)) ended = end->index == 0;
      EXPECT_TRUE(ended);
    } else {
      EXPECT_NE(d.error.find(c.error), std::string::npos) << d.error;
    }
  }
}

std::string openai_chunk(const std::string& delta, const std::string& id = "chatcmpl-1",
                         const std::string& finish = "null") {
  return "data: {\"id\":\"" + id +
         "\",\"object\":\"chat.completion.chunk\",\"created\":1,\"model\":\"m\",\"choices\":[{"
         "\"index\":0,\"delta\":" +
         delta + ",\"logprobs\":null,\"finish_reason\":" + finish + "}]}\n\n";
}

TEST(StreamFastPath, OpenAiEdgeCasesGetTheFullPathsAnswer) {
  const std::string start =
      openai_chunk(R"({"role":"assistant","content":""})") + openai_chunk(R"({"content":"a"})");
  struct Case {
    std::string chunks;
    std::string text;
    std::string error;
  };
  const Case cases[] = {
      {openai_chunk(R"({"content":"b"})"), "ab", ""},
      {openai_chunk(R"({"content":"b"})", "chatcmpl-other"), "ab",
       ""},  // another envelope: full path
      {openai_chunk(R"({"content":"\u00e9\n"})"), "aé\n", ""},
      {openai_chunk(R"({"content":"b","role":"assistant"})"), "ab", ""},
      {openai_chunk(R"({"tool_calls":[{"index":1,"function":{"arguments":"{}"}}]})"), "a",
       "without an id"},
      {openai_chunk("{\"content\":\"bad \xff\"}"), "", "UTF-8"},
      {openai_chunk("{\"content\":\"raw \x02\"}"), "", "malformed JSON"},
      {openai_chunk(R"({"content":"b"})", "chatcmpl-1", "\"length\""), "ab", ""},
  };
  for (const Case& c : cases) {
    SCOPED_TRACE(c.chunks);
    Decoded d = decode_stream(openai(), start + c.chunks + "data: [DONE]\n\n");
    if (c.error.empty()) {
      EXPECT_EQ(d.error, "");
      EXPECT_EQ(text_of(d), c.text);
    } else {
      EXPECT_NE(d.error.find(c.error), std::string::npos) << d.error;
    }
  }
  // The finish_reason of a chunk that shares the learnt envelope's id still counts.
  Decoded d = decode_stream(
      openai(),
      start + openai_chunk(R"({"content":"b"})", "chatcmpl-1", "\"length\"") + "data: [DONE]\n\n");
  ASSERT_EQ(d.error, "");
  ASSERT_FALSE(d.events.empty());
  const auto* fin = std::get_if<ir::Finish>(&d.events.back());
  ASSERT_NE(fin, nullptr);
  EXPECT_EQ(fin->reason.kind, ir::FinishReason::Kind::length);
}

// Found by fuzz_stream_fast_path: a first chunk with a member the decoder
// does not know keeps it as the source's text (a MessageStart extra), spaces
// and all, so a respaced stream differs only in that text's spacing. The
// events are otherwise the same; the fuzz target compares them unspaced.
TEST(StreamFastPath, AnUnknownEnvelopeMemberKeepsItsSourceText) {
  const std::string first =
      R"(data: {"id":"c1","object":"chat.completion.chunk","created":0,"model":"m",)"
      R"("choi1es":[{"index":0,"delta":{"role":"assistant"}}]})"
      "\n\n";
  const std::string sse = first + openai_chunk(R"({"content":"a"})", "c1") + "data: [DONE]\n\n";
  Decoded fast = decode_stream(openai(), sse);
  Decoded full = decode_stream(openai(), respace(sse));
  ASSERT_EQ(fast.error, "");
  ASSERT_EQ(full.error, "");
  ASSERT_FALSE(fast.events.empty());
  ASSERT_FALSE(full.events.empty());
  auto* a = std::get_if<ir::MessageStart>(&fast.events.front());
  auto* b = std::get_if<ir::MessageStart>(&full.events.front());
  ASSERT_NE(a, nullptr);
  ASSERT_NE(b, nullptr);
  ASSERT_EQ(a->extras.extra.size(), 1u);
  ASSERT_EQ(b->extras.extra.size(), 1u);
  EXPECT_EQ(a->extras.extra[0].key, "choi1es");
  EXPECT_EQ(a->extras.extra[0].raw_json, R"([{"index":0,"delta":{"role":"assistant"}}])");
  EXPECT_EQ(b->extras.extra[0].raw_json, R"([{"index": 0, "delta": {"role": "assistant"}}])");
  EXPECT_EQ(unspace_json(b->extras.extra[0].raw_json), a->extras.extra[0].raw_json);
  // Past the first event, the same events.
  using Events = std::vector<ir::StreamEvent>;
  EXPECT_EQ(print(Events(fast.events.begin() + 1, fast.events.end())),
            print(Events(full.events.begin() + 1, full.events.end())));
}

}  // namespace
}  // namespace toolwire::testing
