// openai_chat requests: golden fixtures, translation rules, bad input.
#include <gtest/gtest.h>

#include "test_util.h"

namespace toolwire::dialects::openai_chat_test {
namespace {

using nlohmann::json;

ir::Request decode_ok(const std::string& body, Warnings* warnings = nullptr) {
  Warnings local;
  auto r = openai().decode_request(body, warnings ? *warnings : local);
  EXPECT_TRUE(r.ok()) << r.error().to_string();
  return r.ok() ? std::move(r).value() : ir::Request{};
}

json encode_json(const ir::Request& req, Warnings* warnings = nullptr) {
  Warnings local;
  auto r = openai().encode_request(req, warnings ? *warnings : local);
  EXPECT_TRUE(r.ok());
  return json::parse(*r);
}

Error decode_err(const std::string& body) {
  Warnings w;
  auto r = openai().decode_request(body, w);
  EXPECT_FALSE(r.ok()) << "decoded: " << body.substr(0, 200);
  return r.ok() ? Error{} : r.error();
}

TEST(OpenAiRequestGolden, ToolCallsRequestRoundTrips) {
  std::string body = read_fixture("openai-chat-tool-calls.request.json");
  ir::Request req = decode_ok(body);
  EXPECT_EQ(req.model, "gpt-5.4");
  ASSERT_EQ(req.messages.size(), 1u);
  EXPECT_EQ(req.messages[0].role, ir::Role::user);
  ASSERT_EQ(req.messages[0].parts.size(), 1u);
  EXPECT_EQ(std::get<ir::TextPart>(req.messages[0].parts[0]).text,
            "What is the weather like in Boston today?");
  ASSERT_EQ(req.tools.size(), 1u);
  EXPECT_EQ(req.tools[0].name, "get_current_weather");
  EXPECT_EQ(json::parse(req.tools[0].input_schema)["required"], json::array({"location"}));
  ASSERT_TRUE(req.tool_choice);
  EXPECT_EQ(req.tool_choice->kind, ir::ToolChoice::Kind::auto_);
  EXPECT_TRUE(req.extra.empty());
  EXPECT_EQ(encode_json(req), json::parse(body));
}

TEST(OpenAiRequestGolden, StreamRequestKeepsUnknownFieldsAndStrict) {
  std::string body = read_fixture("openai-chat-stream-tool-calls.request.json");
  ir::Request req = decode_ok(body);
  EXPECT_TRUE(req.stream);
  ASSERT_EQ(req.tools.size(), 1u);
  EXPECT_EQ(req.tools[0].strict, std::optional<bool>(true));
  ASSERT_EQ(req.extra.size(), 1u);
  EXPECT_EQ(req.extra[0].key, "store");
  EXPECT_EQ(req.extra[0].raw_json, "true");
  EXPECT_EQ(encode_json(req), json::parse(body));

  // Translating to another dialect drops `store` with a visible warning.
  req.source_dialect = "anthropic_messages";
  Warnings w;
  json out = encode_json(req, &w);
  EXPECT_FALSE(out.contains("store"));
  EXPECT_TRUE(has_warning(w, "dropped_unknown_field", "$.store"));
}

TEST(OpenAiRequestGolden, PublishedToolCallsInAConversation) {
  json calls = json::parse(read_fixture("openai-chat-message-tool_calls.json"));
  json body = {{"model", "gpt-4.1"},
               {"messages",
                {{{"role", "user"}, {"content", "Weather in Paris?"}},
                 {{"role", "assistant"}, {"content", nullptr}, {"tool_calls", calls}},
                 {{"role", "tool"},
                  {"tool_call_id", "call_12345xyz"},
                  {"content", "{\"temperature\":14}"}}}}};
  ir::Request req = decode_ok(body.dump());
  ASSERT_EQ(req.messages.size(), 3u);
  const auto& call = std::get<ir::ToolCallPart>(req.messages[1].parts.at(0));
  EXPECT_EQ(call.id, "call_12345xyz");
  EXPECT_EQ(call.name, "get_weather");
  EXPECT_EQ(call.arguments, "{\"latitude\":48.8566,\"longitude\":2.3522}");
  EXPECT_TRUE(call.arguments_valid);
  const auto& result = std::get<ir::ToolResultPart>(req.messages[2].parts.at(0));
  EXPECT_EQ(result.call_id, "call_12345xyz");
  EXPECT_FALSE(result.is_error);
  EXPECT_EQ(encode_json(req), body);
}

// Both token limits (issue 23): max_completion_tokens is the IR's limit; the
// legacy max_tokens is kept for OpenAI Chat and warned about elsewhere.
TEST(OpenAiRequestRules, MaxTokensBesideMaxCompletionTokensIsNotLostSilently) {
  const std::string body =
      R"({"model":"gpt","messages":[{"role":"user","content":"q"}],"max_tokens":50,)"
      R"("max_completion_tokens":100})";
  ir::Request req = decode_ok(body);
  EXPECT_EQ(req.max_tokens, 100);
  Warnings warnings;
  EXPECT_EQ(encode_json(req, &warnings), json::parse(body));
  EXPECT_TRUE(warnings.empty());
  Warnings cross;
  auto out = find_codec("anthropic_messages")->encode_request(req, cross);
  ASSERT_TRUE(out.ok());
  EXPECT_EQ(json::parse(*out)["max_tokens"], 100);
  EXPECT_TRUE(has_warning(cross, "dropped_unknown_field", "$.max_tokens"));
}

// An assistant message's `audio: {id}` (an earlier audio answer referred to
// by id) is kept for OpenAI, through the borrowed path of translate_request
// too, and dropped with a warning elsewhere: `dropped_unknown_part`, or,
// where the message is left with nothing the target takes (audio alone, into
// `anthropic`, `gemini`, `bedrock`), `dropped_empty_message` at the message.
TEST(OpenAiRequestRules, AssistantAudioIdSurvivesSameDialectAndWarnsElsewhere) {
  const std::string alone =
      R"({"model":"gpt-4o-audio-preview","messages":[{"role":"user","content":"say hi"},)"
      R"({"role":"assistant","content":null,"audio":{"id":"audio_abc"}},)"
      R"({"role":"user","content":"again"}]})";
  for (const char* other : {"anthropic_messages", "gemini", "bedrock_converse"}) {
    Warnings cross;
    auto out = translate_request(openai(), *find_codec(other), alone, cross);
    ASSERT_TRUE(out.ok()) << other << ": " << out.error().to_string();
    EXPECT_TRUE(has_warning(cross, "dropped_empty_message", "$.messages[1]"))
        << other << ": " << testing::warnings_text(cross);
  }
  const std::string body =
      R"({"model":"gpt-4o-audio-preview","messages":[{"role":"user","content":"say hi"},)"
      R"({"role":"assistant","content":"Hi.","audio":{"id":"audio_abc"}},)"
      R"({"role":"user","content":"again"}]})";
  Warnings same;
  ir::Request req = decode_ok(body, &same);
  EXPECT_EQ(encode_json(req, &same), json::parse(body));
  EXPECT_TRUE(same.empty()) << testing::warnings_text(same);
  Warnings borrowed;
  auto through = translate_request(openai(), openai(), body, borrowed);
  ASSERT_TRUE(through.ok()) << through.error().to_string();
  EXPECT_EQ(json::parse(*through), json::parse(body));
  EXPECT_TRUE(borrowed.empty()) << testing::warnings_text(borrowed);
  for (const char* other :
       {"anthropic_messages", "openai_responses", "gemini", "bedrock_converse"}) {
    Warnings cross;
    auto out = translate_request(openai(), *find_codec(other), body, cross);
    ASSERT_TRUE(out.ok()) << other << ": " << out.error().to_string();
    EXPECT_TRUE(has_warning(cross, "dropped_unknown_part"))
        << other << ": " << testing::warnings_text(cross);
    EXPECT_EQ(out->find("audio_abc"), std::string::npos) << other << ": " << *out;
  }
}

TEST(OpenAiRequestRules, SystemMessagesLeadingAndMidConversation) {
  json body = {{"model", "m"},
               {"messages",
                {{{"role", "system"}, {"content", "be brief"}},
                 {{"role", "developer"}, {"content", {{{"type", "text"}, {"text", "use tools"}}}}},
                 {{"role", "user"}, {"content", "hi"}},
                 {{"role", "system"}, {"content", "later"}}}}};
  Warnings w;
  ir::Request req = decode_ok(body.dump(), &w);
  ASSERT_EQ(req.system.size(), 2u);
  EXPECT_EQ(req.system[0], (ir::SystemPart{"be brief", false}));
  EXPECT_EQ(req.system[1], (ir::SystemPart{"use tools", true}));
  ASSERT_EQ(req.messages.size(), 2u);
  EXPECT_EQ(req.messages[1].role, ir::Role::system);
  json out = encode_json(req);
  EXPECT_EQ(out["messages"][1], (json{{"role", "developer"}, {"content", "use tools"}}));
  EXPECT_EQ(out["messages"][3], (json{{"role", "system"}, {"content", "later"}}));
}

TEST(OpenAiRequestRules, ConsecutiveToolMessagesFormOneIrMessageAndSplitBack) {
  json body = {
      {"model", "m"},
      {"messages",
       {{{"role", "user"}, {"content", "go"}},
        {{"role", "assistant"},
         {"content", "Checking."},
         {"tool_calls",
          {{{"id", "a"}, {"type", "function"}, {"function", {{"name", "f"}, {"arguments", "{}"}}}},
           {{"id", "b"},
            {"type", "function"},
            {"function", {{"name", "g"}, {"arguments", "{\"x\":1}"}}}}}}},
        {{"role", "tool"}, {"tool_call_id", "a"}, {"content", "one"}},
        {{"role", "tool"}, {"tool_call_id", "b"}, {"content", "Error: boom"}}}}};
  ir::Request req = decode_ok(body.dump());
  ASSERT_EQ(req.messages.size(), 3u);
  const auto& asst = req.messages[1];
  ASSERT_EQ(asst.parts.size(), 3u);
  EXPECT_EQ(std::get<ir::TextPart>(asst.parts[0]).text, "Checking.");  // text first, then calls
  const auto& tool = req.messages[2];
  EXPECT_EQ(tool.role, ir::Role::tool);
  ASSERT_EQ(tool.parts.size(), 2u);
  EXPECT_EQ(std::get<ir::ToolResultPart>(tool.parts[0]).call_id, "a");
  const auto& err = std::get<ir::ToolResultPart>(tool.parts[1]);
  EXPECT_EQ(err.call_id, "b");
  EXPECT_TRUE(err.is_error);  // the "Error: " convention
  ASSERT_EQ(err.content.size(), 1u);
  EXPECT_EQ(std::get<ir::TextPart>(err.content[0]).text, "boom");
  EXPECT_EQ(encode_json(req), body);
}

TEST(OpenAiRequestRules, ErrorResultWithoutTextGetsThePrefixAlone) {
  ir::Request req;
  req.model = "m";
  req.messages.push_back({ir::Role::assistant, {ir::ToolCallPart{"c1", "f", "{}", true}}, {}});
  ir::ToolResultPart r;
  r.call_id = "c1";
  r.is_error = true;
  req.messages.push_back({ir::Role::tool, {r}, {}});
  json out = encode_json(req);
  EXPECT_EQ(out["messages"][1]["content"], "Error: ");
  ir::Request back = decode_ok(out.dump());
  EXPECT_EQ(back.messages[1], req.messages[1]);
}

// Every shape of a tool message's content: one text is a string; several
// texts, or kept raw parts, make an array with the error prefix on the first
// text (or alone before the raw parts); another dialect's part is dropped
// with one warning.
TEST(OpenAiRequestRules, ToolResultContentShapes) {
  auto encode_result = [](ir::ToolResultPart r, Warnings* w = nullptr) {
    ir::Request req;
    req.model = "m";
    req.messages.push_back({ir::Role::assistant, {ir::ToolCallPart{"c1", "f", "{}", true}}, {}});
    r.call_id = "c1";
    req.messages.push_back({ir::Role::tool, {r}, {}});
    return encode_json(req, w)["messages"][1]["content"];
  };
  const ir::UnknownPart own{"openai_chat", "file", R"({"type":"file","file":{"file_id":"f1"}})"};
  const ir::UnknownPart other{"anthropic_messages", "document", R"({"type":"document"})"};
  EXPECT_EQ(encode_result({"", {ir::TextPart{"a"}}, true}), "Error: a");
  EXPECT_EQ(encode_result({"", {ir::TextPart{"a"}, ir::TextPart{"b"}}, true}),
            json::parse(R"([{"type":"text","text":"Error: a"},{"type":"text","text":"b"}])"));
  EXPECT_EQ(encode_result({"", {ir::TextPart{"a"}, ir::TextPart{"b"}}, false}),
            json::parse(R"([{"type":"text","text":"a"},{"type":"text","text":"b"}])"));
  EXPECT_EQ(
      encode_result({"", {own}, true}),
      json::parse(R"([{"type":"text","text":"Error: "},{"type":"file","file":{"file_id":"f1"}}])"));
  EXPECT_EQ(encode_result({"", {own, ir::TextPart{"a"}}, false}),
            json::parse(R"([{"type":"text","text":"a"},{"type":"file","file":{"file_id":"f1"}}])"));
  Warnings w;
  EXPECT_EQ(encode_result({"", {ir::TextPart{"a"}, other}, false}, &w), "a");
  size_t dropped = 0;
  for (const auto& x : w) dropped += x.code == "dropped_unknown_part";
  EXPECT_EQ(dropped, 1u);
}

TEST(OpenAiRequestRules, ReasoningContentIsThinking) {
  json body = {{"model", "deepseek"},
               {"messages",
                {{{"role", "user"}, {"content", "2+2?"}},
                 {{"role", "assistant"}, {"content", "4"}, {"reasoning_content", "add them"}}}}};
  ir::Request req = decode_ok(body.dump());
  const auto& parts = req.messages[1].parts;
  ASSERT_EQ(parts.size(), 2u);
  EXPECT_EQ(std::get<ir::ThinkingPart>(parts[0]).text, "add them");
  EXPECT_EQ(std::get<ir::TextPart>(parts[1]).text, "4");
  EXPECT_EQ(encode_json(req), body);

  // A signature cannot be expressed: warned.
  std::get<ir::ThinkingPart>(req.messages[1].parts[0]).signature = "sig";
  Warnings w;
  encode_json(req, &w);
  EXPECT_TRUE(has_warning(w, "dropped_thinking_signature"));
}

TEST(OpenAiRequestRules, ImagesDataUrlAndPlainUrl) {
  json body = {
      {"model", "m"},
      {"messages",
       {{{"role", "user"},
         {"content",
          {{{"type", "text"}, {"text", "what is this"}},
           {{"type", "image_url"}, {"image_url", {{"url", "data:image/png;base64,iVBORw0KGgo="}}}},
           {{"type", "image_url"},
            {"image_url", {{"url", "https://x.test/a.jpg"}, {"detail", "high"}}}},
           {{"type", "input_audio"}, {"input_audio", {{"data", "AAAA"}, {"format", "wav"}}}}}}}}}};
  ir::Request req = decode_ok(body.dump());
  const auto& parts = req.messages[0].parts;
  ASSERT_EQ(parts.size(), 4u);
  const auto& png = std::get<ir::ImagePart>(parts[1]);
  EXPECT_EQ(png.media_type, "image/png");
  EXPECT_EQ(png.data, "iVBORw0KGgo=");
  EXPECT_TRUE(png.url.empty());
  const auto& jpg = std::get<ir::ImagePart>(parts[2]);
  EXPECT_EQ(jpg.url, "https://x.test/a.jpg");
  EXPECT_EQ(jpg.detail, "high");
  const auto& audio = std::get<ir::UnknownPart>(parts[3]);
  EXPECT_EQ(audio.type, "input_audio");
  EXPECT_EQ(encode_json(req), body);

  // Another dialect drops the unknown part with a warning.
  auto copy = req;
  std::get<ir::UnknownPart>(copy.messages[0].parts[3]).dialect = "anthropic_messages";
  Warnings w;
  json out = encode_json(copy, &w);
  EXPECT_EQ(out["messages"][0]["content"].size(), 3u);
  EXPECT_TRUE(has_warning(w, "dropped_unknown_part", "$.messages[0].content[3]"));  // the part
}

TEST(OpenAiRequestRules, ToolResultImagesMoveToAUserMessage) {
  ir::Request req;
  req.model = "m";
  req.messages.push_back(
      {ir::Role::assistant, {ir::ToolCallPart{"c1", "screenshot", "{}", true}}, {}});
  ir::ToolResultPart r;
  r.call_id = "c1";
  r.content.push_back(ir::TextPart{"done"});
  ir::ImagePart img;
  img.media_type = "image/png";
  img.data = "QUJD";
  r.content.push_back(img);
  req.messages.push_back({ir::Role::tool, {r}, {}});
  Warnings w;
  json out = encode_json(req, &w);
  ASSERT_EQ(out["messages"].size(), 3u);
  EXPECT_EQ(out["messages"][1],
            (json{{"role", "tool"}, {"tool_call_id", "c1"}, {"content", "done"}}));
  EXPECT_EQ(out["messages"][2]["role"], "user");
  EXPECT_EQ(out["messages"][2]["content"][0]["text"], "Image returned by tool call c1:");
  EXPECT_EQ(out["messages"][2]["content"][1]["image_url"]["url"], "data:image/png;base64,QUJD");
  EXPECT_TRUE(has_warning(w, "tool_result_image_moved"));
}

TEST(OpenAiRequestRules, ArgumentsInvalidEmptyAndPreserved) {
  json body = {{"model", "m"},
               {"messages",
                {{{"role", "assistant"},
                  {"content", nullptr},
                  {"tool_calls",
                   {{{"id", "a"},
                     {"type", "function"},
                     {"function", {{"name", "f"}, {"arguments", "{\"x\": 1"}}}},
                    {{"id", "b"},
                     {"type", "function"},
                     {"function", {{"name", "g"}, {"arguments", ""}}}}}}}}}};
  ir::Request req = decode_ok(body.dump());
  const auto& bad = std::get<ir::ToolCallPart>(req.messages[0].parts[0]);
  EXPECT_EQ(bad.arguments, "{\"x\": 1");
  EXPECT_FALSE(bad.arguments_valid);
  const auto& empty = std::get<ir::ToolCallPart>(req.messages[0].parts[1]);
  EXPECT_EQ(empty.arguments, "{}");
  EXPECT_TRUE(empty.arguments_valid);
  json out = encode_json(req);
  EXPECT_EQ(out["messages"][0]["tool_calls"][0]["function"]["arguments"], "{\"x\": 1");
}

TEST(OpenAiRequestRules, ScalarsToolChoiceStopAndMaxTokens) {
  json body = {{"model", "m"},
               {"messages", {{{"role", "user"}, {"content", "x"}}}},
               {"tools", {{{"type", "function"}, {"function", {{"name", "f"}}}}}},
               {"tool_choice", {{"type", "function"}, {"function", {{"name", "f"}}}}},
               {"parallel_tool_calls", false},
               {"max_tokens", 100},
               {"temperature", 0.7},
               {"top_p", 0.9},
               {"stop", "END"},
               {"metadata", {{"k", "v"}}},
               {"user", "u-1"}};
  ir::Request req = decode_ok(body.dump());
  EXPECT_EQ(req.tool_choice, (ir::ToolChoice{ir::ToolChoice::Kind::tool, "f"}));
  EXPECT_EQ(req.parallel_tool_calls, std::optional<bool>(false));
  EXPECT_EQ(req.max_tokens, std::optional<int64_t>(100));
  EXPECT_EQ(req.temperature, std::optional<double>(0.7));
  EXPECT_EQ(req.stop, std::vector<std::string>{"END"});
  EXPECT_EQ(req.metadata, "{\"k\":\"v\"}");
  EXPECT_EQ(req.tools[0].input_schema, R"({"type":"object","properties":{}})");  // default schema
  json out = encode_json(req);
  // Documented normalisations: max_completion_tokens, stop as an array, default parameters.
  json expected = body;
  expected.erase("max_tokens");
  expected["max_completion_tokens"] = 100;
  expected["stop"] = json::array({"END"});
  expected["tools"][0]["function"]["parameters"] = {{"type", "object"},
                                                    {"properties", json::object()}};
  EXPECT_EQ(out, expected);

  body["max_completion_tokens"] = 7;  // preferred over the legacy field
  EXPECT_EQ(decode_ok(body.dump()).max_tokens, std::optional<int64_t>(7));
  body["tool_choice"] = "required";
  EXPECT_EQ(decode_ok(body.dump()).tool_choice->kind, ir::ToolChoice::Kind::required);
  body["tool_choice"] = "none";
  EXPECT_EQ(decode_ok(body.dump()).tool_choice->kind, ir::ToolChoice::Kind::none);
}

TEST(OpenAiRequestRules, NonFunctionToolsArePassedThroughRaw) {
  json custom = {{"type", "custom"}, {"custom", {{"name", "grammar_tool"}}}};
  json body = {
      {"model", "m"}, {"messages", {{{"role", "user"}, {"content", "x"}}}}, {"tools", {custom}}};
  ir::Request req = decode_ok(body.dump());
  EXPECT_TRUE(req.tools.empty());
  ASSERT_EQ(req.extra.size(), 1u);
  EXPECT_EQ(req.extra[0].key, "x-unsupported-tool");
  EXPECT_EQ(encode_json(req), body);
  req.source_dialect = "anthropic_messages";
  Warnings w;
  EXPECT_FALSE(encode_json(req, &w).contains("tools"));
  EXPECT_TRUE(has_warning(w, "dropped_unsupported_tool"));
}

TEST(OpenAiRequestRules, OpaqueJsonIsCapturedCompactAndExact) {
  std::string params =
      R"({"a":1.0,"b":-5,"c":18446744073709551615,"d":"x\"\n\u00e9\u0001","e":[true,false,null],"f":{},"g":[],"h":2.5e-7})";
  std::string body =
      R"({"model":"m","messages":[],"tools":[{"type":"function","function":{"name":"f","parameters":)" +
      params + "}}]}";
  ir::Request req = decode_ok(body);
  const std::string& schema = req.tools.at(0).input_schema;
  EXPECT_EQ(schema.substr(0, 49), R"({"a":1.0,"b":-5,"c":18446744073709551615,"d":"x\")");
  EXPECT_NE(schema.find(R"(\u0001)"), std::string::npos);
  EXPECT_EQ(json::parse(schema), json::parse(params));
  EXPECT_EQ(encode_json(req), json::parse(body));
}

