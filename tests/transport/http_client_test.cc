// HttpClient against the mock server: requests, streaming, concurrency,
// connection reuse, proxies from the environment.
#include <gtest/gtest.h>

#include <atomic>
#include <condition_variable>
#include <cstdlib>
#include <future>
#include <mutex>
#include <set>

#include "collector.h"
#include "mock_http_server.h"

using namespace tw_test;
using toolwire::testing::MockHttpServer;
using toolwire::testing::MockRequest;
using toolwire::testing::MockResponse;

TEST(HttpClient, GetDeliversStatusHeadersAndBody) {
  MockHttpServer server;
  server.enqueue(MockResponse::json(200, R"({"ok":true})").header("X-Request-Id", "req_1"));
  HttpClient client;
  auto r = client.fetch(get(server.url("/v1/models")));
  ASSERT_TRUE(r.ok()) << r.error().message;
  EXPECT_EQ(r->status, 200);
  EXPECT_EQ(r->body, R"({"ok":true})");
  EXPECT_EQ(r->headers.get("x-request-id"), "req_1");  // case-insensitive
  EXPECT_EQ(r->headers.get("CONTENT-TYPE"), "application/json");
  EXPECT_EQ(r->stats.attempts, 1);
  EXPECT_EQ(r->stats.body_bytes, 11u);
  auto reqs = server.requests();
  ASSERT_EQ(reqs.size(), 1u);
  EXPECT_EQ(reqs[0].method, "GET");
  EXPECT_EQ(reqs[0].target, "/v1/models");
}

TEST(HttpClient, PostSendsBodyAndHeadersVerbatim) {
  MockHttpServer server;
  server.enqueue(MockResponse::json(201, "{}"));
  HttpClient client;
  HttpRequest req = get(server.url("/v1/chat/completions"));
  req.method = "POST";
  req.body = std::string(100000, 'x');  // big enough that curl would use Expect: 100-continue
  req.headers.add("content-type", "application/json");
  req.headers.add("anthropic-version", "2023-06-01");
  auto r = client.fetch(req);
  ASSERT_TRUE(r.ok()) << r.error().message;
  EXPECT_EQ(r->status, 201);
  auto reqs = server.requests();
  ASSERT_EQ(reqs.size(), 1u);
  EXPECT_EQ(reqs[0].method, "POST");
  EXPECT_EQ(reqs[0].body, req.body);
  EXPECT_EQ(reqs[0].header("content-type"), "application/json");
  EXPECT_EQ(reqs[0].header("anthropic-version"), "2023-06-01");
  EXPECT_FALSE(reqs[0].header("expect").has_value());
}

TEST(HttpClient, PostWithoutContentTypeSendsNoFormDefault) {
  MockHttpServer server;
  server.enqueue(MockResponse::json(200, "{}"));
  HttpClient client;
  HttpRequest req = get(server.url("/x"));
  req.method = "PUT";
  req.body = "abc";
  ASSERT_TRUE(client.fetch(req).ok());
  auto reqs = server.requests();
  ASSERT_EQ(reqs.size(), 1u);
  EXPECT_EQ(reqs[0].method, "PUT");
  EXPECT_EQ(reqs[0].body, "abc");
  EXPECT_FALSE(reqs[0].header("content-type").has_value());
}

TEST(HttpClient, HeadAndNoContentComplete) {
  MockHttpServer server;
  server.enqueue(MockResponse(204));
  server.enqueue(MockResponse(200).header("Content-Length", "42"));  // HEAD: a length, no body
  HttpClient client;
  HttpRequest del = get(server.url("/v1/files/f1"));
  del.method = "DELETE";
  auto r1 = client.fetch(del);
  ASSERT_TRUE(r1.ok()) << r1.error().message;
  EXPECT_EQ(r1->status, 204);
  EXPECT_TRUE(r1->body.empty());
  HttpRequest head = get(server.url("/v1/files/f1"));
  head.method = "HEAD";
  auto r2 = client.fetch(head);
  ASSERT_TRUE(r2.ok()) << r2.error().message;
  EXPECT_EQ(r2->status, 200);
  EXPECT_EQ(r2->headers.get("content-length"), "42");
  auto reqs = server.requests();
  ASSERT_EQ(reqs.size(), 2u);
  EXPECT_EQ(reqs[0].method, "DELETE");
  EXPECT_EQ(reqs[1].method, "HEAD");
}

