// Bedrock Converse responses and errors: the documentation's examples, stop
// reasons, usage with cache counts, the error type header both ways.
#include <gtest/gtest.h>

#include "test_util.h"

namespace toolwire::dialects::bedrock_test {
namespace {

using nlohmann::json;
using Kind = ir::FinishReason::Kind;

ir::Response decode(const std::string& body) {
  Warnings w;
  auto r = codec().decode_response(body, w);
  EXPECT_TRUE(r.ok()) << (r ? "" : r.error().to_string()) << "\n" << body;
  return r ? *r : ir::Response{};
}

TEST(BedrockResponse, DocumentationToolUseResponse) {
  ir::Response r = decode(read_fixture("bedrock-converse-tool-use.response.json"));
  EXPECT_EQ(r.id, "");
  EXPECT_EQ(r.model, "");
  ASSERT_EQ(r.parts.size(), 1u);
  const auto& call = std::get<ir::ToolCallPart>(r.parts[0]);
  EXPECT_EQ(call.id, "tooluse_kZJMlvQmRJ6eAyJE5GIl7Q");
  EXPECT_EQ(call.name, "top_song");
  EXPECT_EQ(json::parse(call.arguments), json::parse(R"({"sign":"WZPZ"})"));
  EXPECT_EQ(r.finish, (ir::FinishReason{Kind::tool_calls, "tool_use"}));
  EXPECT_TRUE(r.usage.empty());
}

TEST(BedrockResponse, DocumentationFinalAnswerWithUsageAndMetrics) {
  ir::Response r = decode(read_fixture("bedrock-converse-tool-result.response.json"));
  EXPECT_EQ(std::get<ir::TextPart>(r.parts.at(0)).text,
            "The most popular song on WZPZ is Elemental Hotel by 8 Storey Hike.");
  EXPECT_EQ(r.finish, (ir::FinishReason{Kind::stop, "end_turn"}));
  EXPECT_EQ(r.usage.input_tokens, 125);
  EXPECT_EQ(r.usage.output_tokens, 60);
  ASSERT_EQ(r.extra.size(), 1u);
  EXPECT_EQ(r.extra[0].key, "metrics");
  Warnings w;
  auto out = codec().encode_response(r, w);
  ASSERT_TRUE(out.ok());
  EXPECT_EQ(json::parse(*out),
            json::parse(read_fixture("bedrock-converse-tool-result.response.json")));
  EXPECT_TRUE(w.empty()) << warnings_text(w);
}

TEST(BedrockResponse, StopReasonsBothWays) {
  const std::pair<const char*, Kind> table[] = {
      {"end_turn", Kind::stop},
      {"stop_sequence", Kind::stop},
      {"max_tokens", Kind::length},
      {"model_context_window_exceeded", Kind::length},
      {"tool_use", Kind::tool_calls},
      {"guardrail_intervened", Kind::content_filter},
      {"content_filtered", Kind::content_filter},
  };
  for (const auto& [raw, kind] : table) {
    const std::string body =
        std::string(R"({"output":{"message":{"role":"assistant","content":[]}},"stopReason":")") +
        raw +
        R"(","usage":{"inputTokens":1,"outputTokens":1,"totalTokens":2},"metrics":{"latencyMs":1}})";
    ir::Response r = decode(body);
    EXPECT_EQ(r.finish.kind, kind) << raw;
    Warnings w;
    auto out = codec().encode_response(r, w);
    ASSERT_TRUE(out.ok());
    EXPECT_EQ(json::parse(*out)["stopReason"], raw);  // its own raw value back
  }
  // Another dialect's reasons are rewritten.
  ir::Response r;
  r.finish = {Kind::length, "length"};
  Warnings w;
  EXPECT_EQ(json::parse(*codec().encode_response(r, w))["stopReason"], "max_tokens");
  r.finish = {Kind::content_filter, "refusal"};
  EXPECT_EQ(json::parse(*codec().encode_response(r, w))["stopReason"], "content_filtered");
  r.finish = {Kind::stop, "stop"};
  EXPECT_EQ(json::parse(*codec().encode_response(r, w))["stopReason"], "end_turn");
}

TEST(BedrockResponse, UsageCountsCacheInInputAndBackOut) {
  ir::Response r = decode(
      R"({"output":{"message":{"role":"assistant","content":[{"text":"hi"}]}},"stopReason":"end_turn",
          "usage":{"inputTokens":100,"outputTokens":20,"totalTokens":180,"cacheReadInputTokens":50,"cacheWriteInputTokens":10}})");
  EXPECT_EQ(r.usage.input_tokens, 160);
  EXPECT_EQ(r.usage.cache_read_tokens, 50);
  EXPECT_EQ(r.usage.cache_write_tokens, 10);
  Warnings w;
  json out = json::parse(*codec().encode_response(r, w));
  EXPECT_EQ(
      out["usage"],
      json::parse(
          R"({"inputTokens":100,"outputTokens":20,"totalTokens":180,"cacheReadInputTokens":50,"cacheWriteInputTokens":10})"));
}