TEST(OpenAiRequestRules, EmptyTextDroppedAndNullsAreAbsent) {
  json body = {
      {"model", "m"},
      {"temperature", nullptr},
      {"messages",
       {{{"role", "user"},
         {"content", {{{"type", "text"}, {"text", ""}}, {{"type", "text"}, {"text", "hi"}}}}},
        {{"role", "assistant"}, {"content", ""}}}}};
  ir::Request req = decode_ok(body.dump());
  EXPECT_FALSE(req.temperature);
  ASSERT_EQ(req.messages[0].parts.size(), 1u);
  EXPECT_TRUE(req.messages[1].parts.empty());
  json out = encode_json(req);
  EXPECT_EQ(out["messages"][0]["content"], "hi");
  EXPECT_EQ(out["messages"][1]["content"], "");
}

// ---- bad input: typed errors naming the JSON path ----

TEST(OpenAiRequestBadInput, MalformedJson) {
  Error e = decode_err(R"({"model":"m","messages":[)");
  EXPECT_EQ(e.code, ErrorCode::parse_error);
  EXPECT_EQ(e.path, "$");
  EXPECT_EQ(e.message, "malformed JSON at byte 25 (line 1, column 26): unexpected end of input");
  e = decode_err("{\"model\":\"m\",\n \"messages\": [],\n \"tools\": [{\"type\": \"function\",}]}");
  EXPECT_EQ(e.message, "malformed JSON at byte 62 (line 3, column 32): expected a string key");
  e = decode_err("");
  EXPECT_EQ(e.code, ErrorCode::parse_error);
  e = decode_err("[1,2]");
  EXPECT_EQ(e.code, ErrorCode::invalid_argument);
  EXPECT_EQ(e.path, "$");
}