TEST(HttpClient, StreamedBodyArrivesBeforeTheResponseEnds) {
  MockHttpServer server;
  server.enqueue(MockResponse::sse_stream()
                     .sse(R"({"delta":"Hel"})")
                     .sse(R"({"delta":"lo"})", "", 20ms)
                     .hold()  // the server keeps the response open here
                     .sse("[DONE]"));
  HttpClient client;
  Collector c;
  client.start(get(server.url("/stream")), c.callbacks());
  ASSERT_TRUE(c.wait_body(R"({"delta":"lo"})"));
  // Both events were handed over while the server still holds the connection.
  EXPECT_FALSE(c.is_done());
  EXPECT_EQ(server.open_connections(), 1u);
  {
    std::lock_guard<std::mutex> lock(c.mu);
    EXPECT_EQ(c.status, 200);
    EXPECT_EQ(c.headers.get("content-type"), "text/event-stream");
    EXPECT_EQ(c.body.find("[DONE]"), std::string::npos);
    EXPECT_GE(c.pieces.size(), 2u);
  }
  server.release();
  ASSERT_TRUE(c.wait_done());
  EXPECT_TRUE(c.result.ok());
  EXPECT_EQ(c.body, "data: {\"delta\":\"Hel\"}\n\ndata: {\"delta\":\"lo\"}\n\ndata: [DONE]\n\n");
  EXPECT_GT(c.stats.time_to_first_byte.count(), 0);
  EXPECT_GE(c.stats.total_time, c.stats.time_to_first_byte);
}

// Flow control takes effect at the next chunk. libcurl may hand over
// megabytes of a fast upstream in one call of its read loop; a pause asked
// for inside the body callback (a consumer on the loop thread) or on another
// thread stops delivery there, not when that call returns, and the resume
// delivers the rest, nothing lost.
TEST(HttpClient, APauseStopsDeliveryAtTheNextChunk) {
  MockHttpServer server;
  const size_t total = size_t{32} << 20;
  server.enqueue(MockResponse::json(200, std::string(total, 'x')));
  HttpClient client;
  std::promise<HttpCall> started;
  std::shared_future<HttpCall> call = started.get_future().share();
  std::mutex mu;
  std::condition_variable cv;
  size_t received = 0, after_pause = 0;
  bool paused = false, done = false, all_x = true;
  HttpCallbacks cb;
  cb.on_body = [&](std::string_view bytes) {
    std::lock_guard<std::mutex> lock(mu);
    if (paused) after_pause += bytes.size();
    received += bytes.size();
    all_x = all_x && bytes.find_first_not_of('x') == std::string_view::npos;
    if (!paused && received >= (size_t{1} << 20)) {
      paused = true;
      call.get().set_paused(true);  // from the loop thread, inside the callback
      cv.notify_all();
    }
    return true;
  };
  cb.on_complete = [&](const Status&, const HttpStats&) {
    std::lock_guard<std::mutex> lock(mu);
    done = true;
    cv.notify_all();
  };
  started.set_value(client.start(get(server.url("/big")), std::move(cb)));
  std::unique_lock<std::mutex> lock(mu);
  ASSERT_TRUE(cv.wait_for(lock, 10s, [&] { return paused; }));
  // Nothing may arrive while paused: a bounded look for a wrong delivery.
  EXPECT_FALSE(cv.wait_for(lock, 300ms, [&] { return after_pause > 0 || done; }))
      << after_pause << " bytes arrived after the pause";
  const size_t at_pause = received;
  EXPECT_LT(at_pause, total);
  lock.unlock();
  call.get().set_paused(false);  // from another thread
  lock.lock();
  ASSERT_TRUE(cv.wait_for(lock, 30s, [&] { return done; }));
  EXPECT_EQ(received, total);
  EXPECT_TRUE(all_x);
}

TEST(HttpClient, CallbacksRunOnTheLoopThread200ConcurrentStreams) {
  MockHttpServer server([](const MockRequest&) {
    MockResponse r = MockResponse::sse_stream();
    for (int i = 0; i < 5; ++i) r.sse("{\"i\":" + std::to_string(i) + "}", "", 20ms);
    return r;
  });
  HttpClient client;
  constexpr int N = 200;
  std::vector<std::unique_ptr<Collector>> cs;
  auto t0 = std::chrono::steady_clock::now();
  for (int i = 0; i < N; ++i) {
    cs.push_back(std::make_unique<Collector>());
    client.start(get(server.url("/s/" + std::to_string(i))), cs.back()->callbacks());
  }
  std::set<std::thread::id> threads;
  for (auto& c : cs) {
    ASSERT_TRUE(c->wait_done(30s));
    ASSERT_TRUE(c->result.ok()) << c->result.error().message;
    EXPECT_EQ(c->body.size(), 5 * std::string("data: {\"i\":0}\n\n").size());
    threads.insert(c->callback_threads.begin(), c->callback_threads.end());
  }
  auto elapsed = std::chrono::steady_clock::now() - t0;
  ASSERT_EQ(threads.size(), 1u);
  EXPECT_EQ(*threads.begin(), client.loop_thread_id());
  EXPECT_EQ(server.request_count(), static_cast<size_t>(N));
  // Each stream takes >= 100 ms; run one after another that would be 20 s.
  EXPECT_LT(elapsed, 10s);
  EXPECT_GT(server.connection_count(), 10u);  // truly concurrent connections
  EXPECT_EQ(client.active_calls(), 0u);
}

TEST(HttpClient, KeepAliveReusesTheConnection) {
  MockHttpServer server([](const MockRequest&) { return MockResponse::json(200, "{}"); });
  HttpClient client;
  for (int i = 0; i < 10; ++i) {
    auto r = client.fetch(get(server.url("/ping")));
    ASSERT_TRUE(r.ok()) << r.error().message;
  }
  EXPECT_EQ(server.request_count(), 10u);
  EXPECT_EQ(server.connection_count(), 1u);
}

