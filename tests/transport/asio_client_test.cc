// AsioHttpClient, the gateway's upstream client, against the mock server: a
// call started with a gateway worker's plain io_context executor runs on that
// io_context's thread (with a strand of its own, or, with one_thread_contexts,
// on the executor itself), and a pooled connection the server closed right
// after its answer costs a retry on a fresh connection, not an error.
#include <gtest/gtest.h>

#include <boost/asio/executor_work_guard.hpp>
#include <boost/asio/io_context.hpp>
#include <boost/asio/post.hpp>
#include <thread>

#include "collector.h"
#include "mock_http_server.h"
#include "toolwire/transport/asio_client.h"

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
