// HttpClient under upstream faults: retries, give-ups, resets, stalls,
// deadlines, cancellation, and keys kept out of error messages.
#include <arpa/inet.h>
#include <gtest/gtest.h>
#include <netinet/in.h>
#include <sys/socket.h>
#include <unistd.h>

#include "collector.h"
#include "mock_http_server.h"

using namespace tw_test;
using toolwire::testing::MockHttpServer;
using toolwire::testing::MockRequest;
using toolwire::testing::MockResponse;
using Clock = std::chrono::steady_clock;

namespace {

// A loopback port nobody listens on: bound, then closed.
std::string refused_url(const std::string& path_and_query = "/v1/chat") {
  int fd = ::socket(AF_INET, SOCK_STREAM, 0);
  sockaddr_in a{};
  a.sin_family = AF_INET;
  a.sin_addr.s_addr = htonl(INADDR_LOOPBACK);
  ::bind(fd, reinterpret_cast<sockaddr*>(&a), sizeof a);
  socklen_t len = sizeof a;
  ::getsockname(fd, reinterpret_cast<sockaddr*>(&a), &len);
  ::close(fd);
  return "http://127.0.0.1:" + std::to_string(ntohs(a.sin_port)) + path_and_query;
}

}  // namespace

TEST(HttpRetry, TooManyRequestsHonoursRetryAfterThenSucceeds) {
  MockHttpServer server;
  server.enqueue(MockResponse::json(429, R"({"error":{"type":"rate_limit_error"}})")
                     .header("retry-after", "1"));
  server.enqueue(MockResponse::json(200, R"({"ok":1})"));
  HttpClient client;
  HttpRequest req = get(server.url("/v1/messages"));
  req.retry = fast_retries(3);
  auto t0 = Clock::now();
  auto r = client.fetch(req);
  auto elapsed = Clock::now() - t0;
  ASSERT_TRUE(r.ok()) << r.error().message;
  EXPECT_EQ(r->status, 200);
  EXPECT_EQ(r->body, R"({"ok":1})");
  EXPECT_EQ(r->stats.attempts, 2);
  EXPECT_EQ(r->stats.retry_wait, 1000ms);
  EXPECT_GE(elapsed, 1000ms);  // the server's delay, not the 10 ms backoff
  EXPECT_LT(elapsed, 3000ms);
  EXPECT_EQ(server.request_count(), 2u);
}

TEST(HttpRetry, RetryAfterMsWins) {
  MockHttpServer server;
  server.enqueue(
      MockResponse::json(429, "{}").header("retry-after", "30").header("retry-after-ms", "250"));
  server.enqueue(MockResponse::json(200, "{}"));
  HttpClient client;
  HttpRequest req = get(server.url("/"));
  auto t0 = Clock::now();
  auto r = client.fetch(req);
  ASSERT_TRUE(r.ok());
  EXPECT_EQ(r->stats.attempts, 2);
  EXPECT_GE(Clock::now() - t0, 250ms);
  EXPECT_LT(Clock::now() - t0, 5s);
}

TEST(HttpRetry, OverloadedThenSuccess) {
  MockHttpServer server;
  server.enqueue(MockResponse::json(
      529, R"({"type":"error","error":{"type":"overloaded_error","message":"Overloaded"}})"));
  server.enqueue(MockResponse::sse_stream().sse(R"({"type":"message_stop"})", "message_stop"));
  HttpClient client;
  HttpRequest req = get(server.url("/v1/messages"));
  req.retry = fast_retries(2);
  Collector c;
  client.start(req, c.callbacks());
  ASSERT_TRUE(c.wait_done());
  ASSERT_TRUE(c.result.ok());
  EXPECT_EQ(c.status, 200);  // the 529 was never shown
  EXPECT_EQ(c.stats.attempts, 2);
  EXPECT_EQ(c.body.find("overloaded"), std::string::npos);
  EXPECT_NE(c.body.find("message_stop"), std::string::npos);
}

