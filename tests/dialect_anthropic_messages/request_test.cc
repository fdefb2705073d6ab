// Anthropic Messages requests: golden fixtures, translation rules, bad input.
#include <gtest/gtest.h>

#include <algorithm>

#include "test_util.h"

namespace toolwire::dialects::anthropic_test {
namespace {

using nlohmann::json;

ir::Request decode_ok(const std::string& body, Warnings* warnings = nullptr) {
  Warnings local;
  auto r = codec().decode_request(body, warnings ? *warnings : local);
  EXPECT_TRUE(r.ok()) << (r.ok() ? "" : r.error().to_string());
  return r.ok() ? std::move(r).value() : ir::Request{};
}

std::string encode_ok(const ir::Request& req, Warnings* warnings = nullptr) {
  Warnings local;
  auto r = codec().encode_request(req, warnings ? *warnings : local);
  EXPECT_TRUE(r.ok()) << (r.ok() ? "" : r.error().to_string());
  return r.ok() ? *r : std::string("{}");
}

Error decode_error_of(const std::string& body) {
  Warnings w;
  auto r = codec().decode_request(body, w);
  EXPECT_FALSE(r.ok()) << body;
  return r.ok() ? Error{} : r.error();
}

// Decode then encode gives the same JSON value, and a second pass gives
// byte-identical output.
class GoldenRequest : public ::testing::TestWithParam<const char*> {};

TEST_P(GoldenRequest, DecodeEncodeIsSemanticallyEqual) {
  const std::string body = read_fixture(GetParam());
  Warnings warnings;
  ir::Request req = decode_ok(body, &warnings);
  EXPECT_EQ(req.source_dialect, "anthropic_messages");
  const std::string out = encode_ok(req, &warnings);
  EXPECT_EQ(parse(out), parse(body)) << out;
  EXPECT_TRUE(warnings.empty()) << warnings.front().code;
  EXPECT_EQ(encode_ok(decode_ok(out)), out);
}

INSTANTIATE_TEST_SUITE_P(Fixtures, GoldenRequest,
                         ::testing::Values("anthropic-messages-tool-use.request.json",
                                           "anthropic-messages-tool-result.request.json",
                                           "anthropic-messages-stream-tool-use.request.json"));

TEST(AnthropicRequest, ToolResultFixtureDecodesToNormalForm) {
  ir::Request req = decode_ok(read_fixture("anthropic-messages-tool-result.request.json"));
  EXPECT_EQ(req.model, "claude-sonnet-4-5");
  EXPECT_EQ(req.max_tokens, 1024);
  ASSERT_EQ(req.tools.size(), 1u);
  EXPECT_EQ(req.tools[0].name, "get_weather");
  EXPECT_EQ(json::parse(req.tools[0].input_schema)["required"], json::array({"location"}));
  ASSERT_EQ(req.messages.size(), 3u);
  EXPECT_EQ(req.messages[0].role, ir::Role::user);
  ASSERT_EQ(req.messages[1].role, ir::Role::assistant);
  ASSERT_EQ(req.messages[1].parts.size(), 2u);
  EXPECT_EQ(std::get<ir::TextPart>(req.messages[1].parts[0]).text,
            "I'll check the current weather in San Francisco for you.");
  const auto& call = std::get<ir::ToolCallPart>(req.messages[1].parts[1]);
  EXPECT_EQ(call.id, "toolu_01A09q90qw90lq917835lq9");
  EXPECT_EQ(call.name, "get_weather");
  EXPECT_TRUE(call.arguments_valid);
  EXPECT_EQ(json::parse(call.arguments),
            json({{"location", "San Francisco, CA"}, {"unit", "celsius"}}));
  ASSERT_EQ(req.messages[2].role, ir::Role::tool);
  const auto& result = std::get<ir::ToolResultPart>(req.messages[2].parts.at(0));
  EXPECT_EQ(result.call_id, call.id);
  EXPECT_FALSE(result.is_error);
  ASSERT_EQ(result.content.size(), 1u);
  EXPECT_EQ(std::get<ir::TextPart>(result.content[0]).text, "15 degrees");
}

TEST(AnthropicRequest, StreamFixtureToolChoiceAny) {
  ir::Request req = decode_ok(read_fixture("anthropic-messages-stream-tool-use.request.json"));
  ASSERT_TRUE(req.tool_choice);
  EXPECT_EQ(req.tool_choice->kind, ir::ToolChoice::Kind::required);
  EXPECT_TRUE(req.stream);
  EXPECT_FALSE(req.parallel_tool_calls);
}

// A *.message.json fixture wrapped in a minimal request whose earlier turn
// holds the matching tool_use.
std::string wrap_message(const std::string& message) {
  return R"({"model":"claude-sonnet-4-5","max_tokens":64,"messages":[)"
         R"({"role":"user","content":"What is the weather?"},)"
         R"({"role":"assistant","content":[{"type":"tool_use","id":"toolu_01A09q90qw90lq917835lq9",)"
         R"("name":"get_weather","input":{"location":"SF"}}]},)" +
         message + "]}";
}

class GoldenMessage : public ::testing::TestWithParam<const char*> {};

TEST_P(GoldenMessage, DecodeEncodeIsSemanticallyEqual) {
  const std::string message = read_fixture(GetParam());
  const std::string body = wrap_message(message);
  Warnings warnings;
  const std::string out = encode_ok(decode_ok(body), &warnings);
  EXPECT_EQ(parse(out), parse(body)) << out;
  EXPECT_EQ(parse(out)["messages"][2], parse(message));
  EXPECT_TRUE(warnings.empty());
}

INSTANTIATE_TEST_SUITE_P(
    Fixtures, GoldenMessage,
    ::testing::Values("anthropic-messages-tool-result-is_error.message.json",
                      "anthropic-messages-tool-result-content-blocks.message.json"));

TEST(AnthropicRequest, IsErrorAndContentBlocksDecode) {
  ir::Request req =
      decode_ok(wrap_message(read_fixture("anthropic-messages-tool-result-is_error.message.json")));
  auto& r = std::get<ir::ToolResultPart>(req.messages.at(2).parts.at(0));
  EXPECT_TRUE(r.is_error);
  EXPECT_EQ(std::get<ir::TextPart>(r.content.at(0)).text,
            "ConnectionError: the weather service API is not available (HTTP 500)");

  req = decode_ok(
      wrap_message(read_fixture("anthropic-messages-tool-result-content-blocks.message.json")));
  auto& r2 = std::get<ir::ToolResultPart>(req.messages.at(2).parts.at(0));
  ASSERT_EQ(r2.content.size(), 2u);
  EXPECT_EQ(std::get<ir::TextPart>(r2.content[0]).text, "The weather is");
  const auto& doc = std::get<ir::UnknownPart>(r2.content[1]);
  EXPECT_EQ(doc.type, "document");
  EXPECT_EQ(json::parse(doc.raw_json)["source"]["data"], "15 degrees");
}

TEST(AnthropicRequest, UserMessageSplitsIntoToolThenUser) {
  const std::string body = R"({"model":"m","max_tokens":8,"messages":[
    {"role":"user","content":"hi"},
    {"role":"assistant","content":[{"type":"tool_use","id":"a","name":"f","input":{}},
                                   {"type":"tool_use","id":"b","name":"f","input":{"x":1}}]},
    {"role":"user","content":[{"type":"tool_result","tool_use_id":"a","content":"A"},
                              {"type":"tool_result","tool_use_id":"b","content":[{"type":"text","text":"B"}]},
                              {"type":"text","text":"and?"},{"type":"text","text":""}]}]})";
  ir::Request req = decode_ok(body);
  ASSERT_EQ(req.messages.size(), 4u);
  EXPECT_EQ(req.messages[2].role, ir::Role::tool);
  ASSERT_EQ(req.messages[2].parts.size(), 2u);
  EXPECT_EQ(std::get<ir::ToolResultPart>(req.messages[2].parts[1]).call_id, "b");
  EXPECT_EQ(req.messages[3].role, ir::Role::user);
  ASSERT_EQ(req.messages[3].parts.size(), 1u);  // the empty text block is dropped
  // Encoding merges them back into one user message, results first.
  json out = parse(encode_ok(req));
  ASSERT_EQ(out["messages"].size(), 3u);
  EXPECT_EQ(out["messages"][2]["content"].size(), 3u);
  EXPECT_EQ(out["messages"][2]["content"][2]["text"], "and?");
}

