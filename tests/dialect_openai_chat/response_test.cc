// openai_chat responses and errors: golden fixture, finish reasons, usage, bad input.
#include <gtest/gtest.h>

#include "test_util.h"

namespace toolwire::dialects::openai_chat_test {
namespace {

using nlohmann::json;

ir::Response decode_ok(const std::string& body) {
  Warnings w;
  auto r = openai().decode_response(body, w);
  EXPECT_TRUE(r.ok()) << r.error().to_string();
  return r.ok() ? std::move(r).value() : ir::Response{};
}

json encode_json(const ir::Response& resp, Warnings* warnings = nullptr) {
  Warnings local;
  auto r = openai().encode_response(resp, warnings ? *warnings : local);
  EXPECT_TRUE(r.ok());
  return json::parse(*r);
}

TEST(OpenAiResponseGolden, ToolCallsResponse) {
  std::string body = read_fixture("openai-chat-tool-calls.response.json");
  ir::Response resp = decode_ok(body);
  EXPECT_EQ(resp.id, "chatcmpl-abc123");
  EXPECT_EQ(resp.model, "gpt-4o-mini");
  EXPECT_EQ(resp.created, 1699896916);
  ASSERT_EQ(resp.parts.size(), 1u);
  const auto& call = std::get<ir::ToolCallPart>(resp.parts[0]);
  EXPECT_EQ(call.id, "call_abc123");
  EXPECT_EQ(call.name, "get_current_weather");
  EXPECT_EQ(call.arguments, "{\n\"location\": \"Boston, MA\"\n}");  // raw newlines kept
  EXPECT_TRUE(call.arguments_valid);
  EXPECT_EQ(resp.finish, (ir::FinishReason{ir::FinishReason::Kind::tool_calls, "tool_calls"}));
  EXPECT_EQ(resp.usage.input_tokens, std::optional<int64_t>(82));
  EXPECT_EQ(resp.usage.output_tokens, std::optional<int64_t>(17));

  // Documented normalisation: refusal:null is always written. completion_tokens_details is
  // kept (issue 23).
  json expected = json::parse(body);
  expected["choices"][0]["message"]["refusal"] = nullptr;
  EXPECT_EQ(encode_json(resp), expected);
}

TEST(OpenAiResponseRules, TextThinkingAndExtras) {
  json body = {{"id", "x"},
               {"object", "chat.completion"},
               {"created", 5},
               {"model", "m"},
               {"choices",
                {{{"index", 0},
                  {"message",
                   {{"role", "assistant"},
                    {"content", "hi"},
                    {"refusal", nullptr},
                    {"reasoning_content", "hmm"}}},
                  {"logprobs", nullptr},
                  {"finish_reason", "length"}}}},
               {"usage",
                {{"prompt_tokens", 10},
                 {"completion_tokens", 2},
                 {"total_tokens", 12},
                 {"prompt_tokens_details", {{"cached_tokens", 4}}}}},
               {"system_fingerprint", "fp_1"},
               {"service_tier", "default"}};
  ir::Response resp = decode_ok(body.dump());
  ASSERT_EQ(resp.parts.size(), 2u);
  EXPECT_EQ(std::get<ir::ThinkingPart>(resp.parts[0]).text, "hmm");
  EXPECT_EQ(std::get<ir::TextPart>(resp.parts[1]).text, "hi");
  EXPECT_EQ(resp.finish.kind, ir::FinishReason::Kind::length);
  EXPECT_EQ(resp.usage.cache_read_tokens, std::optional<int64_t>(4));
  ASSERT_EQ(resp.extra.size(), 2u);
  EXPECT_EQ(encode_json(resp), body);

  resp.source_dialect = "anthropic_messages";
  Warnings w;
  json out = encode_json(resp, &w);
  EXPECT_FALSE(out.contains("system_fingerprint"));
  EXPECT_EQ(w.size(), 2u);
}

// logprobs, annotations, audio and usage details (issue 23): kept for OpenAI
// Chat, dropped with a warning at their path by any other dialect.
TEST(OpenAiResponseRules, LogprobsAnnotationsAndUsageDetailsSurviveSameDialect) {
  const std::string body =
      R"({"id":"c1","object":"chat.completion","created":1,"model":"gpt","choices":[{"index":0,)"
      R"("message":{"role":"assistant","content":"Hi","refusal":null,"annotations":[)"
      R"({"type":"url_citation","url_citation":{"url":"https://x","title":"X","start_index":0,)"
      R"("end_index":2}}],"audio":{"id":"a1","data":"AAA","transcript":"Hi","expires_at":9}},)"
      R"("logprobs":{"content":[{"token":"Hi","logprob":-0.1,"bytes":[72,105],)"
      R"("top_logprobs":[]}],"refusal":null},"finish_reason":"stop"}],)"
      R"("usage":{"prompt_tokens":3,"completion_tokens":2,"total_tokens":5,)"
      R"("prompt_tokens_details":{"cached_tokens":1,"audio_tokens":2},)"
      R"("completion_tokens_details":{"reasoning_tokens":0,"audio_tokens":4,)"
      R"("accepted_prediction_tokens":0,"rejected_prediction_tokens":0}}})";
  ir::Response r = decode_ok(body);
  Warnings warnings;
  EXPECT_EQ(encode_json(r, &warnings), json::parse(body));
  EXPECT_TRUE(warnings.empty());
  Warnings cross;
  auto out = find_codec("anthropic_messages")->encode_response(r, cross);
  ASSERT_TRUE(out.ok());
  std::vector<std::string> paths;
  for (const auto& w : cross)
    if (w.code == "dropped_unknown_field") paths.push_back(w.path);
  EXPECT_EQ(paths, (std::vector<std::string>{"$.choices[0].message.annotations",
                                             "$.choices[0].message.audio", "$.choices[0].logprobs",
                                             "$.usage.prompt_tokens_details.audio_tokens",
                                             "$.usage.completion_tokens_details"}));
}

// Members that say nothing (an empty list, counts of 0) are kept for OpenAI
// Chat but dropped without a warning elsewhere: nothing is lost.
TEST(OpenAiResponseRules, EmptyAnnotationsAndZeroDetailsDropWithoutWarning) {
  const std::string body =
      R"({"id":"c1","object":"chat.completion","created":1,"model":"gpt","choices":[{"index":0,)"
      R"("message":{"role":"assistant","content":"Hi","refusal":null,"annotations":[]},)"
      R"("logprobs":null,"finish_reason":"stop"}],"usage":{"prompt_tokens":3,)"
      R"("completion_tokens":2,"total_tokens":5,"prompt_tokens_details":{"cached_tokens":0,)"
      R"("audio_tokens":0},"completion_tokens_details":{"reasoning_tokens":0,"audio_tokens":0}}})";
  ir::Response r = decode_ok(body);
  Warnings warnings;
  EXPECT_EQ(encode_json(r, &warnings), json::parse(body));
  Warnings cross;
  ASSERT_TRUE(find_codec("anthropic_messages")->encode_response(r, cross).ok());
  EXPECT_FALSE(has_warning(cross, "dropped_unknown_field")) << testing::warnings_text(cross);
}

TEST(OpenAiResponseRules, FinishReasons) {
  using K = ir::FinishReason::Kind;
  struct Case {
    const char* raw;
    K kind;
  } cases[] = {{"stop", K::stop},
               {"length", K::length},
               {"tool_calls", K::tool_calls},
               {"function_call", K::tool_calls},
               {"content_filter", K::content_filter},
               {"insufficient_system_resource", K::other}};
  for (const auto& c : cases) {
    json body = {{"id", "x"},
                 {"model", "m"},
                 {"choices",
                  {{{"index", 0},
                    {"message", {{"role", "assistant"}, {"content", "t"}}},
                    {"finish_reason", c.raw}}}}};
    ir::Response resp = decode_ok(body.dump());
    EXPECT_EQ(resp.finish.kind, c.kind) << c.raw;
    EXPECT_EQ(resp.finish.raw, c.raw);
  }
  // Encoding: a turn with text and a tool call finishes as tool_calls whatever the raw reason.
  ir::Response r;
  r.parts = {ir::TextPart{"let me look"}, ir::ToolCallPart{"c", "f", "{}", true}};
  r.finish = {K::stop, "end_turn"};
  json out = encode_json(r);
  EXPECT_EQ(out["choices"][0]["finish_reason"], "tool_calls");
  EXPECT_EQ(out["choices"][0]["message"]["content"], "let me look");
  // Foreign raw values map to the canonical OpenAI value for their kind.
  r.parts = {ir::TextPart{"x"}};
  r.finish = {K::length, "max_tokens"};
  EXPECT_EQ(encode_json(r)["choices"][0]["finish_reason"], "length");
  r.finish = {K::content_filter, "refusal"};
  EXPECT_EQ(encode_json(r)["choices"][0]["finish_reason"], "content_filter");
  r.finish = {K::error, ""};
  EXPECT_EQ(encode_json(r)["choices"][0]["finish_reason"], "stop");
  // A tool call decoded with finish "stop" is still a tool-call turn.
  json body = {{"id", "x"},
               {"model", "m"},
               {"choices",
                {{{"index", 0},
                  {"message",
                   {{"role", "assistant"},
                    {"content", nullptr},
                    {"tool_calls",
                     {{{"id", "c"},
                       {"type", "function"},
                       {"function", {{"name", "f"}, {"arguments", "{}"}}}}}}}},
                  {"finish_reason", "stop"}}}}};
  EXPECT_EQ(decode_ok(body.dump()).finish.kind, K::tool_calls);
}

TEST(OpenAiResponseBadInput, PathsInErrors) {
  struct Case {
    const char* body;
    ErrorCode code;
    const char* path;
  } cases[] = {
      {R"({"id":"x","choices":[{"message":{"content":5}}]})", ErrorCode::invalid_argument,
       "$.choices[0].message.content"},
      {R"({"id":"x"})", ErrorCode::invalid_argument, "$"},
      {R"({"id":"x","choices":{}})", ErrorCode::invalid_argument, "$.choices"},
      {R"({"id":"x","choices":[{"message":{"tool_calls":[{"id":"","function":{"name":"f"}}]}}]})",
       ErrorCode::invalid_argument, "$.choices[0].message.tool_calls[0].id"},
      {R"({"id":"x","choices":[],"usage":{"prompt_tokens":"many"}})", ErrorCode::invalid_argument,
       "$.usage.prompt_tokens"},
      {R"({"id":"x","object":"chat.completion.chunk","choices":[]})", ErrorCode::invalid_argument,
       "$.object"},
      {R"({"id":"x","choices":[)", ErrorCode::parse_error, "$"},
      {"{\"id\":\"\xff\",\"choices\":[]}", ErrorCode::parse_error, "$"},
  };
  for (const auto& c : cases) {
    Warnings w;
    auto r = openai().decode_response(c.body, w);
    ASSERT_FALSE(r.ok()) << c.body;
    EXPECT_EQ(r.error().code, c.code) << c.body;
    EXPECT_EQ(r.error().path, c.path) << c.body << " -> " << r.error().to_string();
  }
  Warnings w;
  EXPECT_EQ(openai().decode_response(R"({"id":"x","choices":[)", w).error().message,
            "malformed JSON at byte 21 (line 1, column 22): unexpected end of input");
}

TEST(OpenAiErrors, EncodeAndDecode) {
  Error e = make_error(ErrorCode::invalid_argument, "unknown role 'bot'", "$.messages[2].role");
  WireError wire = openai().encode_error(e);
  EXPECT_EQ(wire.http_status, 400);
  json body = json::parse(wire.body);
  EXPECT_EQ(body["error"]["message"], "$.messages[2].role: unknown role 'bot'");
  EXPECT_EQ(body["error"]["type"], "invalid_request_error");
  EXPECT_EQ(body["error"]["param"], "$.messages[2].role");
  EXPECT_TRUE(body["error"]["code"].is_null());
  Error back = openai().decode_error(wire.http_status, wire.body);
  EXPECT_EQ(back.code, ErrorCode::invalid_argument);
  EXPECT_EQ(back.to_string(), e.to_string());

  EXPECT_EQ(
      openai().encode_error(make_error(ErrorCode::resource_exhausted, "slow down")).http_status,
      429);
  EXPECT_EQ(json::parse(openai()
                            .encode_error(make_error(ErrorCode::unauthenticated, "no key"))
                            .body)["error"]["code"],
            "invalid_api_key");
  Error upstream = openai().decode_error(
      429,
      R"({"error":{"message":"Rate limit reached","type":"requests","param":null,"code":"rate_limit_exceeded"}})");
  EXPECT_EQ(upstream.code, ErrorCode::resource_exhausted);
  EXPECT_EQ(upstream.message, "Rate limit reached");
  Error text = openai().decode_error(502, "Bad Gateway");
  EXPECT_EQ(text.code, ErrorCode::unavailable);
  EXPECT_EQ(text.message, "Bad Gateway");
}

}  // namespace
}  // namespace toolwire::dialects::openai_chat_test
