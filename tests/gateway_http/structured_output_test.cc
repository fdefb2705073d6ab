// Structured output through the gateway: a Chat Completions client asking for
// a JSON schema or JSON mode, an Anthropic upstream (the real HTTP provider
// against a mock on 127.0.0.1). The upstream must receive the format in its
// own spelling (output_config.format; JSON mode as the forced answer tool) and
// the client must get the JSON as text content, whole and streamed, never the
// tool.
#include <gtest/gtest.h>

#include <nlohmann/json.hpp>

#include "upstream_gateway.h"

namespace toolwire::testing {
namespace {

using nlohmann::json;

const char* kSchema =
    R"({"type":"object","properties":{"city":{"type":"string"}},"required":["city"],"additionalProperties":false})";

class StructuredOutputGateway : public ::testing::Test {
 protected:
  void SetUp() override { ASSERT_EQ(rig_.start("anthropic", ""), ""); }

  // A Chat Completions request with `format` as its response_format.
  std::optional<HttpResponse> ask(const std::string& format, bool stream) {
    RawClient c(rig_.port());
    std::string body = R"({"model":"any","messages":[{"role":"user","content":"weather?"}],)";
    if (stream) body += R"("stream":true,)";
    body += R"("response_format":)" + format + "}";
    if (!c.send(http_post("/v1/chat/completions", body, ""))) return std::nullopt;
    return c.read_response();
  }
  json upstream_body(size_t i) {
    auto reqs = rig_.upstream.requests();
    if (reqs.size() <= i) return {};
    return json::parse(reqs[i].body);
  }

  UpstreamGateway rig_;
  Upstream wire_{"anthropic_messages"};
};

std::vector<ir::StreamEvent> text_answer(const std::string& text) {
  return {ir::MessageStart{"msg_up", "up-model", 0}, ir::TextDelta{text},
          ir::UsageEvent{ir::Usage{3, 5, {}, {}}},
          ir::Finish{ir::FinishReason{ir::FinishReason::Kind::stop, "end_turn"}}};
}

// The answer tool's call, its arguments in two pieces.
std::vector<ir::StreamEvent> forced_answer() {
  return {ir::MessageStart{"msg_up", "up-model", 0},
          ir::ToolCallStart{0, "toolu_1", "toolwire_json_output", ""},
          ir::ToolCallDelta{0, R"({"city":)"},
          ir::ToolCallDelta{0, R"("Oslo"})"},
          ir::ToolCallEnd{0},
          ir::UsageEvent{ir::Usage{3, 5, {}, {}}},
          ir::Finish{ir::FinishReason{ir::FinishReason::Kind::tool_calls, "tool_use"}}};
}

TEST_F(StructuredOutputGateway, JsonSchemaReachesAnthropicAsOutputConfig) {
  rig_.upstream.enqueue(wire_.whole(text_answer(R"({"city":"Oslo"})")));
  const std::string format =
      std::string(R"({"type":"json_schema","json_schema":{"name":"w","schema":)") + kSchema +
      R"(,"strict":true}})";
  auto r = ask(format, false);
  ASSERT_TRUE(r.has_value());
  ASSERT_EQ(r->status, 200) << r->body;
  const json up = upstream_body(0);
  EXPECT_EQ(up["output_config"]["format"]["type"], "json_schema") << up.dump(2);
  EXPECT_EQ(up["output_config"]["format"]["schema"], json::parse(kSchema)) << up.dump(2);
  EXPECT_FALSE(up.contains("response_format"));
  const json body = json::parse(r->body);
  const json& msg = body["choices"][0]["message"];
  EXPECT_EQ(json::parse(msg["content"].get<std::string>()), json({{"city", "Oslo"}}));
}

TEST_F(StructuredOutputGateway, JsonModeIsAForcedToolTheClientNeverSees) {
  rig_.upstream.enqueue(wire_.whole(forced_answer()));
  auto r = ask(R"({"type":"json_object"})", false);
  ASSERT_TRUE(r.has_value());
  ASSERT_EQ(r->status, 200) << r->body;
  const json up = upstream_body(0);
  ASSERT_TRUE(up.contains("tools")) << up.dump(2);
  EXPECT_EQ(up["tools"][0]["name"], "toolwire_json_output");
  EXPECT_EQ(up["tool_choice"], json({{"type", "tool"}, {"name", "toolwire_json_output"}}));
  const json body = json::parse(r->body);
  const json& choice = body["choices"][0];
  EXPECT_EQ(choice["finish_reason"], "stop") << r->body;
  EXPECT_FALSE(choice["message"].contains("tool_calls")) << r->body;
  EXPECT_EQ(json::parse(choice["message"]["content"].get<std::string>()), json({{"city", "Oslo"}}));
}

TEST_F(StructuredOutputGateway, JsonModeStreamedComesAsTextDeltas) {
  rig_.upstream.enqueue(wire_.stream(forced_answer()));
  auto r = ask(R"({"type":"json_object"})", true);
  ASSERT_TRUE(r.has_value());
  ASSERT_EQ(r->status, 200) << r->body;
  EXPECT_EQ(r->body.find("tool_calls"), std::string::npos) << r->body;
  EXPECT_EQ(r->body.find("toolwire_json_output"), std::string::npos) << r->body;
  EXPECT_NE(r->body.find(R"("finish_reason":"stop")"), std::string::npos) << r->body;
  // The content deltas, joined, are the JSON.
  std::string text;
  size_t at = 0;
  while ((at = r->body.find("data: {", at)) != std::string::npos) {
    const size_t end = r->body.find('\n', at);
    const json chunk = json::parse(r->body.substr(at + 6, end - at - 6));
    at = end;
    if (chunk.contains("choices") && !chunk["choices"].empty() &&
        chunk["choices"][0]["delta"].contains("content") &&
        chunk["choices"][0]["delta"]["content"].is_string())
      text += chunk["choices"][0]["delta"]["content"].get<std::string>();
  }
  EXPECT_EQ(json::parse(text), json({{"city", "Oslo"}})) << r->body;
  EXPECT_EQ(upstream_body(0)["tool_choice"]["name"], "toolwire_json_output");
}

}  // namespace
}  // namespace toolwire::testing