TEST(OpenAiRequestBadInput, WrongTypesNameThePath) {
  struct Case {
    const char* body;
    const char* path;
  } cases[] = {
      {R"({"model":"m","messages":"hi"})", "$.messages"},
      {R"({"model":5,"messages":[]})", "$.model"},
      {R"({"model":"m","messages":[{"role":"user","content":5}]})", "$.messages[0].content"},
      {R"({"model":"m","messages":[{"role":"user","content":[{"type":"text","text":1}]}]})",
       "$.messages[0].content[0].text"},
      {R"({"model":"m","messages":[{"role":7}]})", "$.messages[0].role"},
      {R"({"model":"m","messages":[],"tools":[{"type":"function","function":{"name":"f","parameters":"x"}}]})",
       "$.tools[0].function.parameters"},
      {R"({"model":"m","messages":[],"temperature":"hot"})", "$.temperature"},
      {R"({"model":"m","messages":[],"max_completion_tokens":1.5})", "$.max_completion_tokens"},
      {R"({"model":"m","messages":[],"tool_choice":"sometimes"})", "$.tool_choice"},
      {R"({"model":"m","messages":[{"role":"assistant","tool_calls":[{"id":"a","type":"function","function":{"name":"f","arguments":{"x":1}}}]}]})",
       "$.messages[0].tool_calls[0].function.arguments"},
      {R"({"model":"m","messages":[{"role":"assistant","tool_calls":[{"type":"function","function":{"name":"f"}}]}]})",
       "$.messages[0].tool_calls[0].id"},
      {R"({"model":"m","messages":[{"role":"user"}]})", "$.messages[0].content"},
      {R"({"messages":[]})", "$"},
  };
  for (const auto& c : cases) {
    Error e = decode_err(c.body);
    EXPECT_EQ(e.code, ErrorCode::invalid_argument) << c.body;
    EXPECT_EQ(e.path, c.path) << c.body << " -> " << e.to_string();
  }
}

