// HTTP providers against mock upstreams on 127.0.0.1 speaking the exact
// OpenAI Chat and Anthropic Messages wire formats, streaming and not, with
// faults: 429 + retry-after, 529, reset mid-stream, stall, malformed SSE, 400.
#include <gtest/gtest.h>

#include <atomic>
#include <cstdlib>
#include <fstream>
#include <sstream>

#include "mock_upstream.h"
#include "toolwire/agent/agent.h"
#include "toolwire/agent/history.h"
#include "toolwire/provider/factory.h"

namespace toolwire::provider {
namespace {

using namespace std::chrono_literals;
using testing::MockHttpServer;
using testing::MockResponse;
using testing::Upstream;

constexpr const char* kKey = "sk-test-SECRET-123456";

struct Dialect {
  const char* profile;
  const char* codec;
  const char* base_path;  // appended to the server URL as the base URL
  const char* limit_header;
};

std::ostream& operator<<(std::ostream& os, const Dialect& d) { return os << d.profile; }

std::string read_file(const std::string& p) {
  std::ifstream in(p, std::ios::binary);
  std::stringstream ss;
  ss << in.rdbuf();
  return ss.str();
}

std::vector<ir::StreamEvent> tool_turn() {
  return {ir::MessageStart{"msg_1", "m-1", 1700000000},
          ir::TextDelta{"Let me check."},
          ir::ToolCallStart{0, "call_abc", "get_weather"},
          ir::ToolCallDelta{0, R"({"city":)"},
          ir::ToolCallDelta{0, R"("Oslo"})"},
          ir::ToolCallEnd{0},
          ir::UsageEvent{ir::Usage{20, 12, {}, {}}},
          ir::Finish{ir::FinishReason{ir::FinishReason::Kind::tool_calls, ""}}};
}

std::vector<ir::StreamEvent> text_turn(std::string text) {
  return {ir::MessageStart{"msg_2", "m-1", 1700000000}, ir::TextDelta{std::move(text)},
          ir::UsageEvent{ir::Usage{30, 4, {}, {}}},
          ir::Finish{ir::FinishReason{ir::FinishReason::Kind::stop, ""}}};
}

ir::Request simple_request() {
  ir::Request r;
  r.model = "m-1";
  r.messages.push_back(ir::Message{ir::Role::user, {ir::TextPart{"weather in Oslo?"}}, {}});
  r.tools.push_back(
      ir::ToolDefinition{"get_weather",
                         "weather",
                         R"({"type":"object","properties":{"city":{"type":"string"}}})",
                         {}});
  return r;
}

class HttpProviderTest : public ::testing::TestWithParam<Dialect> {
 protected:
  void SetUp() override {
    setenv("TW_TEST_KEY", kKey, 1);
    up_ = std::make_unique<Upstream>(GetParam().codec);
  }
  void TearDown() override {
    server_.release();
    server_.stop();
  }

  ProviderConfig config() {
    ProviderConfig cfg;
    cfg.profile = GetParam().profile;
    cfg.base_url = server_.url(GetParam().base_path);
    cfg.api_key_env = "TW_TEST_KEY";
    cfg.retry.initial_backoff = 10ms;
    cfg.retry.max_backoff = 50ms;
    cfg.idle_timeout = 2s;
    cfg.deadline = 20s;
    return cfg;
  }

  std::unique_ptr<Provider> make(ProviderConfig cfg) {
    auto p = make_provider(cfg, client_);
    EXPECT_TRUE(p.ok()) << p.error().to_string();
    return p.ok() ? std::move(*p) : nullptr;
  }
  std::unique_ptr<Provider> make() { return make(config()); }

  bool anthropic() const { return std::string(GetParam().codec) == "anthropic_messages"; }

