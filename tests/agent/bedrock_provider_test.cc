// The HTTP provider with the `bedrock` profile against a mock Bedrock on
// 127.0.0.1: the model id in the URL path, SigV4 headers that verify (the
// mock recomputes the signature from what it received, as AWS does), the
// binary event stream fed to the codec as raw bytes in arbitrary HTTP
// chunks, whole responses, and a throttling error with its type header.
#include <gtest/gtest.h>

#include <cstdlib>
#include <ctime>

#include "mock_upstream.h"
#include "toolwire/dialects/framing/sigv4.h"
#include "toolwire/provider/factory.h"

namespace toolwire::provider {
namespace {

using namespace std::chrono_literals;
using testing::MockHttpServer;
using testing::MockRequest;
using testing::MockResponse;
using testing::Upstream;

constexpr const char* kSecret = "bedrock/SECRET+key";
constexpr const char* kModel = "amazon.nova-lite-v1:0";

std::vector<ir::StreamEvent> tool_turn() {
  return {ir::MessageStart{},
          ir::TextDelta{"Checking."},
          ir::ToolCallStart{0, "tooluse_1", "get_weather"},
          ir::ToolCallDelta{0, R"({"city":)"},
          ir::ToolCallDelta{0, R"("Oslo"})"},
          ir::ToolCallEnd{0},
          ir::UsageEvent{ir::Usage{20, 12, {}, {}}},
          ir::Finish{ir::FinishReason{ir::FinishReason::Kind::tool_calls, "tool_use"}}};
}

ir::Request simple_request() {
  ir::Request r;
  r.messages.push_back(ir::Message{ir::Role::user, {ir::TextPart{"weather in Oslo?"}}, {}});
  r.tools.push_back(
      ir::ToolDefinition{"get_weather",
                         "weather",
                         R"({"type":"object","properties":{"city":{"type":"string"}}})",
                         {}});
  return r;
}

// What a Bedrock endpoint does: recompute the signature over the request as
// received, with the headers it names, and compare.
void expect_valid_signature(const MockRequest& req, const std::string& base) {
  const std::string auth = req.header("authorization").value_or("");
  ASSERT_TRUE(auth.starts_with("AWS4-HMAC-SHA256 Credential=AKIDTEST/")) << auth;
  EXPECT_NE(auth.find("/us-west-2/bedrock/aws4_request"), std::string::npos) << auth;
  const std::string date = req.header("x-amz-date").value_or("");
  ASSERT_EQ(date.size(), 16u);
  std::tm tm{};
  ASSERT_TRUE(strptime(date.c_str(), "%Y%m%dT%H%M%SZ", &tm));
  const int64_t when = static_cast<int64_t>(timegm(&tm));
  const size_t sh = auth.find("SignedHeaders=") + 14;
  std::string names = auth.substr(sh, auth.find(',', sh) - sh);
  dialects::HeaderList signed_headers;
  for (size_t at = 0; at <= names.size();) {
    size_t end = names.find(';', at);
    if (end == std::string::npos) end = names.size();
    const std::string name = names.substr(at, end - at);
    at = end + 1;
    if (name == "host" || name.starts_with("x-amz-")) continue;  // the signer adds these
    signed_headers.emplace_back(name, req.header(name).value_or(""));
  }
  dialects::HeaderList again;
  const std::string token = req.header("x-amz-security-token").value_or("");
  ASSERT_TRUE(
      dialects::sigv4_sign(
          {.method = req.method,
           .url = base + req.target,
           .body = req.body,
           .headers = &signed_headers},
          {.access_key_id = "AKIDTEST", .secret_access_key = kSecret, .session_token = token},
          {.region = "us-west-2", .service = "bedrock", .unix_seconds = when}, again)
          .ok());
  EXPECT_EQ(again.back().second, auth);
}

class BedrockProviderTest : public ::testing::Test {
 protected:
  void SetUp() override {
    setenv("AWS_ACCESS_KEY_ID", "AKIDTEST", 1);
    setenv("TW_TEST_AWS_SECRET", kSecret, 1);
    setenv("AWS_SESSION_TOKEN", "session-token", 1);
    setenv("AWS_REGION", "us-west-2", 1);
  }
  void TearDown() override {
    server_.release();
    server_.stop();
    for (const char* v :
         {"AWS_ACCESS_KEY_ID", "TW_TEST_AWS_SECRET", "AWS_SESSION_TOKEN", "AWS_REGION"})
      unsetenv(v);
  }

  std::unique_ptr<Provider> make(int attempts = 3) {
    ProviderConfig cfg;
    cfg.profile = "bedrock";
    cfg.base_url = server_.url("");
    cfg.api_key_env = "TW_TEST_AWS_SECRET";
    cfg.model = kModel;
    cfg.retry.max_attempts = attempts;
    cfg.retry.initial_backoff = 10ms;
    cfg.retry.max_backoff = 50ms;
    cfg.idle_timeout = 2s;
    cfg.deadline = 20s;
    auto p = make_provider(cfg, client_);
    EXPECT_TRUE(p.ok()) << p.error().to_string();
    return p.ok() ? std::move(*p) : nullptr;
  }