TEST(OpenAiRequestBadInput, UnknownRole) {
  Error e = decode_err(
      R"({"model":"m","messages":[{"role":"user","content":"a"},{"role":"bot","content":"b"}]})");
  EXPECT_EQ(e.path, "$.messages[1].role");
  EXPECT_NE(e.message.find("unknown role 'bot'"), std::string::npos);
  EXPECT_EQ(e.to_string(), "$.messages[1].role: unknown role 'bot'");
}

TEST(OpenAiRequestBadInput, ToolResultWithoutMatchingCall) {
  Error e = decode_err(R"({"model":"m","messages":[{"role":"user","content":"a"},
      {"role":"assistant","tool_calls":[{"id":"c1","type":"function","function":{"name":"f","arguments":"{}"}}]},
      {"role":"tool","tool_call_id":"c2","content":"x"}]})");
  EXPECT_EQ(e.code, ErrorCode::invalid_argument);
  EXPECT_EQ(e.path, "$.messages[2].tool_call_id");
  EXPECT_NE(e.message.find("c2"), std::string::npos);
  // A result before its call does not match either.
  e = decode_err(R"({"model":"m","messages":[{"role":"tool","tool_call_id":"c1","content":"x"},
      {"role":"assistant","tool_calls":[{"id":"c1","type":"function","function":{"name":"f","arguments":"{}"}}]}]})");
  EXPECT_EQ(e.path, "$.messages[0].tool_call_id");
}

