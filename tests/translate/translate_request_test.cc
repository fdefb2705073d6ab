// translate_request() and EncodeOptions: the one-call translation gives byte
// for byte what decode + encode gives, its encoder trusts only what the
// decoder checked, and an encoder given a hand-built IR (no options) checks
// every raw JSON field it splices in.
#include <gtest/gtest.h>

#include <nlohmann/json.hpp>
#include <thread>
#include <vector>

#include "gen.h"
#include "wire.h"

namespace toolwire::testing {
namespace {

using nlohmann::json;

std::string codes(const Warnings& ws) {
  std::string out;
  for (const auto& w : ws) out += w.code + "@" + w.path + " ";
  return out;
}

// decode + encode without options, next to translate_request.
void expect_same_translation(const dialects::Codec& from, const dialects::Codec& to,
                             const std::string& body) {
  Warnings w1, w2;
  auto ir = from.decode_request(body, w1);
  ASSERT_TRUE(ir) << ir.error().to_string();
  auto slow = to.encode_request(*ir, w1);
  auto fast = dialects::translate_request(from, to, body, w2);
  ASSERT_EQ(slow.ok(), fast.ok()) << (slow ? fast.error().to_string() : slow.error().to_string());
  if (slow) {
    EXPECT_EQ(*fast, *slow);
  }
  EXPECT_EQ(codes(w2), codes(w1));
}

// translate_request runs on the borrowed IR (string views, arena lists) when
// both codecs are built in; decode + encode runs on the owning IR. Every
// direction, same-dialect passthrough included, must give the same bytes.
void expect_same_in_every_direction(const std::string& body, bool from_openai) {
  const dialects::Codec& from = from_openai ? openai() : anthropic();
  {
    SCOPED_TRACE("to openai");
    expect_same_translation(from, openai(), body);
  }
  {
    SCOPED_TRACE("to anthropic");
    expect_same_translation(from, anthropic(), body);
  }
}

TEST(TranslateRequest, SameBytesAsDecodeThenEncodeForEveryFixture) {
  int n = 0;
  for (const auto& name : fixtures_matching("openai-chat", ".request.json")) {
    SCOPED_TRACE(name);
    expect_same_in_every_direction(read_fixture(name), true);
    ++n;
  }
  for (const auto& name : fixtures_matching("anthropic-messages", ".request.json")) {
    SCOPED_TRACE(name);
    expect_same_in_every_direction(read_fixture(name), false);
    ++n;
  }
  EXPECT_GE(n, 4);
}

// Text the borrowed IR cannot take as a view of the input: a schema and an
// unknown field with line breaks (minified), an OpenAI error result (prefix
// cut), a refusal (rebuilt JSON), a data: URL (split), an Anthropic id that
// was mapped ("tw-..."), invalid arguments (wrapped, then unwrapped).
TEST(TranslateRequest, BorrowedPathHandlesTextItHasToBuild) {
  const std::string from_openai = R"({"model":"m","x_extra":{
      "a": [1, 2]},
    "tools":[{"type":"function","function":{"name":"get","description":"d","parameters":{
      "type": "object",
      "properties": {"q": {"type": "string"}}}}}],
    "messages":[
      {"role":"system","content":"sys"},
      {"role":"user","content":[{"type":"text","text":"look"},
        {"type":"image_url","image_url":{"url":"data:image/png;base64,iVBORw0KGgo=","detail":"low"}}]},
      {"role":"assistant","content":null,"refusal":"no \"way\"","tool_calls":[
        {"id":"call:1/x","type":"function","function":{"name":"get","arguments":"{\"q\": \"a\\nb\"}"}},
        {"id":"call_2","type":"function","function":{"name":"get","arguments":"not json"}}]},
      {"role":"tool","tool_call_id":"call:1/x","content":"Error: it broke"},
      {"role":"tool","tool_call_id":"call_2","content":[{"type":"text","text":"Error: "},{"type":"text","text":"x"}]}]})";
  expect_same_in_every_direction(from_openai, true);

  Warnings w;
  auto as_anthropic = dialects::translate_request(openai(), anthropic(), from_openai, w);
  ASSERT_TRUE(as_anthropic) << as_anthropic.error().to_string();
  json a = json::parse(*as_anthropic);  // (non-const: a missing key reads as null)
  EXPECT_EQ(a["tools"][0]["input_schema"],
            json::parse(R"({"type":"object","properties":{"q":{"type":"string"}}})"));
  EXPECT_EQ(a["messages"][0]["content"][1]["source"]["data"], "iVBORw0KGgo=");
  EXPECT_EQ(a["messages"][1]["content"][0]["id"], "tw-call-3a1-2fx");
  EXPECT_EQ(a["messages"][1]["content"][0]["input"]["q"], "a\nb");
  EXPECT_EQ(a["messages"][1]["content"][1]["input"]["__toolwire_invalid_arguments"], "not json");
  EXPECT_EQ(a["messages"][2]["content"][0]["tool_use_id"], "tw-call-3a1-2fx");
  EXPECT_EQ(a["messages"][2]["content"][0]["content"], "it broke");
  EXPECT_EQ(a["messages"][2]["content"][0]["is_error"], true);

  // And back: the mapped id, the wrapped arguments, the error flag.
  expect_same_in_every_direction(*as_anthropic, false);
  auto back = dialects::translate_request(anthropic(), openai(), *as_anthropic, w);
  ASSERT_TRUE(back) << back.error().to_string();
  json o = json::parse(*back);
  EXPECT_EQ(o["messages"][0]["content"], "sys");
  EXPECT_EQ(o["messages"][2]["tool_calls"][0]["id"], "call:1/x");
  EXPECT_EQ(o["messages"][2]["tool_calls"][1]["function"]["arguments"], "not json");
  EXPECT_EQ(o["messages"][3]["tool_call_id"], "call:1/x");
  EXPECT_EQ(o["messages"][3]["content"], "Error: it broke");
}