  MockHttpServer server_;
  transport::HttpClient client_;
  std::unique_ptr<Upstream> up_;
};

TEST_P(HttpProviderTest, StreamsToolCallWithAuthLimitsAndTiming) {
  server_.enqueue(up_->stream(tool_turn(), 5ms).header(GetParam().limit_header, "42"));
  auto p = make();
  ASSERT_TRUE(p);
  std::vector<ir::StreamEvent> events;
  auto g = p->stream_sync(simple_request(), [&](const ir::StreamEvent& e) { events.push_back(e); });
  ASSERT_TRUE(g.ok()) << g.error().to_string();
  ASSERT_EQ(g->response.parts.size(), 2u);
  EXPECT_EQ(std::get<ir::TextPart>(g->response.parts[0]).text, "Let me check.");
  auto call = std::get<ir::ToolCallPart>(g->response.parts[1]);
  EXPECT_EQ(call.name, "get_weather");
  EXPECT_EQ(call.arguments, R"({"city":"Oslo"})");
  EXPECT_EQ(g->response.finish.kind, ir::FinishReason::Kind::tool_calls);
  EXPECT_EQ(g->response.usage.output_tokens, 12);
  EXPECT_GT(events.size(), 4u);
  EXPECT_EQ(g->limits.requests_remaining(), 42);
  EXPECT_GT(g->timing.time_to_first_token.count(), 0);
  EXPECT_GE(g->timing.total, g->timing.time_to_first_token);
  EXPECT_GT(g->timing.output_tokens_per_second, 0);
  EXPECT_EQ(g->timing.attempts, 1);

  ASSERT_EQ(server_.request_count(), 1u);
  auto req = server_.requests()[0];
  EXPECT_EQ(req.method, "POST");
  if (anthropic()) {
    EXPECT_EQ(req.target, "/v1/messages");
    EXPECT_EQ(req.header("x-api-key"), kKey);
    EXPECT_EQ(req.header("anthropic-version"), "2023-06-01");
    EXPECT_FALSE(req.header("authorization").has_value());
  } else {
    EXPECT_EQ(req.target, "/v1/chat/completions");
    EXPECT_EQ(req.header("authorization"), std::string("Bearer ") + kKey);
    EXPECT_NE(req.body.find(R"("include_usage":true)"), std::string::npos) << req.body;
  }
  ir::Request sent = up_->decode(req);
  EXPECT_TRUE(sent.stream);
  EXPECT_EQ(sent.model, "m-1");
  ASSERT_EQ(sent.tools.size(), 1u);
  if (anthropic()) {
    EXPECT_EQ(sent.max_tokens, 4096);  // required by the dialect: filled from the profile
  }
}

TEST_P(HttpProviderTest, GenerateDecodesAWholeResponse) {
  server_.enqueue(up_->whole(text_turn("It is sunny.")));
  auto p = make();
  auto g = p->generate_sync(simple_request());
  ASSERT_TRUE(g.ok()) << g.error().to_string();
  ASSERT_EQ(g->response.parts.size(), 1u);
  EXPECT_EQ(std::get<ir::TextPart>(g->response.parts[0]).text, "It is sunny.");
  EXPECT_EQ(g->response.usage.input_tokens, 30);
  EXPECT_FALSE(up_->decode(server_.requests()[0]).stream);
}

TEST_P(HttpProviderTest, RetriesA429WithRetryAfterThenSucceeds) {
  server_.enqueue(
      MockResponse::json(429, R"({"error":{"message":"slow down","type":"rate_limit_error"}})")
          .header("retry-after", "0"));
  server_.enqueue(up_->stream(text_turn("finally")));
  auto p = make();
  auto g = p->stream_sync(simple_request(), {});
  ASSERT_TRUE(g.ok()) << g.error().to_string();
  EXPECT_EQ(std::get<ir::TextPart>(g->response.parts[0]).text, "finally");
  EXPECT_EQ(g->timing.attempts, 2);
  EXPECT_EQ(server_.request_count(), 2u);
}

TEST_P(HttpProviderTest, Overloaded529IsRetriedThenTranslated) {
  std::string overloaded =
      R"({"type":"error","error":{"type":"overloaded_error","message":"Overloaded"}})";
  server_.enqueue(MockResponse::json(529, overloaded));
  server_.enqueue(up_->stream(text_turn("ok")));
  auto p = make();
  auto g = p->stream_sync(simple_request(), {});
  ASSERT_TRUE(g.ok()) << g.error().to_string();
  EXPECT_EQ(server_.request_count(), 2u);

  // Without retries the 529 reaches the caller, translated.
  ProviderConfig cfg = config();
  cfg.retry.max_attempts = 1;
  auto once = make(cfg);
  server_.enqueue(MockResponse::json(529, overloaded));
  auto e = once->stream_sync(simple_request(), {});
  ASSERT_FALSE(e.ok());
  EXPECT_EQ(e.error().code, ErrorCode::unavailable);
  EXPECT_NE(e.error().message.find("529"), std::string::npos) << e.error().message;
  if (anthropic()) {
    EXPECT_NE(e.error().message.find("Overloaded"), std::string::npos) << e.error().message;
  }
}

TEST_P(HttpProviderTest, InStreamErrorEventSurfaces) {
  // Anthropic's own `error` event (fixture), or the OpenAI encoder's form of it.
  if (anthropic()) {
    std::string frame =
        read_file(std::string(TOOLWIRE_TEST_DATA) + "/wire/anthropic-messages-stream-error.sse");
    auto pieces = up_->sse_pieces({ir::MessageStart{"m", "m-1", 0}, ir::TextDelta{"Hel"}});
    MockResponse r = MockResponse::sse_stream();
    for (auto& p : pieces) r.chunk(p);
    r.chunk(frame);
    server_.enqueue(std::move(r));
  } else {
    server_.enqueue(up_->stream({ir::MessageStart{"m", "m-1", 0}, ir::TextDelta{"Hel"},
                                 ir::ErrorEvent{"server_error", "Overloaded"}}));
  }
  auto p = make();
  auto g = p->stream_sync(simple_request(), {});
  ASSERT_FALSE(g.ok());
  EXPECT_NE(g.error().message.find("Overloaded"), std::string::npos) << g.error().message;
  EXPECT_EQ(server_.request_count(), 1u);
}

TEST_P(HttpProviderTest, ConnectionResetMidStreamSurfacesAndIsNotRetried) {
  auto pieces = up_->sse_pieces(tool_turn());
  MockResponse r = MockResponse::sse_stream();
  for (size_t i = 0; i < 3 && i < pieces.size(); ++i) r.chunk(pieces[i]);
  r.reset();
  server_.enqueue(std::move(r));
  server_.enqueue(up_->stream(text_turn("should never be fetched")));
  auto p = make();
  std::vector<ir::StreamEvent> events;
  auto g = p->stream_sync(simple_request(), [&](const ir::StreamEvent& e) { events.push_back(e); });
  ASSERT_FALSE(g.ok());
  EXPECT_EQ(g.error().code, ErrorCode::unavailable) << g.error().to_string();
  EXPECT_FALSE(events.empty());  // the caller had seen bytes: retrying would duplicate them
  EXPECT_EQ(server_.request_count(), 1u);
}

TEST_P(HttpProviderTest, StallPastIdleTimeoutFails) {
  auto pieces = up_->sse_pieces(tool_turn());
  MockResponse r = MockResponse::sse_stream();
  r.chunk(pieces[0]);
  r.stall();
  server_.enqueue(std::move(r));
  ProviderConfig cfg = config();
  cfg.idle_timeout = 300ms;
  auto p = make(cfg);
  auto t0 = std::chrono::steady_clock::now();
  auto g = p->stream_sync(simple_request(), {});
  auto took = std::chrono::steady_clock::now() - t0;
  ASSERT_FALSE(g.ok());
  EXPECT_EQ(g.error().code, ErrorCode::deadline_exceeded) << g.error().to_string();
  EXPECT_GE(took, 250ms);
  EXPECT_LT(took, 5s);
  EXPECT_EQ(server_.request_count(), 1u);
}

TEST_P(HttpProviderTest, MalformedSseIsAParseError) {
  auto pieces = up_->sse_pieces(tool_turn());
  MockResponse r = MockResponse::sse_stream();
  r.chunk(pieces[0]);
  r.chunk(anthropic() ? "event: content_block_delta\ndata: {not json at all\n\n"
                      : "data: {not json at all\n\n");
  r.stall();  // the client must stop on its own, not wait for more
  server_.enqueue(std::move(r));
  auto p = make();
  auto g = p->stream_sync(simple_request(), {});
  ASSERT_FALSE(g.ok());
  EXPECT_NE(g.error().message.find("sent a malformed stream"), std::string::npos)
      << g.error().to_string();
}

TEST_P(HttpProviderTest, BadRequestBodyIsTranslatedAndKeyIsNeverShown) {
  std::string body =
      anthropic()
          ? std::string(
                R"({"type":"error","error":{"type":"invalid_request_error","message":"messages.0: bad role; key was )") +
                kKey + "\"}}"
          : std::string(R"({"error":{"message":"Invalid value for 'messages[0].role'; key was )") +
                kKey +
                R"(","type":"invalid_request_error","param":"messages[0].role","code":null}})";
  server_.enqueue(MockResponse::json(400, body));
  auto p = make();
  auto g = p->stream_sync(simple_request(), {});
  ASSERT_FALSE(g.ok());
  EXPECT_EQ(g.error().code, ErrorCode::invalid_argument);
  EXPECT_NE(g.error().message.find("answered 400"), std::string::npos);
  EXPECT_NE(g.error().message.find(anthropic() ? "bad role" : "Invalid value"), std::string::npos)
      << g.error().message;
  EXPECT_EQ(g.error().to_string().find(kKey), std::string::npos) << g.error().to_string();
  EXPECT_EQ(server_.request_count(), 1u);  // a 400 is not retried
}

