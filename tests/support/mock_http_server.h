// tests/support/mock_http_server.h — a scripted HTTP/1.1 server for tests.
//
// Binds 127.0.0.1 on an ephemeral port (port 0) and serves each request with
// the next scripted MockResponse (FIFO), else with the handler, else 404.
// One thread per connection (keep-alive honoured), so responses can take
// their time: delays, chunked/SSE streaming piece by piece, holds that wait
// for the test, a connection reset (RST) or a stall mid-stream. See README.md.
//
//   toolwire::testing::MockHttpServer server;
//   server.enqueue(MockResponse(429).header("retry-after", "1").body("{}"));
//   server.enqueue(MockResponse::sse_stream()
//                      .sse(R"({"delta":"Hel"})")
//                      .sse(R"({"delta":"lo"})", "", std::chrono::milliseconds(50))
//                      .hold()                       // wait for server.release()
//                      .reset());                    // then RST the connection
//   client.fetch(get(server.url("/v1/chat")));
//   EXPECT_EQ(server.request_count(), 2u);
#pragma once

#include <chrono>
#include <condition_variable>
#include <cstdint>
#include <deque>
#include <functional>
#include <mutex>
#include <optional>
#include <string>
#include <string_view>
#include <thread>
#include <utility>
#include <vector>

namespace toolwire::testing {

using std::chrono::milliseconds;

struct MockRequest {
  std::string method;
  std::string target;   // as sent: "/v1/x", "http://host/x" (proxy form), "host:443" (CONNECT)
  std::string version;  // "HTTP/1.1"
  std::vector<std::pair<std::string, std::string>> headers;
  std::string body;
  int connection = 0;  // 1-based number of the TCP connection it arrived on

  // First value of a header, case-insensitive.
  std::optional<std::string> header(std::string_view name) const;
};

class MockResponse {
 public:
  enum class Step { data, chunk, hold, reset, stall, close };

  explicit MockResponse(int status = 200, std::string reason = "");

  // A JSON body with content-type application/json and content-length.
  static MockResponse json(int status, std::string body);
  // 200, content-type text/event-stream, chunked; add events with sse().
  static MockResponse sse_stream(int status = 200);
  // Writes nothing and resets the connection at once.
  static MockResponse reset_now();
  // Writes `bytes` exactly as given (no head is generated), then the steps.
  static MockResponse raw(std::string bytes);

  MockResponse& header(std::string name, std::string value);
  // A content-length body sent in one piece with the head.
  MockResponse& body(std::string body);
  // Wait before sending the head.
  MockResponse& delay(milliseconds d);
  // One chunk of a chunked body, written after `after` (the response becomes chunked).
  MockResponse& chunk(std::string data, milliseconds after = milliseconds(0));
  // An SSE event as one chunk: "event: E\n" (if E given) "data: D\n\n".
  MockResponse& sse(std::string_view data, std::string_view event = "",
                    milliseconds after = milliseconds(0));
  // Bytes written as they are (after the head), after `after`.
  MockResponse& write(std::string bytes, milliseconds after = milliseconds(0));
  // Pause here until MockHttpServer::release() (or stop()).
  MockResponse& hold();
  // End the connection abruptly with a TCP RST (SO_LINGER 0 + close), right here.
  MockResponse& reset();
  // Send nothing more and keep the connection open until release()/stop(), then close it.
  MockResponse& stall();
  // Close the connection (FIN) right here, e.g. to cut a body short.
  MockResponse& close();
  // Connection: close, and the server closes after the response.
  MockResponse& no_keep_alive();

  int status() const { return status_; }

 private:
  friend class MockHttpServer;
  struct Action {
    Step step;
    std::string data;
    milliseconds after{0};
  };
  int status_;
  std::string reason_;
  std::vector<std::pair<std::string, std::string>> headers_;
  std::string body_;
  bool has_body_ = false;
  bool chunked_ = false;
  bool raw_ = false;
  bool keep_alive_ = true;
  milliseconds head_delay_{0};
  std::string raw_head_;
  std::vector<Action> actions_;
};

class MockHttpServer {
 public:
  using Handler = std::function<MockResponse(const MockRequest&)>;

  MockHttpServer();
  explicit MockHttpServer(Handler handler);
  ~MockHttpServer();
  MockHttpServer(const MockHttpServer&) = delete;
  MockHttpServer& operator=(const MockHttpServer&) = delete;

  uint16_t port() const { return port_; }
  // "http://127.0.0.1:<port>" + path.
  std::string url(std::string_view path = "/") const;

  // Responses served in order, one per request, before the handler is asked.
  void enqueue(MockResponse response);
  // Serves requests when the queue is empty. Called on connection threads:
  // it must be thread-safe.
  void set_handler(Handler handler);

  std::vector<MockRequest> requests() const;
  size_t request_count() const;
  size_t connection_count() const;  // TCP connections accepted so far
  size_t open_connections() const;  // accepted and not yet closed
  // Blocks until `n` requests arrived; false on timeout.
  bool wait_for_requests(size_t n, milliseconds timeout = milliseconds(5000)) const;
  // Blocks until every connection is closed (by either side); false on timeout.
  bool wait_for_idle(milliseconds timeout = milliseconds(5000)) const;

  // Opens every hold()/stall() gate, now and from now on.
  void release();
  // Closes the listener and every connection; joins all threads. Idempotent.
  void stop();

 private:
  void accept_loop();
  void serve(int fd, int conn_no);
  MockResponse next_response(const MockRequest& req);
  // Runs the script; false when the connection must be closed afterwards.
  bool send_response(int fd, const MockResponse& r);
  // Sleeps unless stopping; false when stopping.
  bool pause(milliseconds d);
  bool wait_gate();

  int listen_fd_ = -1;
  uint16_t port_ = 0;
  std::thread acceptor_;

  mutable std::mutex mu_;
  mutable std::condition_variable cv_;
  bool stopping_ = false;
  bool released_ = false;
  std::deque<MockResponse> queue_;
  Handler handler_;
  std::vector<MockRequest> requests_;
  size_t connections_ = 0;
  size_t open_ = 0;
  std::vector<int> conn_fds_;
  std::vector<std::thread> workers_;
};

}  // namespace toolwire::testing