TEST(AnthropicRequest, EncoderMergesToolAndUserMessagesResultsFirst) {
  ir::Request req;
  req.model = "m";
  req.max_tokens = 10;
  req.messages.push_back({ir::Role::user, {ir::TextPart{"go"}}, {}});
  req.messages.push_back(
      {ir::Role::assistant,
       {ir::ToolCallPart{"c1", "f", "{}", true}, ir::ToolCallPart{"c2", "g", "{\"a\":[1]}", true}},
       {}});
  req.messages.push_back({ir::Role::user, {ir::TextPart{"note"}}, {}});
  req.messages.push_back(
      {ir::Role::tool, {ir::ToolResultPart{"c1", {ir::TextPart{"r1"}}, false}}, {}});
  req.messages.push_back(
      {ir::Role::tool, {ir::ToolResultPart{"c2", {ir::TextPart{"r2"}}, true}}, {}});
  Warnings warnings;
  json out = parse(encode_ok(req, &warnings));
  ASSERT_EQ(out["messages"].size(), 3u);
  const json& user = out["messages"][2];
  EXPECT_EQ(user["role"], "user");
  ASSERT_EQ(user["content"].size(), 3u);
  EXPECT_EQ(user["content"][0],
            json({{"type", "tool_result"}, {"tool_use_id", "c1"}, {"content", "r1"}}));
  EXPECT_EQ(user["content"][1]["is_error"], true);
  EXPECT_EQ(user["content"][2]["text"], "note");
  EXPECT_EQ(out["messages"][1]["content"][1]["input"], json({{"a", {1}}}));
}