// A request far bigger than the arena's first block, then small ones: the
// arena grows, is merged and reused, and every output is still right.
TEST(TranslateRequest, ArenaGrowsForABigRequestAndIsReusedAfter) {
  ConversationGen gen(7);
  Warnings w;
  for (int turns : {400, 3, 400, 1}) {
    SCOPED_TRACE("turns " + std::to_string(turns));
    ir::Request req = gen.request(turns);
    auto body = openai().encode_request(req, w);
    ASSERT_TRUE(body) << body.error().to_string();
    expect_same_in_every_direction(*body, true);
  }
}

TEST(TranslateRequest, SameBytesAsDecodeThenEncodeForGeneratedConversations) {
  // Generated conversations include invalid-JSON arguments, ids Anthropic
  // rejects, images and thinking: every branch the verified path skips.
  const uint64_t seeds = generated_seeds(40);
  for (uint64_t seed = 1; seed <= seeds; ++seed) {
    SCOPED_TRACE("seed " + std::to_string(seed));
    ConversationGen gen(seed);
    ir::Request req = gen.request(6);
    Warnings w;
    auto as_openai = openai().encode_request(req, w);
    ASSERT_TRUE(as_openai) << as_openai.error().to_string();
    expect_same_in_every_direction(*as_openai, true);
    auto as_anthropic = anthropic().encode_request(req, w);
    ASSERT_TRUE(as_anthropic) << as_anthropic.error().to_string();
    expect_same_in_every_direction(*as_anthropic, false);
  }
}

// Every ordered pair of the dialect list (same-dialect included), from each
// codec's fixtures and from generated conversations written in its dialect.
TEST(TranslateRequest, SameBytesAsDecodeThenEncodeForEveryPairOfTheList) {
  for (const dialects::Codec* from : codecs()) {
    std::vector<std::string> bodies;
    for (const auto& name : fixtures_matching(fixture_prefix(*from), ".request.json"))
      bodies.push_back(read_fixture(name));
    for (uint64_t seed = 1; seed <= generated_seeds(20); ++seed) {
      ConversationGen gen(seed);
      Warnings w;
      auto body = from->encode_request(gen.request(5), w);
      ASSERT_TRUE(body) << body.error().to_string();
      bodies.push_back(*body);
    }
    for (size_t i = 0; i < bodies.size(); ++i)
      for (const dialects::Codec* to : codecs()) {
        SCOPED_TRACE(std::string(from->name()) + " body " + std::to_string(i) + " to " +
                     std::string(to->name()));
        expect_same_translation(*from, *to, bodies[i]);
      }
  }
}