TEST(HttpRetry, GivesUpAfterMaxAttemptsWithTheLastResponse) {
  MockHttpServer server;
  for (int i = 1; i <= 3; ++i)
    server.enqueue(MockResponse::json(500, "{\"try\":" + std::to_string(i) + "}"));
  server.enqueue(MockResponse::json(200, "{}"));  // never reached
  HttpClient client;
  HttpRequest req = get(server.url("/"));
  req.retry = fast_retries(3);
  auto r = client.fetch(req);
  ASSERT_TRUE(r.ok()) << r.error().message;  // an HTTP answer, for the caller to translate
  EXPECT_EQ(r->status, 500);
  EXPECT_EQ(r->body, "{\"try\":3}");
  EXPECT_EQ(r->stats.attempts, 3);
  EXPECT_EQ(r->stats.last_status, 500);
  EXPECT_EQ(server.request_count(), 3u);
}

TEST(HttpRetry, ShouldRetryFalseAndClientErrorsAreNotRetried) {
  MockHttpServer server;
  server.enqueue(MockResponse::json(503, "{}").header("x-should-retry", "false"));
  server.enqueue(MockResponse::json(400, R"({"error":"bad"})"));
  HttpClient client;
  HttpRequest req = get(server.url("/"));
  req.retry = fast_retries(5);
  auto r1 = client.fetch(req);
  ASSERT_TRUE(r1.ok());
  EXPECT_EQ(r1->status, 503);
  EXPECT_EQ(r1->stats.attempts, 1);
  auto r2 = client.fetch(req);
  ASSERT_TRUE(r2.ok());
  EXPECT_EQ(r2->status, 400);
  EXPECT_EQ(r2->stats.attempts, 1);
  EXPECT_EQ(server.request_count(), 2u);
}

TEST(HttpRetry, RetryAfterBeyondTheDeadlineReturnsTheResponse) {
  MockHttpServer server;
  server.enqueue(MockResponse::json(429, R"({"error":"slow down"})").header("retry-after", "5"));
  HttpClient client;
  HttpRequest req = get(server.url("/"));
  req.deadline = 2s;
  auto t0 = Clock::now();
  auto r = client.fetch(req);
  ASSERT_TRUE(r.ok()) << r.error().message;
  EXPECT_EQ(r->status, 429);
  EXPECT_EQ(r->body, R"({"error":"slow down"})");
  EXPECT_EQ(r->stats.attempts, 1);
  EXPECT_LT(Clock::now() - t0, 1s);  // did not sleep towards the deadline
}

TEST(HttpRetry, RetryAfterAboveTheCapReturnsTheResponse) {
  MockHttpServer server;
  server.enqueue(
      MockResponse::json(429, R"({"error":"come back tomorrow"})").header("retry-after", "86400"));
  HttpClient client;
  HttpRequest req = get(server.url("/"));
  req.retry.max_retry_after = 60s;
  auto r = client.fetch(req);
  ASSERT_TRUE(r.ok()) << r.error().message;
  EXPECT_EQ(r->status, 429);
  EXPECT_EQ(r->stats.attempts, 1);
  EXPECT_EQ(r->headers.get("retry-after"), "86400");  // for the caller to pass on
}

TEST(HttpRetry, RequestTimeoutAndConflictAreRetried) {
  MockHttpServer server;
  server.enqueue(MockResponse::json(408, "{}"));
  server.enqueue(MockResponse::json(409, "{}"));
  server.enqueue(MockResponse::json(200, R"({"ok":true})"));
  HttpClient client;
  HttpRequest req = get(server.url("/"));
  req.retry = fast_retries(3);
  auto r = client.fetch(req);
  ASSERT_TRUE(r.ok());
  EXPECT_EQ(r->status, 200);
  EXPECT_EQ(r->stats.attempts, 3);
  EXPECT_EQ(server.request_count(), 3u);
}

TEST(HttpRetry, ConnectionRefusedIsRetriedThenUnavailable) {
  HttpClient client;
  HttpRequest req = get(refused_url());
  req.retry = fast_retries(3);
  auto r = client.fetch(req);
  ASSERT_FALSE(r.ok());
  EXPECT_EQ(r.error().code, ErrorCode::unavailable);
  EXPECT_NE(r.error().message.find("3 attempts"), std::string::npos) << r.error().message;
}

TEST(HttpRetry, ConnectionRefusedStats) {
  HttpClient client;
  HttpRequest req = get(refused_url());
  req.retry = fast_retries(4);
  Collector c;
  client.start(req, c.callbacks());
  ASSERT_TRUE(c.wait_done());
  EXPECT_EQ(c.result.error().code, ErrorCode::unavailable);
  EXPECT_EQ(c.stats.attempts, 4);
  EXPECT_EQ(c.stats.last_status, 0);
}