TEST(AnthropicRequest, ThinkingSignaturesSurviveTurns) {
  const std::string body =
      R"({"model":"m","max_tokens":2048,"thinking":{"type":"enabled","budget_tokens":1024},
    "messages":[{"role":"user","content":"weather?"},
    {"role":"assistant","content":[
      {"type":"thinking","thinking":"Need the tool.","signature":"EqQBCgIYAhIM1gbcDa9GJwZA2b3hGgxBdjrkzLoky3dl1pkiMOYds"},
      {"type":"redacted_thinking","data":"EmwKAhgBEgy3va3pzix/LafPsn4aDFIT2Xlxh0L5L8rLVyIwxtE3rAFBa8cr3qpP"},
      {"type":"tool_use","id":"toolu_1","name":"get_weather","input":{"location":"Paris"}}]},
    {"role":"user","content":[{"type":"tool_result","tool_use_id":"toolu_1","content":"20C"}]}]})";
  ir::Request req = decode_ok(body);
  const auto& parts = req.messages.at(1).parts;
  const auto& t = std::get<ir::ThinkingPart>(parts.at(0));
  EXPECT_EQ(t.text, "Need the tool.");
  EXPECT_EQ(t.signature, "EqQBCgIYAhIM1gbcDa9GJwZA2b3hGgxBdjrkzLoky3dl1pkiMOYds");
  const auto& r = std::get<ir::ThinkingPart>(parts.at(1));
  EXPECT_TRUE(r.redacted);
  EXPECT_EQ(r.redacted_data, "EmwKAhgBEgy3va3pzix/LafPsn4aDFIT2Xlxh0L5L8rLVyIwxtE3rAFBa8cr3qpP");
  EXPECT_EQ(parse(encode_ok(req)), parse(body));  // `thinking` config kept as an extra field
}

TEST(AnthropicRequest, UnsignedThinkingIsDroppedWithWarning) {
  ir::Request req;
  req.model = "m";
  req.max_tokens = 5;
  req.messages.push_back({ir::Role::user, {ir::TextPart{"q"}}, {}});
  req.messages.push_back(
      {ir::Role::assistant, {ir::ThinkingPart{"hmm", "", false, ""}, ir::TextPart{"a"}}, {}});
  Warnings warnings;
  json out = parse(encode_ok(req, &warnings));
  EXPECT_EQ(out["messages"][1]["content"], "a");  // what is left is one text block: the string form
  EXPECT_TRUE(has_warning(warnings, "dropped_unsigned_thinking"));
}

// Found by fuzz_anthropic_messages_request: an assistant turn holding only an
// unsigned thinking block writes nothing, so its user neighbours must become
// one message on the first encode, not only after a decode/encode round.
TEST(AnthropicRequest, DroppedEmptyMessageMergesItsNeighbours) {
  ir::Request req;
  req.model = "m";
  req.max_tokens = 5;
  req.messages.push_back({ir::Role::user, {ir::TextPart{"q"}}, {}});
  req.messages.push_back({ir::Role::assistant, {ir::ThinkingPart{"hmm", "", false, ""}}, {}});
  req.messages.push_back({ir::Role::user, {ir::TextPart{"more"}}, {}});
  Warnings warnings;
  const std::string out = encode_ok(req, &warnings);
  json j = parse(out);
  ASSERT_EQ(j["messages"].size(), 1u) << out;
  EXPECT_EQ(j["messages"][0]["content"],
            json::parse(R"([{"type":"text","text":"q"},{"type":"text","text":"more"}])"));
  EXPECT_TRUE(has_warning(warnings, "dropped_empty_message"));
  EXPECT_EQ(encode_ok(decode_ok(out)), out);  // a fixed point after one pass
}