// Each thread has its own parser and arena: concurrent translations of
// different requests must not see each other's views.
TEST(TranslateRequest, ConcurrentTranslationsOnSeveralThreadsStayApart) {
  std::vector<std::string> bodies, expected;
  for (uint64_t seed = 1; seed <= 4; ++seed) {
    ConversationGen gen(100 + seed);
    Warnings w;
    auto body = openai().encode_request(gen.request(20 + static_cast<int>(seed) * 10), w);
    ASSERT_TRUE(body) << body.error().to_string();
    auto out = dialects::translate_request(openai(), anthropic(), *body, w);
    ASSERT_TRUE(out) << out.error().to_string();
    bodies.push_back(*body);
    expected.push_back(*out);
  }
  std::vector<int> mismatches(bodies.size(), 0);
  std::vector<std::thread> threads;
  for (size_t t = 0; t < bodies.size(); ++t)
    threads.emplace_back([&, t] {
      for (int i = 0; i < 200; ++i) {
        Warnings w;
        auto out = dialects::translate_request(openai(), anthropic(), bodies[t], w);
        if (!out || *out != expected[t]) ++mismatches[t];
      }
    });
  for (auto& th : threads) th.join();
  for (size_t t = 0; t < bodies.size(); ++t) EXPECT_EQ(mismatches[t], 0) << "thread " << t;
}

TEST(TranslateRequest, BadInputIsTheDecodersErrorWithItsPath) {
  Warnings w;
  auto out = dialects::translate_request(openai(), anthropic(),
                                         R"({"model":"m","messages":[{"role":"robot"}]})", w);
  ASSERT_FALSE(out);
  EXPECT_NE(out.error().to_string().find("$.messages[0].role"), std::string::npos)
      << out.error().to_string();
}

// A hand-built IR whose raw JSON is broken: the encoders must not splice it.
ir::Request hand_built() {
  ir::Request req;
  req.model = "m";
  req.messages.push_back(ir::Message{ir::Role::user, {ir::TextPart{"hi"}}, {}});
  return req;
}

TEST(EncodeOptions, UnverifiedSchemaThatIsNotJsonIsAnErrorNamingItsPath) {
  for (const std::string bad :
       {R"({"type":"object")", R"({"type":"object"} trailing)", "[1]", "nope"}) {
    SCOPED_TRACE(bad);
    ir::Request req = hand_built();
    req.tools.push_back(ir::ToolDefinition{"t", "d", bad, {}});
    Warnings w;
    auto a = anthropic().encode_request(req, w);
    ASSERT_FALSE(a);
    EXPECT_NE(a.error().to_string().find("$.tools[0]"), std::string::npos) << a.error().to_string();
    auto o = openai().encode_request(req, w);
    ASSERT_FALSE(o);
    EXPECT_NE(o.error().to_string().find("$.tools[0].function.parameters"), std::string::npos)
        << o.error().to_string();
  }
}

TEST(EncodeOptions, UnverifiedMetadataThatIsNotJsonIsAnError) {
  ir::Request req = hand_built();
  req.metadata = R"({"user_id":)";
  Warnings w;
  auto a = anthropic().encode_request(req, w);
  ASSERT_FALSE(a);
  EXPECT_NE(a.error().to_string().find("metadata"), std::string::npos);
  auto o = openai().encode_request(req, w);
  ASSERT_FALSE(o);
  EXPECT_NE(o.error().to_string().find("$.metadata"), std::string::npos);
}

TEST(EncodeOptions, UnverifiedArgumentsFlaggedValidButBrokenAreWrappedNotSpliced) {
  ir::Request req = hand_built();
  ir::ToolCallPart call{"call_1", "t", R"({"a":1, "b":)", /*arguments_valid=*/true};
  req.messages.push_back(ir::Message{ir::Role::assistant, {call}, {}});
  req.messages.push_back(
      ir::Message{ir::Role::tool, {ir::ToolResultPart{"call_1", {ir::TextPart{"ok"}}, false}}, {}});
  Warnings w;
  auto a = anthropic().encode_request(req, w);
  ASSERT_TRUE(a) << a.error().to_string();
  const json doc = json::parse(*a);  // the output stays valid JSON
  const json& input = doc["messages"][1]["content"][0]["input"];
  ASSERT_TRUE(input.is_object());
  EXPECT_EQ(input.begin().value(), R"({"a":1, "b":)");
  EXPECT_TRUE(has_warning(w, "invalid_arguments_wrapped")) << warnings_text(w);
}