TEST_P(HttpProviderTest, MissingKeyNamesTheVariableOnly) {
  ProviderConfig cfg = config();
  cfg.api_key_env = "TW_TEST_KEY_THAT_IS_NOT_SET";
  unsetenv("TW_TEST_KEY_THAT_IS_NOT_SET");
  auto p = make_provider(cfg, client_);
  ASSERT_FALSE(p.ok());
  EXPECT_EQ(p.error().code, ErrorCode::unauthenticated);
  EXPECT_NE(p.error().message.find("TW_TEST_KEY_THAT_IS_NOT_SET"), std::string::npos);
}

TEST_P(HttpProviderTest, AgentResetMidStreamNeverRunsAToolTwice) {
  // Round 1 completes with a tool call; round 2 dies mid-stream.
  server_.enqueue(up_->stream(tool_turn()));
  auto pieces = up_->sse_pieces(tool_turn());
  MockResponse broken = MockResponse::sse_stream();
  for (size_t i = 0; i < 4 && i < pieces.size(); ++i) broken.chunk(pieces[i]);
  broken.reset();
  server_.enqueue(std::move(broken));
  auto p = make();
  std::atomic<int> runs{0};
  tools::Registry reg;
  tools::ToolSpec w;
  w.name = "get_weather";
  w.handler = tools::SyncHandler([&](const nlohmann::json&, tools::ToolContext&) {
    ++runs;
    return tools::ToolOutput::text("sunny");
  });
  ASSERT_TRUE(reg.add(std::move(w)).ok());
  agent::AgentOptions opt;
  opt.base.model = "m-1";
  agent::Agent a(*p, reg, opt);
  auto r = a.run("weather?");
  EXPECT_EQ(r.reason, agent::StopReason::error);
  ASSERT_TRUE(r.error.has_value());
  EXPECT_EQ(r.error->code, ErrorCode::unavailable);
  EXPECT_EQ(runs.load(), 1);
  EXPECT_EQ(server_.request_count(), 2u);
  EXPECT_TRUE(agent::check_history(a.history()).ok());
  EXPECT_EQ(a.history().back().role, ir::Role::tool);  // the broken turn left nothing behind
}