TEST(AnthropicRequest, InvalidArgumentsAreWrappedAndRestored) {
  ir::Request req;
  req.model = "m";
  req.max_tokens = 5;
  req.messages.push_back({ir::Role::user, {ir::TextPart{"q"}}, {}});
  req.messages.push_back(
      {ir::Role::assistant,
       {ir::ToolCallPart{"c", "f", "{\"a\": 1,", false}, ir::ToolCallPart{"d", "f", "[1,2]", true}},
       {}});
  Warnings warnings;
  const std::string out = encode_ok(req, &warnings);
  json j = parse(out);
  EXPECT_EQ(j["messages"][1]["content"][0]["input"],
            json({{"__toolwire_invalid_arguments", "{\"a\": 1,"}}));
  EXPECT_EQ(j["messages"][1]["content"][1]["input"],
            json({{"__toolwire_invalid_arguments", "[1,2]"}}));
  EXPECT_TRUE(has_warning(warnings, "invalid_arguments_wrapped"));
  ir::Request back = decode_ok(out);
  const auto& call = std::get<ir::ToolCallPart>(back.messages[1].parts[0]);
  EXPECT_EQ(call.arguments, "{\"a\": 1,");
  EXPECT_FALSE(call.arguments_valid);
}

TEST(AnthropicRequest, CallIdsAreMappedOnCallAndResultAlike) {
  ir::Request req;
  req.model = "m";
  req.max_tokens = 5;
  req.messages.push_back({ir::Role::user, {ir::TextPart{"q"}}, {}});
  req.messages.push_back(
      {ir::Role::assistant, {ir::ToolCallPart{"call:1/x", "f", "{}", true}}, {}});
  req.messages.push_back(
      {ir::Role::tool, {ir::ToolResultPart{"call:1/x", {ir::TextPart{"ok"}}, false}}, {}});
  const std::string out = encode_ok(req);
  json j = parse(out);
  EXPECT_EQ(j["messages"][1]["content"][0]["id"], "tw-call-3a1-2fx");
  EXPECT_EQ(j["messages"][2]["content"][0]["tool_use_id"], "tw-call-3a1-2fx");
  ir::Request back = decode_ok(out);
  EXPECT_EQ(std::get<ir::ToolCallPart>(back.messages[1].parts[0]).id, "call:1/x");
  EXPECT_EQ(std::get<ir::ToolResultPart>(back.messages[2].parts[0]).call_id, "call:1/x");
}

TEST(AnthropicRequest, CrossDialectDefaultsAndWarnings) {
  ir::Request req;
  req.model = "gpt";
  req.source_dialect = "openai_chat";
  req.system = {{"You are terse.", false}, {"Dev rules.", true}};
  req.messages.push_back({ir::Role::user, {ir::TextPart{"q"}, ir::TextPart{""}}, {}});
  req.messages.push_back({ir::Role::system, {ir::TextPart{"Late rule."}}, {}});
  req.messages.push_back(
      {ir::Role::user, {ir::ImagePart{"data:image/png;base64,iVBOR", "", "", "high"}}, {}});
  req.messages.push_back(
      {ir::Role::user, {ir::UnknownPart{"openai_chat", "input_audio", "{}"}}, {}});
  req.tools.push_back({"f", "", R"({"type":"object"})", true});
  req.parallel_tool_calls = false;
  req.stop = {"END"};
  req.temperature = 0.5;
  req.metadata = R"({"user_id":"u1"})";
  req.extra.push_back({"user", "\"bob\""});
  req.extra.push_back({"x-unsupported-tool", R"({"type":"custom","name":"x"})"});
  Warnings warnings;
  json out = parse(encode_ok(req, &warnings));
  EXPECT_EQ(out["max_tokens"], 4096);
  EXPECT_EQ(out["system"], json::array({{{"type", "text"}, {"text", "You are terse."}},
                                        {{"type", "text"}, {"text", "Dev rules."}},
                                        {{"type", "text"}, {"text", "Late rule."}}}));
  // The three user messages (system moved out) merge into one.
  ASSERT_EQ(out["messages"].size(), 1u);
  EXPECT_EQ(out["messages"][0]["content"].size(), 2u);
  EXPECT_EQ(out["messages"][0]["content"][1]["source"],
            json({{"type", "base64"}, {"media_type", "image/png"}, {"data", "iVBOR"}}));
  EXPECT_EQ(out["tool_choice"], json({{"type", "auto"}, {"disable_parallel_tool_use", true}}));
  EXPECT_EQ(out["tools"], json::array({{{"name", "f"}, {"input_schema", {{"type", "object"}}}}}));
  EXPECT_EQ(out["stop_sequences"], json::array({"END"}));
  EXPECT_EQ(out["temperature"], 0.5);
  EXPECT_EQ(out["metadata"], json({{"user_id", "u1"}}));
  EXPECT_FALSE(out.contains("user"));
  for (const char* code : {"defaulted_max_tokens", "moved_system_message", "dropped_unknown_field",
                           "dropped_unsupported_tool", "dropped_unknown_part",
                           "dropped_image_detail", "dropped_tool_strict"})
    EXPECT_TRUE(has_warning(warnings, code)) << code;
  for (const auto& w : warnings) {
    if (w.code == "dropped_unknown_field") {
      EXPECT_EQ(w.path, "$.user");
    }
  }
}