  std::string base() {  // the server's URL without a trailing slash
    std::string u = server_.url("");
    while (!u.empty() && u.back() == '/') u.pop_back();
    return u;
  }

  MockHttpServer server_;
  transport::HttpClient client_;
  Upstream up_{"bedrock_converse"};
};

TEST_F(BedrockProviderTest, StreamsTheBinaryEventStreamInAnyChunkingAndSigns) {
  // The encoder's bytes cut into 7-byte HTTP chunks: frames arrive split anywhere.
  std::string bytes;
  for (const auto& piece : up_.sse_pieces(tool_turn())) bytes += piece;
  MockResponse r(200);
  r.header("content-type", "application/vnd.amazon.eventstream");
  for (size_t i = 0; i < bytes.size(); i += 7) r.chunk(bytes.substr(i, 7));
  server_.enqueue(std::move(r));
  auto p = make();
  ASSERT_TRUE(p);
  std::vector<ir::StreamEvent> events;
  auto g = p->stream_sync(simple_request(), [&](const ir::StreamEvent& e) { events.push_back(e); });
  ASSERT_TRUE(g.ok()) << g.error().to_string();
  ASSERT_EQ(g->response.parts.size(), 2u);
  EXPECT_EQ(std::get<ir::TextPart>(g->response.parts[0]).text, "Checking.");
  const auto& call = std::get<ir::ToolCallPart>(g->response.parts[1]);
  EXPECT_EQ(call.id, "tooluse_1");
  EXPECT_EQ(call.arguments, R"({"city":"Oslo"})");
  EXPECT_EQ(g->response.finish.kind, ir::FinishReason::Kind::tool_calls);
  EXPECT_EQ(g->response.usage.output_tokens, 12);

  ASSERT_EQ(server_.request_count(), 1u);
  const MockRequest req = server_.requests()[0];
  EXPECT_EQ(req.target, "/model/amazon.nova-lite-v1%3A0/converse-stream");
  EXPECT_EQ(req.header("accept"), "application/vnd.amazon.eventstream");
  EXPECT_EQ(req.header("x-amz-security-token"), "session-token");
  EXPECT_EQ(req.body.find(kModel), std::string::npos) << req.body;  // not in the body
  EXPECT_EQ(req.body.find("\"stream\""), std::string::npos) << req.body;
  for (const auto& [k, v] : req.headers) EXPECT_EQ(v.find(kSecret), std::string::npos) << k;
  expect_valid_signature(req, base());
  EXPECT_EQ(up_.decode(req).tools.size(), 1u);
}

TEST_F(BedrockProviderTest, GenerateUsesTheConversePath) {
  server_.enqueue(up_.whole(tool_turn()));
  auto p = make();
  auto g = p->generate_sync(simple_request());
  ASSERT_TRUE(g.ok()) << g.error().to_string();
  EXPECT_EQ(std::get<ir::ToolCallPart>(g->response.parts.at(1)).name, "get_weather");
  const MockRequest req = server_.requests()[0];
  EXPECT_EQ(req.target, "/model/amazon.nova-lite-v1%3A0/converse");
  expect_valid_signature(req, base());
}

TEST_F(BedrockProviderTest, ThrottlingErrorIsTranslatedWithoutTheSecret) {
  server_.enqueue(MockResponse::json(429, R"({"message":"Too many requests, please wait."})")
                      .header("x-amzn-errortype", "ThrottlingException"));
  auto p = make(1);
  auto g = p->stream_sync(simple_request(), {});
  ASSERT_FALSE(g.ok());
  EXPECT_EQ(g.error().code, ErrorCode::resource_exhausted);
  EXPECT_NE(g.error().message.find("Too many requests"), std::string::npos) << g.error().message;
  EXPECT_EQ(g.error().message.find(kSecret), std::string::npos);
}

TEST_F(BedrockProviderTest, InStreamExceptionSurfaces) {
  std::string bytes;
  for (const auto& piece :
       up_.sse_pieces({ir::MessageStart{}, ir::TextDelta{"Hel"},
                       ir::ErrorEvent{"modelStreamErrorException", "the model failed"}}))
    bytes += piece;
  server_.enqueue(
      MockResponse(200).header("content-type", "application/vnd.amazon.eventstream").chunk(bytes));
  auto p = make(1);
  auto g = p->stream_sync(simple_request(), {});
  ASSERT_FALSE(g.ok());
  EXPECT_EQ(g.error().code, ErrorCode::unavailable);
  EXPECT_NE(g.error().message.find("the model failed"), std::string::npos) << g.error().message;
}

}  // namespace
}  // namespace toolwire::provider