TEST_P(HttpProviderTest, AgentCancelDuringStreamStopsTheTransfer) {
  MockResponse slow = MockResponse::sse_stream();
  for (auto& piece : up_->sse_pieces(text_turn("slow answer"))) slow.chunk(piece, 10ms);
  slow.hold();
  server_.enqueue(std::move(slow));
  auto p = make();
  tools::Registry reg;
  agent::AgentOptions opt;
  opt.base.model = "m-1";
  agent::Agent a(*p, reg, opt);
  auto t0 = std::chrono::steady_clock::now();
  auto r = a.run("hi", [&](const agent::Event& e) {
    if (std::holds_alternative<agent::TextDeltaEvent>(e)) a.cancel();
  });
  EXPECT_EQ(r.reason, agent::StopReason::cancelled);
  EXPECT_LT(std::chrono::steady_clock::now() - t0, 3s);
  EXPECT_EQ(a.history().size(), 1u);
}

INSTANTIATE_TEST_SUITE_P(Dialects, HttpProviderTest,
                         ::testing::Values(Dialect{"openai", "openai_chat", "/v1",
                                                   "x-ratelimit-remaining-requests"},
                                           Dialect{"anthropic", "anthropic_messages", "",
                                                   "anthropic-ratelimit-requests-remaining"}),
                         [](const auto& info) { return std::string(info.param.profile); });

}  // namespace
}  // namespace toolwire::provider