TEST(AnthropicRequest, ToolChoiceMapping) {
  auto choice_of = [](ir::ToolChoice::Kind kind, std::optional<bool> parallel) {
    ir::Request req;
    req.model = "m";
    req.max_tokens = 1;
    req.tool_choice = ir::ToolChoice{kind, kind == ir::ToolChoice::Kind::tool ? "f" : ""};
    req.parallel_tool_calls = parallel;
    return parse(encode_ok(req))["tool_choice"];
  };
  using K = ir::ToolChoice::Kind;
  EXPECT_EQ(choice_of(K::required, std::nullopt), json({{"type", "any"}}));
  EXPECT_EQ(choice_of(K::none, false), json({{"type", "none"}}));
  EXPECT_EQ(choice_of(K::tool, false),
            json({{"type", "tool"}, {"name", "f"}, {"disable_parallel_tool_use", true}}));
  EXPECT_EQ(choice_of(K::auto_, true),
            json({{"type", "auto"}, {"disable_parallel_tool_use", false}}));
  ir::Request req = decode_ok(R"({"model":"m","messages":[],"tool_choice":{"type":"tool","name":"f",
                                 "disable_parallel_tool_use":true}})");
  EXPECT_EQ(req.tool_choice->kind, K::tool);
  EXPECT_EQ(req.tool_choice->name, "f");
  EXPECT_EQ(req.parallel_tool_calls, false);
}

TEST(AnthropicRequest, UnknownFieldsAndServerToolsPassThroughSameDialect) {
  const std::string body =
      R"({"model":"m","max_tokens":9,"top_k":5,"service_tier":"auto","messages":[
    {"role":"user","content":[{"type":"text","text":"see"},{"type":"document","source":{"type":"text",
     "media_type":"text/plain","data":"doc"}},{"type":"image","source":{"type":"url","url":"https://x/y.png"}}]}],
    "tools":[{"name":"f","input_schema":{"type":"object"}},{"type":"web_search_20250305","name":"web_search"}],
    "system":[{"type":"text","text":"A"},{"type":"text","text":"B"}],"stop_sequences":["x"],"top_p":0.9,
    "metadata":{"user_id":"u"}})";
  ir::Request req = decode_ok(body);
  EXPECT_EQ(req.top_k, 5);  // the IR's, written back in place
  ASSERT_EQ(req.extra.size(), 2u);
  EXPECT_EQ(req.extra[0].key, "service_tier");
  EXPECT_EQ(req.extra[1].key, "x-unsupported-tool");
  Warnings warnings;
  EXPECT_EQ(parse(encode_ok(req, &warnings)), parse(body));
  EXPECT_TRUE(warnings.empty());
}

// Prompt caching and the other block and tool members the IR has no field for
// (issue 23): kept for Anthropic, written back into the same blocks.
constexpr const char* kCachedRequest =
    R"({"model":"m","max_tokens":9,"system":[{"type":"text","text":"A"},)"
    R"({"type":"text","text":"B","cache_control":{"type":"ephemeral","ttl":"1h"}}],)"
    R"("messages":[{"role":"user","content":[{"type":"text","text":"q",)"
    R"("cache_control":{"type":"ephemeral"}}]},{"role":"assistant","content":[)"
    R"({"type":"text","text":"t","citations":[{"type":"char_location","cited_text":"x",)"
    R"("document_index":0,"start_char_index":0,"end_char_index":1}]},)"
    R"({"type":"tool_use","id":"toolu_1","name":"f","input":{}}]},{"role":"user","content":[)"
    R"({"type":"tool_result","tool_use_id":"toolu_1","content":"r",)"
    R"("cache_control":{"type":"ephemeral"}},{"type":"text","text":"more",)"
    R"("cache_control":{"type":"ephemeral"}}]}],"tools":[{"name":"f","input_schema":)"
    R"({"type":"object"},"defer_loading":false,"cache_control":{"type":"ephemeral"}}]})";

