// AsioHttpClient, the gateway's upstream client, against the mock server: a
// call started with a gateway worker's plain io_context executor runs on that
// io_context's thread (with a strand of its own, or, with one_thread_contexts,
// on the executor itself), and a pooled connection the server closed right
// after its answer costs a retry on a fresh connection, not an error.
#include <gtest/gtest.h>

#include <boost/asio/executor_work_guard.hpp>
#include <boost/asio/io_context.hpp>
#include <boost/asio/post.hpp>
#include <future>
#include <thread>

#include "collector.h"
#include "mock_http_server.h"
#include "toolwire/transport/asio_client.h"
#include "toolwire/transport/timer_wheel.h"

using namespace tw_test;
using toolwire::testing::MockHttpServer;
using toolwire::testing::MockResponse;

namespace {

// One io_context run by one thread, as a gateway worker.
struct Worker {
  boost::asio::io_context ioc{1};
  boost::asio::executor_work_guard<boost::asio::io_context::executor_type> keep =
      boost::asio::make_work_guard(ioc);
  std::thread thread{[this] { ioc.run(); }};
  ~Worker() {
    keep.reset();
    ioc.stop();
    thread.join();
  }
};

// Starts `req` on `w`'s thread inside a StrandScope of its plain executor,
// as the gateway starts an upstream call from a connection's handler.
void start_on(Worker& w, AsioHttpClient& client, HttpRequest req, Collector& c) {
  boost::asio::post(w.ioc, [&w, &client, &c, req = std::move(req)]() mutable {
    StrandScope scope(w.ioc.get_executor());
    client.start(std::move(req), c.callbacks());
  });
}

}  // namespace

TEST(AsioHttpClient, ACallStartedOnAWorkersExecutorRunsOnThatWorker) {
  MockHttpServer server;
  server.enqueue(MockResponse::json(200, R"({"ok":true})"));
  Worker client_loop;  // the client's own io_context (worker 0)
  Worker other;        // the worker the call starts on
  AsioHttpClient client(client_loop.ioc);
  Collector c;
  start_on(other, client, get(server.url("/v1/models")), c);
  ASSERT_TRUE(c.wait_done());
  ASSERT_TRUE(c.result.ok()) << c.result.error().message;
  EXPECT_EQ(c.body, R"({"ok":true})");
  ASSERT_FALSE(c.callback_threads.empty());
  for (auto id : c.callback_threads) EXPECT_EQ(id, other.thread.get_id());
}

// one_thread_contexts (as `toolwire serve` sets it): no strand per call. The
// call still runs on the worker it started on, takes that worker's pooled
// connection, and is cancelled from another thread exactly once.
TEST(AsioHttpClient, WithOneThreadContextsACallRunsOnItsWorkersExecutor) {
  MockHttpServer server;
  server.enqueue(MockResponse::json(200, R"({"n":1})"));
  server.enqueue(MockResponse::json(200, R"({"n":2})"));
  Worker client_loop;
  Worker other;
  AsioHttpClient client(client_loop.ioc, AsioClientOptions{.one_thread_contexts = true});
  for (const char* want : {R"({"n":1})", R"({"n":2})"}) {
    Collector c;
    start_on(other, client, get(server.url("/v1/models")), c);
    ASSERT_TRUE(c.wait_done());
    ASSERT_TRUE(c.result.ok()) << c.result.error().message;
    EXPECT_EQ(c.body, want);
    ASSERT_FALSE(c.callback_threads.empty());
    for (auto id : c.callback_threads) EXPECT_EQ(id, other.thread.get_id());
  }
  EXPECT_EQ(client.idle_connections(), 1u);  // the second call reused the first's
  EXPECT_EQ(server.connection_count(), 1u);

  // The head goes out, the body waits for release(): the call is still open
  // when the cancel comes.
  server.enqueue(MockResponse::sse_stream().hold().sse("late"));
  Collector c;
  HttpCall call;
  std::mutex mu;
  boost::asio::post(other.ioc, [&] {
    StrandScope scope(other.ioc.get_executor());
    std::lock_guard lock(mu);
    call = client.start(get(server.url("/v1/models")), c.callbacks());
  });
  ASSERT_TRUE(server.wait_for_requests(3));
  {
    std::lock_guard lock(mu);
    call.cancel();  // from this thread, not the worker's
    call.cancel();
  }
  ASSERT_TRUE(c.wait_done());
  ASSERT_FALSE(c.result.ok());
  EXPECT_EQ(c.result.error().code, ErrorCode::cancelled);
  EXPECT_EQ(c.body, "");
  server.release();
}