TEST(OpenAiRequestBadInput, InvalidUtf8) {
  std::string body =
      "{\"model\":\"m\",\"messages\":[{\"role\":\"user\",\"content\":\"\xC3\x28\"}]}";
  Error e = decode_err(body);
  EXPECT_EQ(e.code, ErrorCode::parse_error);
  EXPECT_EQ(e.path, "$");
  EXPECT_NE(e.message.find("UTF-8"), std::string::npos);
}

TEST(OpenAiRequestBadInput, DeepNesting) {
  std::string body = R"({"model":"m","messages":[{"role":"user","content":"x"}],"metadata":)";
  body += std::string(10000, '[') + std::string(10000, ']') + "}";
  Error e = decode_err(body);
  EXPECT_EQ(e.code, ErrorCode::parse_error);
  EXPECT_EQ(e.path, "$");
  EXPECT_NE(e.message.find("nested too deeply"), std::string::npos);
}

TEST(OpenAiRequestBadInput, EveryPrefixOfAFixtureFailsCleanly) {
  std::string body = read_fixture("openai-chat-tool-calls.request.json");
  Warnings w;
  for (size_t n = 0; n + 1 < body.size(); n += 7) {
    auto r = openai().decode_request(std::string_view(body).substr(0, n), w);
    EXPECT_FALSE(r.ok()) << n;
  }
}

}  // namespace
}  // namespace toolwire::dialects::openai_chat_test