TEST(AnthropicRequest, CacheControlSurvivesSameDialect) {
  Warnings decode_warnings, warnings;
  ir::Request req = decode_ok(kCachedRequest, &decode_warnings);
  EXPECT_TRUE(decode_warnings.empty());
  ASSERT_EQ(req.messages.size(), 4u);  // user, assistant, tool, user
  const std::string out = encode_ok(req, &warnings);
  EXPECT_EQ(parse(out), parse(kCachedRequest));
  EXPECT_EQ(out, kCachedRequest);  // byte for byte
  EXPECT_TRUE(warnings.empty()) << warnings.front().code << " " << warnings.front().path;
  // The borrowed IR of translate_request keeps them too.
  Warnings w2;
  auto fast = translate_request(codec(), codec(), kCachedRequest, w2);
  ASSERT_TRUE(fast.ok());
  EXPECT_EQ(*fast, kCachedRequest);
  EXPECT_TRUE(w2.empty());
}

TEST(AnthropicRequest, CacheControlDroppedWithWarningAcrossDialects) {
  for (const char* target : {"openai_chat", "openai_responses", "gemini", "bedrock_converse"}) {
    Warnings warnings;
    auto out = translate_request(codec(), *find_codec(target), kCachedRequest, warnings);
    ASSERT_TRUE(out.ok()) << target << ": " << out.error().to_string();
    EXPECT_EQ(out->find("cache_control"), std::string::npos) << target;
    std::vector<std::string> paths;
    for (const auto& w : warnings)
      if (w.code == "dropped_unknown_field") paths.push_back(w.path);
    for (const char* path :
         {"$.system[1].cache_control", "$.messages[0].content[0].cache_control",
          "$.messages[1].content[0].citations", "$.messages[2].content[0].cache_control",
          "$.messages[2].content[1].cache_control", "$.tools[0].defer_loading",
          "$.tools[0].cache_control"})
      EXPECT_NE(std::find(paths.begin(), paths.end(), path), paths.end()) << target << " " << path;
  }
}

// cache_control on the blocks inside a tool_result's content (gap 1): written
// back into the same inner block, dropped with a warning at its path elsewhere.
constexpr const char* kCachedResult =
    R"({"model":"m","max_tokens":10,"messages":[{"role":"user","content":"q"},)"
    R"({"role":"assistant","content":[{"type":"tool_use","id":"toolu_1","name":"f","input":{}}]},)"
    R"({"role":"user","content":[{"type":"tool_result","tool_use_id":"toolu_1","content":[)"
    R"({"type":"text","text":"big","cache_control":{"type":"ephemeral"}}]},)"
    R"({"type":"text","text":"go on"}]}]})";

TEST(AnthropicRequest, ToolResultBlockCacheControlSurvivesSameDialect) {
  Warnings decode_warnings, warnings;
  ir::Request req = decode_ok(kCachedResult, &decode_warnings);
  EXPECT_TRUE(decode_warnings.empty());
  EXPECT_EQ(parse(encode_ok(req, &warnings)), parse(kCachedResult));
  EXPECT_TRUE(warnings.empty()) << warnings.front().code << " " << warnings.front().path;
  Warnings w2;
  auto fast = translate_request(codec(), codec(), kCachedResult, w2);
  ASSERT_TRUE(fast.ok());
  EXPECT_EQ(parse(*fast), parse(kCachedResult));
  EXPECT_TRUE(w2.empty());
}

TEST(AnthropicRequest, ToolResultBlockCacheControlWarnsAcrossDialects) {
  for (const char* target : {"openai_chat", "openai_responses", "gemini", "bedrock_converse"}) {
    Warnings warnings;
    auto out = translate_request(codec(), *find_codec(target), kCachedResult, warnings);
    ASSERT_TRUE(out.ok()) << target << ": " << out.error().to_string();
    EXPECT_EQ(out->find("cache_control"), std::string::npos) << target;
    EXPECT_TRUE(has_warning(warnings, "dropped_unknown_field",
                            "$.messages[2].content[0].content[0].cache_control"))
        << target;
  }
}