TEST(EncodeOptions, ValidHandBuiltRawJsonIsSplicedAsIs) {
  ir::Request req = hand_built();
  req.tools.push_back(ir::ToolDefinition{
      "t", "d", R"({"type":"object","properties":{"q":{"type":"string"}}})", {}});
  req.metadata = R"({"user_id":"u1"})";
  Warnings w;
  auto a = anthropic().encode_request(req, w);
  ASSERT_TRUE(a) << a.error().to_string();
  EXPECT_EQ(json::parse(*a)["tools"][0]["input_schema"]["properties"]["q"]["type"], "string");
  auto o = openai().encode_request(req, w);
  ASSERT_TRUE(o) << o.error().to_string();
  const json doc = json::parse(*o);
  EXPECT_EQ(doc["tools"][0]["function"]["parameters"]["properties"]["q"]["type"], "string");
  EXPECT_EQ(doc["metadata"]["user_id"], "u1");
}

// The single-pass field readers: a key given twice keeps its last value (as
// the providers' JSON parsers do), and a required field given as null is a
// type error, not "missing".
TEST(FieldPicking, DuplicateKeysKeepTheLastValueInBothDecoders) {
  Warnings w;
  auto o = openai().decode_request(
      R"({"model":"m","messages":[{"role":"user","content":"first","content":"second"}]})", w);
  ASSERT_TRUE(o) << o.error().to_string();
  EXPECT_EQ(std::get<ir::TextPart>(o->messages[0].parts[0]).text, "second");
  auto a = anthropic().decode_request(
      R"({"model":"m","max_tokens":5,"messages":[{"role":"user","content":[{"type":"text","text":"first","text":"second"}]}]})",
      w);
  ASSERT_TRUE(a) << a.error().to_string();
  EXPECT_EQ(std::get<ir::TextPart>(a->messages[0].parts[0]).text, "second");
}

TEST(FieldPicking, AnthropicNullRequiredFieldIsATypeErrorAtItsPath) {
  Warnings w;
  auto a = anthropic().decode_request(
      R"({"model":"m","max_tokens":5,"messages":[{"role":"user","content":[{"type":"text","text":null}]}]})",
      w);
  ASSERT_FALSE(a);
  const std::string msg = a.error().to_string();
  EXPECT_NE(msg.find("$.messages[0].content[0].text"), std::string::npos) << msg;
  EXPECT_NE(msg.find("null"), std::string::npos) << msg;
  auto missing = anthropic().decode_request(
      R"({"model":"m","max_tokens":5,"messages":[{"role":"user","content":[{"type":"text"}]}]})",
      w);
  ASSERT_FALSE(missing);
  EXPECT_NE(missing.error().to_string().find("missing required field 'text'"), std::string::npos)
      << missing.error().to_string();
}

// ---- encoder warnings name the client's paths (docs/translation.md gap 19) ----

// The warnings of translating `body` from `from` to `to`, by both paths
// (owning IR: decode then encode; borrowed: translate_request), which must agree.
Warnings translation_warnings(const char* from, const char* to, const std::string& body) {
  const dialects::Codec& f = *dialects::find_codec(from);
  const dialects::Codec& t = *dialects::find_codec(to);
  Warnings slow, fast;
  auto ir = f.decode_request(body, slow);
  EXPECT_TRUE(ir) << ir.error().to_string();
  if (!ir) return {};
  EXPECT_TRUE(t.encode_request(*ir, slow));
  EXPECT_TRUE(dialects::translate_request(f, t, body, fast));
  EXPECT_EQ(codes(fast), codes(slow));
  return slow;
}

bool has(const Warnings& ws, std::string_view code, std::string_view path) {
  for (const auto& w : ws)
    if (w.code == code && w.path == path) return true;
  return false;
}

// A leading system message is no IR message: the client's indices are one up.
constexpr const char* kChatShifted = R"({"model":"m","messages":[
  {"role":"system","content":"Be brief."},
  {"role":"user","content":[{"type":"image_url","image_url":{"url":"https://x.test/a.png","detail":"high"}}]},
  {"role":"assistant","name":"bob","content":"hi"}]})";

TEST(SourcePaths, ChatToAnthropicWarningsNameTheClientsMessages) {
  const Warnings w = translation_warnings("openai_chat", "anthropic_messages", kChatShifted);
  EXPECT_TRUE(has(w, "dropped_image_detail", "$.messages[1].content[0].image_url.detail"))
      << codes(w);
  EXPECT_TRUE(has(w, "dropped_message_name", "$.messages[2].name")) << codes(w);
}