TEST(HttpRetry, ServerClosingBeforeAnyResponseIsRetried) {
  MockHttpServer server;
  server.enqueue(MockResponse::reset_now());
  server.enqueue(MockResponse::raw("").close());
  server.enqueue(MockResponse::json(200, R"({"third":true})"));
  HttpClient client;
  HttpRequest req = get(server.url("/"));
  req.retry = fast_retries(3);
  auto r = client.fetch(req);
  ASSERT_TRUE(r.ok()) << r.error().message;
  EXPECT_EQ(r->body, R"({"third":true})");
  EXPECT_EQ(r->stats.attempts, 3);
}

TEST(HttpFault, ResetMidStreamAfterBytesIsAnErrorNeverARetry) {
  MockHttpServer server;
  server.enqueue(MockResponse::sse_stream()
                     .sse(R"({"type":"tool_call","name":"delete_file"})")
                     .hold()
                     .reset());
  server.enqueue(MockResponse::json(200, "{}"));  // would be served to a retry
  HttpClient client;
  HttpRequest req = get(server.url("/v1/chat/completions"));
  req.retry = fast_retries(5);
  Collector c;
  client.start(req, c.callbacks());
  ASSERT_TRUE(c.wait_body("delete_file"));
  server.release();  // now the server resets the connection
  ASSERT_TRUE(c.wait_done());
  ASSERT_FALSE(c.result.ok());
  EXPECT_EQ(c.result.error().code, ErrorCode::unavailable);
  EXPECT_NE(c.result.error().message.find("not retried"), std::string::npos)
      << c.result.error().message;
  EXPECT_EQ(c.stats.attempts, 1);
  std::this_thread::sleep_for(100ms);  // a retry, if any, would arrive by now
  EXPECT_EQ(server.request_count(), 1u);
}

TEST(HttpFault, BodyCutShortIsAnError) {
  MockHttpServer server;
  server.enqueue(
      MockResponse(200).header("Content-Length", "100").write("only twenty bytes...").close());
  HttpClient client;
  HttpRequest req = get(server.url("/"));
  req.retry = fast_retries(3);
  auto r = client.fetch(req);
  ASSERT_FALSE(r.ok());
  EXPECT_EQ(r.error().code, ErrorCode::unavailable);
  EXPECT_EQ(server.request_count(), 1u);
}

TEST(HttpFault, StallPastIdleTimeoutIsDeadlineExceeded) {
  MockHttpServer server;
  server.enqueue(MockResponse::sse_stream().sse("one").sse("two", "", 100ms).stall());
  HttpClient client;
  HttpRequest req = get(server.url("/"));
  req.idle_timeout = 300ms;
  Collector c;
  auto t0 = Clock::now();
  client.start(req, c.callbacks());
  ASSERT_TRUE(c.wait_done());
  auto elapsed = Clock::now() - t0;
  EXPECT_EQ(c.result.error().code, ErrorCode::deadline_exceeded);
  EXPECT_NE(c.result.error().message.find("idle"), std::string::npos);
  EXPECT_NE(c.body.find("two"),
            std::string::npos);  // activity before the stall reset the idle clock
  EXPECT_GE(elapsed, 400ms);
  EXPECT_LT(elapsed, 3s);
  EXPECT_EQ(server.request_count(), 1u);
}

TEST(HttpFault, SlowHeadPastIdleTimeout) {
  MockHttpServer server;
  server.enqueue(MockResponse::json(200, "{}").delay(3000ms));
  HttpClient client;
  HttpRequest req = get(server.url("/"));
  req.idle_timeout = 200ms;
  auto t0 = Clock::now();
  auto r = client.fetch(req);
  ASSERT_FALSE(r.ok());
  EXPECT_EQ(r.error().code, ErrorCode::deadline_exceeded);
  EXPECT_LT(Clock::now() - t0, 2s);
}

TEST(HttpFault, TotalDeadlineStopsAStreamThatNeverEnds) {
  MockHttpServer server;
  MockResponse endless = MockResponse::sse_stream();
  for (int i = 0; i < 100; ++i) endless.sse("tick", "", 50ms);
  server.enqueue(endless);
  HttpClient client;
  HttpRequest req = get(server.url("/"));
  req.deadline = 400ms;
  req.idle_timeout = 1000ms;  // never reached: bytes keep coming
  Collector c;
  auto t0 = Clock::now();
  client.start(req, c.callbacks());
  ASSERT_TRUE(c.wait_done());
  auto elapsed = Clock::now() - t0;
  EXPECT_EQ(c.result.error().code, ErrorCode::deadline_exceeded);
  EXPECT_NE(c.result.error().message.find("deadline"), std::string::npos);
  EXPECT_GE(elapsed, 400ms);
  EXPECT_LT(elapsed, 2s);
  EXPECT_FALSE(c.body.empty());
}