TEST(AsioHttpClient, APooledConnectionTheServerClosedIsRetriedOnAFreshOne) {
  MockHttpServer server;
  // Each answer ends with the server closing the connection, without
  // `Connection: close`: the client pools it as a keep-alive connection.
  server.enqueue(MockResponse::json(200, R"({"n":1})").close());
  server.enqueue(MockResponse::json(200, R"({"n":2})").close());
  Worker w;
  AsioHttpClient client(w.ioc);
  for (const char* want : {R"({"n":1})", R"({"n":2})"}) {
    Collector c;
    HttpRequest req = get(server.url("/v1/models"));
    req.retry = fast_retries(1);  // no retry but the stale-connection one
    start_on(w, client, std::move(req), c);
    ASSERT_TRUE(c.wait_done());
    ASSERT_TRUE(c.result.ok()) << c.result.error().message;
    EXPECT_EQ(c.body, want);
  }
  EXPECT_EQ(server.requests().size(), 2u);
}

// With one_thread_contexts the call's deadlines are on its worker's timer
// wheel: an upstream that stalls after the head is cut at the idle timeout,
// one that never answers at the call's deadline, and every call leaves the
// wheel empty when it ends, answered or not.
TEST(AsioHttpClient, OnTheTimerWheelIdleTimeoutAndDeadlineCutAStalledUpstream) {
  MockHttpServer server;
  Worker client_loop;
  Worker other;
  AsioHttpClient client(client_loop.ioc, AsioClientOptions{.one_thread_contexts = true});
  auto wheel_size = [&] {
    std::promise<size_t> n;
    boost::asio::post(other.ioc,
                      [&] { n.set_value(toolwire::transport::TimerWheel::of(other.ioc).size()); });
    return n.get_future().get();
  };

  server.enqueue(MockResponse::json(200, R"({"ok":true})"));
  {
    Collector c;
    HttpRequest req = get(server.url("/v1/models"));
    req.deadline = std::chrono::seconds(30);
    start_on(other, client, std::move(req), c);
    ASSERT_TRUE(c.wait_done());
    ASSERT_TRUE(c.result.ok()) << c.result.error().message;
    EXPECT_EQ(wheel_size(), 0u);  // the deadline and the idle time, cancelled
  }

  // Runs `req` to its end: a deadline_exceeded whose message has `words`,
  // no sooner than `at_least`, and the wheel left empty.
  auto expect_cut = [&](HttpRequest req, Collector& c, std::string_view words,
                        std::chrono::milliseconds at_least) {
    const auto t0 = std::chrono::steady_clock::now();
    start_on(other, client, std::move(req), c);
    ASSERT_TRUE(c.wait_done());
    const auto took = std::chrono::steady_clock::now() - t0;
    ASSERT_FALSE(c.result.ok());
    EXPECT_EQ(c.result.error().code, ErrorCode::deadline_exceeded) << c.result.error().message;
    EXPECT_NE(c.result.error().message.find(words), std::string::npos) << c.result.error().message;
    EXPECT_GE(took, at_least);
    EXPECT_LT(took, std::chrono::milliseconds(4000));
    EXPECT_EQ(wheel_size(), 0u);
  };

  server.enqueue(MockResponse::sse_stream().sse("first").stall());
  {
    Collector c;
    HttpRequest req = get(server.url("/v1/models"));
    req.idle_timeout = std::chrono::milliseconds(150);
    expect_cut(std::move(req), c, "no byte for 150 ms", std::chrono::milliseconds(150));
    EXPECT_NE(c.body.find("first"), std::string::npos);
  }
  server.release();

  server.enqueue(MockResponse::json(200, "{}").delay(std::chrono::milliseconds(5000)));
  {
    Collector c;
    HttpRequest req = get(server.url("/v1/models"));
    req.deadline = std::chrono::milliseconds(200);
    expect_cut(std::move(req), c, "deadline of 200 ms", std::chrono::milliseconds(200));
  }
}