TEST(AnthropicRequest, PlacedMemberWhoseBlockIsGoneWarns) {
  ir::Request req = decode_ok(kCachedRequest);
  req.tools.clear();
  Warnings warnings;
  const json out = parse(encode_ok(req, &warnings));
  EXPECT_FALSE(out.contains("tools"));
  size_t lost = 0;
  for (const auto& w : warnings)
    if (w.code == "dropped_unknown_field" && w.path.starts_with("$.tools[0].")) ++lost;
  EXPECT_EQ(lost, 2u);
}

TEST(AnthropicRequest, UsageOfNullAndStringSystem) {
  ir::Request req =
      decode_ok(R"({"model":"m","system":"Be brief.","temperature":null,"messages":[]})");
  ASSERT_EQ(req.system.size(), 1u);
  EXPECT_EQ(req.system[0].text, "Be brief.");
  EXPECT_FALSE(req.temperature);
  EXPECT_EQ(parse(encode_ok(req))["system"], "Be brief.");
}

// ---- bad input: typed errors naming the JSON path ----

struct BadCase {
  const char* name;
  std::string body;
  ErrorCode code;
  std::string path;
  std::string message_part;
};

class BadRequest : public ::testing::TestWithParam<BadCase> {};

TEST_P(BadRequest, FailsWithPath) {
  const BadCase& c = GetParam();
  Error e = decode_error_of(c.body);
  EXPECT_EQ(e.code, c.code) << e.to_string();
  EXPECT_EQ(e.path, c.path) << e.to_string();
  EXPECT_NE(e.message.find(c.message_part), std::string::npos) << e.to_string();
}

std::string deep(size_t depth) { return std::string(depth, '[') + std::string(depth, ']'); }

const std::string kCall =
    R"({"role":"assistant","content":[{"type":"tool_use","id":"t1","name":"f","input":{}}]})";

INSTANTIATE_TEST_SUITE_P(
    Cases, BadRequest,
    ::testing::Values(
        BadCase{"malformed", R"({"model":"m","messages":[)", ErrorCode::parse_error, "$",
                "malformed JSON at byte 25 (line 1, column 26): unexpected end of input"},
        BadCase{"empty", "", ErrorCode::parse_error, "$", "empty"},
        BadCase{"not_object", "[1]", ErrorCode::invalid_argument, "$",
                "expected object, got array"},
        BadCase{"no_messages", R"({"model":"m"})", ErrorCode::invalid_argument, "$", "messages"},
        BadCase{"max_tokens_type", R"({"max_tokens":"9","messages":[]})",
                ErrorCode::invalid_argument, "$.max_tokens", "expected integer, got string"},
        BadCase{"content_type", R"({"messages":[{"role":"user","content":5}]})",
                ErrorCode::invalid_argument, "$.messages[0].content", "expected array, got number"},
        BadCase{"unknown_role",
                R"({"messages":[{"role":"user","content":"a"},{"role":"bot","content":"b"}]})",
                ErrorCode::invalid_argument, "$.messages[1].role", "unknown role 'bot'"},
        BadCase{"no_matching_call",
                R"({"messages":[)" + kCall +
                    R"(,{"role":"user","content":[{"type":"tool_result",)"
                    R"("tool_use_id":"t2","content":"x"}]}]})",
                ErrorCode::invalid_argument, "$.messages[1].content[0].tool_use_id",
                "no earlier tool_use"},
        BadCase{
            "result_before_call",
            R"({"messages":[{"role":"user","content":[{"type":"tool_result","tool_use_id":"t1"}]},)" +
                kCall + "]}",
            ErrorCode::invalid_argument, "$.messages[0].content[0].tool_use_id", "t1"},
        BadCase{
            "tool_use_in_user",
            R"({"messages":[{"role":"user","content":[{"type":"tool_use","id":"a","name":"f","input":{}}]}]})",
            ErrorCode::invalid_argument, "$.messages[0].content[0].type",
            "not allowed in user content"},
        BadCase{
            "empty_id",
            R"({"messages":[{"role":"assistant","content":[{"type":"tool_use","id":"","name":"f"}]}]})",
            ErrorCode::invalid_argument, "$.messages[0].content[0].id", "must not be empty"},
        BadCase{
            "input_not_object",
            R"({"messages":[{"role":"assistant","content":[{"type":"tool_use","id":"a","name":"f","input":"x"}]}]})",
            ErrorCode::invalid_argument, "$.messages[0].content[0].input", "expected object"},
        BadCase{"block_without_type", R"({"messages":[{"role":"user","content":[{"text":"a"}]}]})",
                ErrorCode::invalid_argument, "$.messages[0].content[0]",
                "missing required field 'type'"},
        BadCase{
            "image_source",
            R"({"messages":[{"role":"user","content":[{"type":"image","source":{"type":"base64"}}]}]})",
            ErrorCode::invalid_argument, "$.messages[0].content[0].source", "media_type"},
        BadCase{"tool_schema", R"({"messages":[],"tools":[{"name":"f","input_schema":[]}]})",
                ErrorCode::invalid_argument, "$.tools[0].input_schema", "expected object"},
        BadCase{"tool_choice", R"({"messages":[],"tool_choice":{"type":"maybe"}})",
                ErrorCode::invalid_argument, "$.tool_choice.type", "unknown tool_choice type"},
        BadCase{"stop_type", R"({"messages":[],"stop_sequences":["a",1]})",
                ErrorCode::invalid_argument, "$.stop_sequences[1]", "expected string"},
        BadCase{"system_block", R"({"messages":[],"system":[{"type":"image"}]})",
                ErrorCode::invalid_argument, "$.system[0].type", "must be 'text'"},
        BadCase{"max_tokens_range", R"({"max_tokens":1e19,"messages":[]})",
                ErrorCode::invalid_argument, "$.max_tokens", "expected integer"},
        BadCase{"reserved_key", R"({"messages":[],"x-unsupported-tool":{}})",
                ErrorCode::invalid_argument, "$.x-unsupported-tool", "reserved"},
        BadCase{"invalid_utf8", "{\"messages\":[{\"role\":\"user\",\"content\":\"\xff\xfe\"}]}",
                ErrorCode::parse_error, "$", "invalid UTF-8"},
        BadCase{"deep_nesting", R"({"messages":[],"top_k":)" + deep(10000) + "}",
                ErrorCode::parse_error, "$", "nested too deeply"},
        BadCase{
            "deep_input",
            R"({"messages":[{"role":"assistant","content":[{"type":"tool_use","id":"a","name":"f","input":{"a":)" +
                deep(10000) + "}}]}]}",
            ErrorCode::parse_error, "$", "nested too deeply"}),
    [](const auto& info) { return std::string(info.param.name); });

