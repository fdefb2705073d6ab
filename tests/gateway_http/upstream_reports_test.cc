// What the gateway tells a client about an upstream of another dialect
// (a real HTTP provider against a mock upstream): the input tokens of an
// OpenAI upstream, which arrive only at the stream's end, in an Anthropic
// client's stream; the max_tokens the gateway filled in for an Anthropic
// upstream, in `toolwire-warnings` as `convert` reports it.
#include <gtest/gtest.h>

#include "upstream_gateway.h"

namespace toolwire::testing {
namespace {

class UpstreamReports : public ::testing::Test {
 protected:
  void start(const char* profile, const char* base_path) {
    ASSERT_EQ(rig_.start(profile, base_path), "");
  }

  UpstreamGateway rig_;
};

std::vector<ir::StreamEvent> turn() {
  return {ir::MessageStart{"up", "up-model", 0}, ir::TextDelta{"hi"},
          ir::UsageEvent{ir::Usage{37, 2, {}, {}}},
          ir::Finish{ir::FinishReason{ir::FinishReason::Kind::stop, "stop"}}};
}

// The `data:` JSON of the first SSE event named `name`.
nlohmann::json event_data(const std::string& sse, const std::string& name) {
  size_t at = sse.find("event: " + name + "\n");
  if (at == std::string::npos) return {};
  size_t data = sse.find("data: ", at);
  size_t end = sse.find('\n', data);
  return nlohmann::json::parse(sse.substr(data + 6, end - data - 6), nullptr, false);
}

TEST_F(UpstreamReports, InputTokensOfAnOpenAIStreamInAnAnthropicStream) {
  start("openai_compatible", "/v1");
  rig_.upstream.enqueue(Upstream("openai_chat").stream(turn()));
  RawClient c(rig_.port());
  ASSERT_TRUE(c.send(http_post(
      "/v1/messages",
      R"({"model":"m","max_tokens":8,"stream":true,"messages":[{"role":"user","content":"x"}]})",
      "anthropic-version: 2023-06-01\r\n")));
  auto r = c.read_response();
  ASSERT_TRUE(r.has_value());
  ASSERT_EQ(r->status, 200) << r->body;
  // Known only at the end, the count comes in message_delta's usage (where
  // Anthropic puts cumulative counts, and its SDKs and LangChain read them).
  auto delta = event_data(r->body, "message_delta");
  ASSERT_TRUE(delta.is_object()) << r->body;
  EXPECT_EQ(delta["usage"]["input_tokens"], 37) << r->body;
  EXPECT_EQ(delta["usage"]["output_tokens"], 2) << r->body;
  auto start_event = event_data(r->body, "message_start");
  ASSERT_TRUE(start_event.is_object()) << r->body;
  EXPECT_EQ(start_event["message"]["usage"]["input_tokens"], 0) << r->body;
}

TEST_F(UpstreamReports, DefaultedMaxTokensIsReported) {
  start("anthropic", "");
  rig_.upstream.enqueue(Upstream("anthropic_messages").whole(turn()));
  RawClient c(rig_.port());
  ASSERT_TRUE(c.send(http_post("/v1/chat/completions",
                               R"({"model":"m","messages":[{"role":"user","content":"x"}]})")));
  auto r = c.read_response();
  ASSERT_TRUE(r.has_value());
  ASSERT_EQ(r->status, 200) << r->body;
  EXPECT_NE(r->header("toolwire-warnings").find("defaulted_max_tokens ($.max_tokens)"),
            std::string::npos)
      << r->header("toolwire-warnings");
  auto reqs = rig_.upstream.requests();
  ASSERT_EQ(reqs.size(), 1u);
  EXPECT_NE(reqs[0].body.find(R"("max_tokens":)"), std::string::npos) << reqs[0].body;
}

}  // namespace
}  // namespace toolwire::testing