TEST(HttpClient, OnBodyFalseAbortsAsCancelled) {
  MockHttpServer server;
  server.enqueue(MockResponse::sse_stream().sse("a").hold().sse("b"));
  HttpClient client;
  Collector c;
  c.abort_body = true;
  client.start(get(server.url("/s")), c.callbacks());
  ASSERT_TRUE(c.wait_done());
  EXPECT_EQ(c.result.error().code, ErrorCode::cancelled);
  server.release();
}

TEST(HttpClient, FetchOnTheLoopThreadIsRefused) {
  MockHttpServer server([](const MockRequest&) { return MockResponse::json(200, "{}"); });
  HttpClient client;
  std::promise<ErrorCode> inner;
  HttpCallbacks cb;
  cb.on_complete = [&](const Status&, const HttpStats&) {
    auto r = client.fetch(get(server.url("/again")));
    inner.set_value(r.ok() ? ErrorCode::internal : r.error().code);
  };
  client.start(get(server.url("/")), cb);
  auto f = inner.get_future();
  ASSERT_EQ(f.wait_for(10s), std::future_status::ready);
  EXPECT_EQ(f.get(), ErrorCode::failed_precondition);
}

TEST(HttpClient, StartFromACallbackWorks) {
  MockHttpServer server([](const MockRequest&) { return MockResponse::json(200, "{}"); });
  HttpClient client;
  Collector second;
  HttpCallbacks cb;
  cb.on_complete = [&](const Status&, const HttpStats&) {
    client.start(get(server.url("/2")), second.callbacks());
  };
  client.start(get(server.url("/1")), cb);
  ASSERT_TRUE(second.wait_done());
  EXPECT_TRUE(second.result.ok());
  EXPECT_EQ(server.request_count(), 2u);
}

TEST(HttpClient, DestructorCancelsRunningCalls) {
  MockHttpServer server;
  server.enqueue(MockResponse::sse_stream().sse("a").stall());
  Collector c;
  {
    HttpClient client;
    client.start(get(server.url("/s")), c.callbacks());
    ASSERT_TRUE(c.wait_body("data: a"));
  }
  ASSERT_TRUE(c.is_done());
  EXPECT_EQ(c.result.error().code, ErrorCode::cancelled);
}

// libcurl reads the proxy settings from the environment for each transfer.
class ProxyEnv : public ::testing::Test {
 protected:
  void TearDown() override {
    for (auto v : {"http_proxy", "https_proxy", "HTTPS_PROXY", "no_proxy", "NO_PROXY", "all_proxy",
                   "ALL_PROXY"})
      unsetenv(v);
  }
};

TEST_F(ProxyEnv, HttpProxyFromEnvironment) {
  MockHttpServer proxy;
  proxy.enqueue(MockResponse::json(200, R"({"via":"proxy"})"));
  setenv("http_proxy", proxy.url("").c_str(), 1);
  HttpClient client;
  auto r = client.fetch(get("http://upstream.invalid/v1/models"));
  ASSERT_TRUE(r.ok()) << r.error().message;
  EXPECT_EQ(r->body, R"({"via":"proxy"})");
  auto reqs = proxy.requests();
  ASSERT_EQ(reqs.size(), 1u);
  EXPECT_EQ(reqs[0].target,
            "http://upstream.invalid/v1/models");  // absolute form: it went through the proxy
}

TEST_F(ProxyEnv, HttpsProxyTunnelsWithConnect) {
  MockHttpServer proxy;
  proxy.enqueue(MockResponse(403).body("no"));
  setenv("HTTPS_PROXY", proxy.url("").c_str(), 1);
  HttpClient client;
  HttpRequest req = get("https://api.upstream.invalid/v1/messages");
  req.retry.max_attempts = 1;
  req.headers.add("x-api-key", "sk-ant-SECRET-VALUE");
  auto r = client.fetch(req);
  ASSERT_FALSE(r.ok());
  auto reqs = proxy.requests();
  ASSERT_EQ(reqs.size(), 1u);
  EXPECT_EQ(reqs[0].method, "CONNECT");
  EXPECT_EQ(reqs[0].target, "api.upstream.invalid:443");
  EXPECT_FALSE(
      reqs[0].header("x-api-key").has_value());  // the key is inside the tunnel, not for the proxy
  EXPECT_EQ(r.error().message.find("SECRET"), std::string::npos);
}

TEST_F(ProxyEnv, NoProxyBypassesTheProxy) {
  MockHttpServer proxy;
  MockHttpServer direct;
  direct.enqueue(MockResponse::json(200, R"({"via":"direct"})"));
  setenv("http_proxy", proxy.url("").c_str(), 1);
  setenv("NO_PROXY", "127.0.0.1,localhost", 1);
  HttpClient client;
  auto r = client.fetch(get(direct.url("/x")));
  ASSERT_TRUE(r.ok()) << r.error().message;
  EXPECT_EQ(r->body, R"({"via":"direct"})");
  EXPECT_EQ(proxy.request_count(), 0u);
}