// (Bedrock drops a web image before its detail: dropped_image_url.)
TEST(SourcePaths, ChatIntoGeminiAndBedrockToo) {
  for (const char* to : {"gemini"}) {
    const Warnings w = translation_warnings("openai_chat", to, kChatShifted);
    EXPECT_TRUE(has(w, "dropped_image_detail", "$.messages[1].content[0].image_url.detail"))
        << to << ": " << codes(w);
    EXPECT_TRUE(has(w, "dropped_message_name", "$.messages[2].name")) << to << ": " << codes(w);
  }
}

// Leading system and developer items are Request::system, not messages.
TEST(SourcePaths, ResponsesLeadingSystemItemsShiftTheInput) {
  const std::string body = R"({"model":"m","input":[
    {"role":"system","content":"S"},
    {"role":"developer","content":"D"},
    {"role":"user","content":[{"type":"input_text","text":"look"},
      {"type":"input_image","image_url":"https://x.test/a.png","detail":"high"}]}]})";
  const Warnings w = translation_warnings("openai_responses", "anthropic_messages", body);
  EXPECT_TRUE(has(w, "dropped_image_detail", "$.input[2].content[1].detail")) << codes(w);
}

// Consecutive Chat tool messages are one IR message; each result keeps its own path.
TEST(SourcePaths, ChatToolMessagesGroupedKeepTheirOwnPaths) {
  const std::string body = R"({"model":"m","messages":[
    {"role":"user","content":"q"},
    {"role":"assistant","content":null,"tool_calls":[
      {"id":"c1","type":"function","function":{"name":"f","arguments":"{}"}},
      {"id":"c2","type":"function","function":{"name":"f","arguments":"{}"}}]},
    {"role":"tool","tool_call_id":"c1","content":"one"},
    {"role":"tool","tool_call_id":"c2","content":[{"type":"text","text":"two"},
      {"type":"file","file":{"file_id":"f1"}}]}]})";
  const Warnings w = translation_warnings("openai_chat", "openai_responses", body);
  EXPECT_TRUE(has(w, "dropped_unknown_part", "$.messages[3]")) << codes(w);
}

// An Anthropic user message with tool results and text is two IR messages.
TEST(SourcePaths, AnthropicSplitUserMessageKeepsItsPath) {
  const std::string body = R"({"model":"m","max_tokens":10,"messages":[
    {"role":"user","content":"q"},
    {"role":"assistant","content":[{"type":"tool_use","id":"toolu_1","name":"f","input":{}}]},
    {"role":"user","content":[{"type":"tool_result","tool_use_id":"toolu_1","content":"r"},
      {"type":"image","source":{"type":"url","url":"https://x.test/a.png"}}]}]})";
  const Warnings w = translation_warnings("anthropic_messages", "bedrock_converse", body);
  EXPECT_TRUE(has(w, "dropped_image_url", "$.messages[2].content[1]")) << codes(w);
}

// A request built in C++ (or edited after decoding) names IR positions.
TEST(SourcePaths, WithoutAMapWarningsNameIrPositions) {
  const dialects::Codec& chat = *dialects::find_codec("openai_chat");
  const dialects::Codec& anthropic = *dialects::find_codec("anthropic_messages");
  Warnings w;
  auto ir = chat.decode_request(kChatShifted, w);
  ASSERT_TRUE(ir) << ir.error().to_string();
  ir->messages.insert(ir->messages.begin(), ir::Message{ir::Role::user, {ir::TextPart{"x"}}, {}});
  w.clear();
  ASSERT_TRUE(anthropic.encode_request(*ir, w));
  EXPECT_TRUE(has(w, "dropped_image_detail", "$.messages[1].content[0].detail")) << codes(w);
  EXPECT_TRUE(has(w, "dropped_message_name", "$.messages[2].name")) << codes(w);
  ir->source_map = {};
  ir->messages.erase(ir->messages.begin());
  w.clear();
  ASSERT_TRUE(anthropic.encode_request(*ir, w));
  EXPECT_TRUE(has(w, "dropped_image_detail", "$.messages[0].content[0].detail")) << codes(w);
  EXPECT_TRUE(has(w, "dropped_message_name", "$.messages[1].name")) << codes(w);
}

}  // namespace
}  // namespace toolwire::testing