TEST(AnthropicRequest, InvalidIrIsRejectedNotWrittenBroken) {
  ir::Request req;
  req.model = "m";
  req.max_tokens = 1;
  req.tools.push_back({"f", "", "{not json", std::nullopt});
  Warnings warnings;
  auto r = codec().encode_request(req, warnings);
  ASSERT_FALSE(r.ok());
  EXPECT_EQ(r.error().path, "$.tools[0].input_schema");
}

TEST(AnthropicRequest, NonObjectSchemaTypeIsRefused) {
  Error e = decode_error_of(R"({"model":"m","max_tokens":1,"messages":[],)"
                            R"("tools":[{"name":"f","input_schema":{"type":"string"}}]})");
  EXPECT_EQ(e.code, ErrorCode::invalid_argument);
  EXPECT_EQ(e.path, "$.tools[0].input_schema.type");
  EXPECT_NE(e.message.find(R"(must be of type "object")"), std::string::npos) << e.message;
}

TEST(AnthropicRequest, DuplicateKeysKeepTheLastValueAndWarn) {
  Warnings w;
  auto r = codec().decode_request(
      R"({"model":"a","max_tokens":1,"system":"one","messages":[{"role":"user","content":"x"}],)"
      R"("model":"b","system":"two","messages":[{"role":"user","content":"y"}],"max_tokens":2})",
      w);
  ASSERT_TRUE(r.ok()) << r.error().to_string();
  EXPECT_EQ(r->model, "b");
  EXPECT_EQ(r->max_tokens, 2);
  ASSERT_EQ(r->system.size(), 1u);
  EXPECT_EQ(r->system[0].text, "two");
  ASSERT_EQ(r->messages.size(), 1u);
  EXPECT_EQ(std::get<ir::TextPart>(r->messages[0].parts[0]).text, "y");
  ASSERT_EQ(w.size(), 4u);
  EXPECT_EQ(w[0].code, "duplicate_key");
  EXPECT_EQ(w[0].path, "$.model");
  EXPECT_EQ(w[3].path, "$.max_tokens");
  // No repeat, no warning.
  Warnings none;
  ASSERT_TRUE(
      codec()
          .decode_request(R"({"model":"a","max_tokens":1,"messages":[],"metadata":{}})", none)
          .ok());
  EXPECT_TRUE(none.empty());
}

}  // namespace
}  // namespace toolwire::dialects::anthropic_test