TEST(HttpFault, CancelMidStreamFromAnotherThread) {
  MockHttpServer server;
  server.enqueue(MockResponse::sse_stream().sse("first").hold().sse("second"));
  HttpClient client;
  Collector c;
  HttpCall call = client.start(get(server.url("/")), c.callbacks());
  ASSERT_TRUE(c.wait_body("first"));
  auto t0 = Clock::now();
  std::thread([call] { call.cancel(); }).join();
  ASSERT_TRUE(c.wait_done(2s));
  EXPECT_LT(Clock::now() - t0, 500ms);
  EXPECT_EQ(c.result.error().code, ErrorCode::cancelled);
  call.cancel();  // again: harmless
  server.release();
  EXPECT_TRUE(server.wait_for_idle());  // the client closed its end
  EXPECT_EQ(c.body.find("second"), std::string::npos);
}

TEST(HttpFault, CancelDuringRetryWait) {
  MockHttpServer server;
  server.enqueue(MockResponse::json(429, "{}").header("retry-after", "20"));
  HttpClient client;
  Collector c;
  HttpCall call = client.start(get(server.url("/")), c.callbacks());
  ASSERT_TRUE(server.wait_for_requests(1));
  std::this_thread::sleep_for(50ms);
  auto t0 = Clock::now();
  call.cancel();
  ASSERT_TRUE(c.wait_done(2s));
  EXPECT_LT(Clock::now() - t0, 500ms);
  EXPECT_EQ(c.result.error().code, ErrorCode::cancelled);
  EXPECT_EQ(c.status, 0);  // the retried 429 was never shown
}

TEST(HttpSecrets, KeysNeverAppearInErrors) {
  const std::string key = "sk-proj-TOPSECRET0123456789";
  const std::string key2 = "ant-KEY-98765-SECRET";
  auto check = [&](const Error& e) {
    EXPECT_EQ(e.message.find("TOPSECRET"), std::string::npos) << e.message;
    EXPECT_EQ(e.message.find("SECRET"), std::string::npos) << e.message;
    EXPECT_EQ(e.message.find("hunter2"), std::string::npos) << e.message;
  };
  HttpClient client;
  // Refused connection, key in headers, the query and userinfo.
  HttpRequest req = get(refused_url("/v1/chat?key=TOPSECRET-IN-QUERY"));
  req.url.insert(7, "user:hunter2@");
  req.method = "POST";
  req.headers.add("Authorization", "Bearer " + key);
  req.headers.add("x-api-key", key2);
  req.retry = fast_retries(2);
  auto r = client.fetch(req);
  ASSERT_FALSE(r.ok());
  check(r.error());
  EXPECT_NE(r.error().message.find("127.0.0.1"), std::string::npos);  // still says where it failed

  // Idle timeout.
  MockHttpServer server;
  server.enqueue(MockResponse::sse_stream().sse("x").stall());
  HttpRequest slow = get(server.url("/v1/messages?api_key=TOPSECRET"));
  slow.headers.add("x-api-key", key2);
  slow.idle_timeout = 100ms;
  auto r2 = client.fetch(slow);
  ASSERT_FALSE(r2.ok());
  check(r2.error());

  // A header value with a line break is refused without echoing the value.
  HttpRequest bad = get(server.url("/"));
  bad.headers.add("Authorization", "Bearer TOPSECRET\r\nX-Injected: 1");
  auto r3 = client.fetch(bad);
  ASSERT_FALSE(r3.ok());
  EXPECT_EQ(r3.error().code, ErrorCode::invalid_argument);
  check(r3.error());
}

TEST(HttpFault, BadUrlIsInvalidArgument) {
  HttpClient client;
  HttpRequest req = get("ftp://127.0.0.1/file");
  auto r = client.fetch(req);
  ASSERT_FALSE(r.ok());
  EXPECT_EQ(r.error().code, ErrorCode::invalid_argument);
}