TEST(BedrockResponse, FromAnthropicDropsIdAndModelWithAWarningAndAddsMetrics) {
  Warnings w;
  auto ir =
      find_codec("anthropic")
          ->decode_response(
              R"({"id":"msg_1","type":"message","role":"assistant","model":"claude","content":[{"type":"thinking","thinking":"hmm","signature":"s"},{"type":"text","text":"ok"}],"stop_reason":"end_turn","usage":{"input_tokens":3,"output_tokens":4}})",
              w);
  ASSERT_TRUE(ir.ok());
  auto out = codec().encode_response(*ir, w);
  ASSERT_TRUE(out.ok());
  json j = json::parse(*out);
  EXPECT_TRUE(has_warning(w, "dropped_response_id")) << warnings_text(w);
  EXPECT_EQ(j["metrics"], json::parse(R"({"latencyMs":0})"));
  EXPECT_EQ(
      j["output"]["message"]["content"][0],
      json::parse(R"({"reasoningContent":{"reasoningText":{"text":"hmm","signature":"s"}}})"));
  EXPECT_EQ(j["usage"]["totalTokens"], 7);
}

TEST(BedrockResponse, ErrorBodyIsAnErrorAndBadInputNamesItsPath) {
  Warnings w;
  auto r = codec().decode_response(R"({"message":"The model is overloaded"})", w);
  ASSERT_FALSE(r.ok());
  EXPECT_EQ(r.error().message, "The model is overloaded");
  const std::pair<const char*, const char*> bad[] = {
      {R"({"stopReason":"end_turn"})", "$"},
      {R"({"output":{}})", "$.output"},
      {R"({"output":{"message":{"role":"user","content":[]}}})", "$.output.message.role"},
      {R"({"output":{"message":{"content":[{"toolResult":{}}]}}})",
       "$.output.message.content[0].toolResult"},
      {R"({"output":{"message":{"content":[]}},"usage":{"inputTokens":"x"}})",
       "$.usage.inputTokens"},
  };
  for (const auto& [body, path] : bad) {
    auto e = codec().decode_response(body, w);
    ASSERT_FALSE(e.ok()) << body;
    EXPECT_EQ(e.error().path, path) << body << "\n" << e.error().to_string();
  }
}

TEST(BedrockErrors, EncodeWritesTheTypeHeaderAndStatus) {
  const std::tuple<ErrorCode, int, const char*> table[] = {
      {ErrorCode::invalid_argument, 400, "ValidationException"},
      {ErrorCode::permission_denied, 403, "AccessDeniedException"},
      {ErrorCode::not_found, 404, "ResourceNotFoundException"},
      {ErrorCode::resource_exhausted, 429, "ThrottlingException"},
      {ErrorCode::deadline_exceeded, 408, "ModelTimeoutException"},
      {ErrorCode::internal, 500, "InternalServerException"},
      {ErrorCode::unavailable, 503, "ServiceUnavailableException"},
  };
  for (const auto& [code, status, type] : table) {
    WireError e = codec().encode_error(make_error(code, "boom"));
    EXPECT_EQ(e.http_status, status) << type;
    ASSERT_EQ(e.headers.size(), 1u);
    EXPECT_EQ(e.headers[0], (std::pair<std::string, std::string>{"x-amzn-errortype", type}));
    EXPECT_EQ(json::parse(e.body)["message"].get<std::string>().find("boom") != std::string::npos,
              true);
    // And the status decodes back to the code.
    EXPECT_EQ(codec().decode_error(status, e.body).code, code) << type;
  }
  // An upstream status passes through, with the type Bedrock gives it.
  Error up = make_error(ErrorCode::internal, "x");
  up.http_status = 424;
  WireError e = codec().encode_error(up);
  EXPECT_EQ(e.http_status, 424);
  EXPECT_EQ(e.headers[0].second, "ModelErrorException");
}

TEST(BedrockErrors, DecodeReadsTheBodysTypeWithoutAStatus) {
  Error e = codec().decode_error(
      0, R"({"__type":"com.amazon.coral.validate#ThrottlingException","message":"slow down"})");
  EXPECT_EQ(e.code, ErrorCode::resource_exhausted);
  EXPECT_EQ(e.message, "slow down");
  e = codec().decode_error(0, R"({"__type":"ValidationException:http://x/","Message":"bad"})");
  EXPECT_EQ(e.code, ErrorCode::invalid_argument);
  EXPECT_EQ(e.message, "bad");
  e = codec().decode_error(429, R"({"message":"Too many requests"})");
  EXPECT_EQ(e.code, ErrorCode::resource_exhausted);
  e = codec().decode_error(502, "<html>bad gateway</html>");
  EXPECT_EQ(e.message, "<html>bad gateway</html>");
  EXPECT_EQ(codec().decode_error(500, "").message, "HTTP 500 with an empty body");
}

}  // namespace
}  // namespace toolwire::dialects::bedrock_test
