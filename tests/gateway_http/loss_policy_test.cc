// A route's `on_loss`: with `error`, a request whose translation would drop
// or approximate something is refused with a 400 in the caller's dialect
// naming each loss, and nothing reaches the upstream; `allow_loss` keeps the
// listed codes warnings; `warn` (the default) goes on with the header.
#include <gtest/gtest.h>

#include <nlohmann/json.hpp>

#include "upstream_gateway.h"

namespace toolwire::testing {
namespace {

using nlohmann::json;

std::vector<ir::StreamEvent> answer() {
  return {ir::MessageStart{"up", "up-model", 0}, ir::TextDelta{"fine"},
          ir::UsageEvent{ir::Usage{3, 1, {}, {}}},
          ir::Finish{ir::FinishReason{ir::FinishReason::Kind::stop, "stop"}}};
}

LossPolicy refuse(std::vector<std::string> allow = {}) {
  return LossPolicy{LossPolicy::Mode::error, std::move(allow)};
}

// A Chat Completions client in front of an Anthropic upstream; `extra` goes
// into the request object (`"logit_bias":{...},` says what Anthropic cannot).
class LossPolicyChatToAnthropic : public ::testing::Test {
 protected:
  void start(LossPolicy policy) {
    ASSERT_EQ(rig_.start("anthropic", "", small_options(), std::move(policy)), "");
  }
  std::optional<HttpResponse> ask(const std::string& extra, bool stream = false) {
    RawClient c(rig_.port());
    std::string body = R"({"model":"any",)" + extra + (stream ? R"("stream":true,)" : "") +
                       R"("messages":[{"role":"user","content":"hi"}]})";
    if (!c.send(http_post("/v1/chat/completions", body, ""))) return std::nullopt;
    return c.read_response();
  }
  UpstreamGateway rig_;
  Upstream wire_{"anthropic_messages"};
};

TEST_F(LossPolicyChatToAnthropic, ErrorRefusesADroppedFieldAndSendsNothing) {
  start(refuse());
  for (bool stream : {false, true}) {
    auto r = ask(R"("logit_bias":{"1":-100},)", stream);
    ASSERT_TRUE(r.has_value());
    EXPECT_EQ(r->status, 400) << r->body;
    // The caller's own error shape (Chat Completions), naming the loss.
    json body = json::parse(r->body, nullptr, false);
    ASSERT_TRUE(body.contains("error")) << r->body;
    EXPECT_EQ(body["error"]["type"], "invalid_request_error") << r->body;
    std::string message = body["error"]["message"];
    EXPECT_NE(message.find("on_loss: error"), std::string::npos) << message;
    EXPECT_NE(message.find("dropped_unknown_field"), std::string::npos) << message;
    EXPECT_NE(message.find("logit_bias"), std::string::npos) << message;
    EXPECT_NE(message.find("anthropic_messages"), std::string::npos) << message;
  }
  EXPECT_TRUE(rig_.upstream.requests().empty());
}

TEST_F(LossPolicyChatToAnthropic, ErrorLetsALosslessRequestThrough) {
  start(refuse());
  rig_.upstream.enqueue(wire_.whole(answer()));
  auto r = ask(R"("max_tokens":16,"temperature":0.5,)");
  ASSERT_TRUE(r.has_value());
  EXPECT_EQ(r->status, 200) << r->body;
  EXPECT_EQ(r->header("toolwire-warnings"), "");
  EXPECT_EQ(rig_.upstream.requests().size(), 1u);
}

TEST_F(LossPolicyChatToAnthropic, AllowedCodesStayWarnings) {
  start(refuse({"dropped_unknown_field", "defaulted_max_tokens"}));
  rig_.upstream.enqueue(wire_.whole(answer()));
  auto r = ask(R"("logit_bias":{"1":-100},)");
  ASSERT_TRUE(r.has_value());
  EXPECT_EQ(r->status, 200) << r->body;
  EXPECT_NE(r->header("toolwire-warnings").find("dropped_unknown_field"), std::string::npos);
  ASSERT_EQ(rig_.upstream.requests().size(), 1u);
  EXPECT_FALSE(json::parse(rig_.upstream.requests()[0].body).contains("logit_bias"));
}

TEST_F(LossPolicyChatToAnthropic, OnlyTheCodesNotAllowedAreNamed) {
  start(refuse({"dropped_unknown_field"}));
  // No max_tokens: Anthropic requires one, the gateway fills in 4096.
  auto r = ask(R"("logit_bias":{"1":-100},)");
  ASSERT_TRUE(r.has_value());
  EXPECT_EQ(r->status, 400) << r->body;
  EXPECT_NE(r->body.find("defaulted_max_tokens"), std::string::npos) << r->body;
  EXPECT_EQ(r->body.find("dropped_unknown_field"), std::string::npos) << r->body;
  EXPECT_TRUE(rig_.upstream.requests().empty());
}

TEST_F(LossPolicyChatToAnthropic, WarnGoesOnWithTheHeader) {
  start(LossPolicy{});
  rig_.upstream.enqueue(wire_.whole(answer()));
  auto r = ask(R"("logit_bias":{"1":-100},)");
  ASSERT_TRUE(r.has_value());
  EXPECT_EQ(r->status, 200) << r->body;
  EXPECT_NE(r->header("toolwire-warnings").find("dropped_unknown_field"), std::string::npos);
}

// The header names each loss where the client wrote it (gap 19): the leading
// system message is no IR message, yet the detail is named in the client's
// messages[1].
TEST_F(LossPolicyChatToAnthropic, TheWarningsHeaderNamesTheClientsPaths) {
  start(LossPolicy{});
  rig_.upstream.enqueue(wire_.whole(answer()));
  RawClient c(rig_.port());
  ASSERT_TRUE(c.send(http_post(
      "/v1/chat/completions",
      R"({"model":"any","max_tokens":16,"messages":[{"role":"system","content":"Be brief."},)"
      R"({"role":"user","content":[{"type":"image_url","image_url":)"
      R"({"url":"https://example.com/a.png","detail":"high"}}]}]})",
      "")));
  auto r = c.read_response();
  ASSERT_TRUE(r.has_value());
  EXPECT_EQ(r->status, 200) << r->body;
  const std::string header = r->header("toolwire-warnings");
  EXPECT_NE(header.find("dropped_image_detail"), std::string::npos) << header;
  EXPECT_NE(header.find("$.messages[1].content[0].image_url.detail"), std::string::npos) << header;
}

// What reading the caller's request already lost (a system message's
// `name`, which no IR field holds) is refused too, on any upstream.
TEST_F(LossPolicyChatToAnthropic, ALossWhileReadingTheRequestIsRefused) {
  start(refuse());
  RawClient c(rig_.port());
  ASSERT_TRUE(c.send(http_post(
      "/v1/chat/completions",
      R"({"model":"any","max_tokens":8,"messages":[{"role":"system","name":"ops","content":"be brief"},{"role":"user","content":"hi"}]})",
      "")));
  auto r = c.read_response();
  ASSERT_TRUE(r.has_value());
  EXPECT_EQ(r->status, 400) << r->body;
  EXPECT_NE(r->body.find("dropped_system_name"), std::string::npos) << r->body;
  EXPECT_NE(r->body.find("reading the openai_chat request"), std::string::npos) << r->body;
  EXPECT_TRUE(rig_.upstream.requests().empty());
}

// An Anthropic client gets Anthropic's error shape.
TEST(LossPolicyAnthropicToChat, RefusalInTheCallersShape) {
  UpstreamGateway rig;
  ASSERT_EQ(rig.start("openai_compatible", "/v1", small_options(), refuse()), "");
  RawClient c(rig.port());
  ASSERT_TRUE(c.send(http_post(
      "/v1/messages",
      R"({"model":"any","max_tokens":8,"top_k":5,"messages":[{"role":"user","content":"hi"}]})",
      "anthropic-version: 2023-06-01\r\n")));
  auto r = c.read_response();
  ASSERT_TRUE(r.has_value());
  EXPECT_EQ(r->status, 400) << r->body;
  json body = json::parse(r->body, nullptr, false);
  EXPECT_EQ(body["type"], "error") << r->body;
  EXPECT_EQ(body["error"]["type"], "invalid_request_error") << r->body;
  EXPECT_NE(r->body.find("top_k"), std::string::npos) << r->body;
  EXPECT_TRUE(rig.upstream.requests().empty());
}

// A loss found in the middle of a stream (a citation, the stop sequence of
// an Anthropic upstream that a Chat client has no place for) comes after the
// 200 and the headers went out: `on_loss: error` cannot refuse it, and the
// stream goes on to its end. It is reported where it can still be seen: the
// log, and the metrics (stage "stream"); the trace's model span too
// (tests/gateway_observe/traces_test.cc).
TEST_F(LossPolicyChatToAnthropic, AMidStreamLossIsReportedNotRefused) {
  start(refuse());
  MockResponse up = MockResponse::sse_stream();
  up.chunk(
      "event: message_start\ndata: {\"type\":\"message_start\",\"message\":{\"id\":\"m\","
      "\"model\":\"up-model\",\"usage\":{\"input_tokens\":3,\"output_tokens\":1}}}\n\n"
      "event: content_block_start\ndata: {\"type\":\"content_block_start\",\"index\":0,"
      "\"content_block\":{\"type\":\"text\",\"text\":\"\"}}\n\n"
      "event: content_block_delta\ndata: {\"type\":\"content_block_delta\",\"index\":0,"
      "\"delta\":{\"type\":\"text_delta\",\"text\":\"1, 2\"}}\n\n"
      "event: content_block_delta\ndata: {\"type\":\"content_block_delta\",\"index\":0,"
      "\"delta\":{\"type\":\"citations_delta\",\"citation\":{\"type\":\"char_location\"}}}\n\n"
      "event: content_block_stop\ndata: {\"type\":\"content_block_stop\",\"index\":0}\n\n"
      "event: message_delta\ndata: {\"type\":\"message_delta\",\"delta\":{\"stop_reason\":"
      "\"stop_sequence\",\"stop_sequence\":\"3\"},\"usage\":{\"output_tokens\":4}}\n\n"
      "event: message_stop\ndata: {\"type\":\"message_stop\"}\n\n");
  rig_.upstream.enqueue(std::move(up));
  auto r = ask(R"("max_tokens":16,)", /*stream=*/true);
  ASSERT_TRUE(r.has_value());
  EXPECT_EQ(r->status, 200) << r->body;
  EXPECT_EQ(r->header("toolwire-warnings"), "");  // nothing was known when it was sent
  EXPECT_NE(r->body.find("1, 2"), std::string::npos) << r->body;
  EXPECT_NE(r->body.find("data: [DONE]"), std::string::npos) << r->body;
  ASSERT_EQ(rig_.upstream.requests().size(), 1u);

  std::string logged;
  for (const auto& line : rig_.log())
    if (line.find("lost after the headers were sent") != std::string::npos) logged += line;
  EXPECT_NE(logged.find("dropped_unknown_field ($.content[0].citations)"), std::string::npos)
      << logged;
  EXPECT_NE(logged.find("dropped_unknown_field ($.stop_sequence)"), std::string::npos) << logged;

  RawClient m(rig_.port());
  ASSERT_TRUE(m.send(http_get("/metrics")));
  auto metrics = m.read_response();
  ASSERT_TRUE(metrics.has_value());
  EXPECT_NE(metrics->body.find("toolwire_translation_warnings_total{route=\"/v1/chat/completions\","
                               "code=\"dropped_unknown_field\",stage=\"stream\"} 2"),
            std::string::npos)
      << metrics->body;
}

}  // namespace
}  // namespace toolwire::testing
