// One request and its reply channel, as the routes see it.
//
// A Session (session.h) reads requests off a connection and hands each, in
// order, to the router with an Exchange. The route answers through the
// Exchange — a whole response, or a stream of chunks — from the connection's
// thread; work started elsewhere (a provider callback on the transport's
// thread) comes back with post(). Once the client is gone every write is a
// no-op and the close callback has run, so routes never need to check.
#pragma once

#include <boost/asio/any_io_executor.hpp>
#include <boost/beast/http/fields.hpp>
#include <boost/beast/http/verb.hpp>
#include <chrono>
#include <functional>
#include <memory>
#include <optional>
#include <string>
#include <string_view>
#include <utility>
#include <vector>

#include "gateway/http/stream.h"

namespace toolwire::gateway::http {

using Clock = std::chrono::steady_clock;
using Headers = std::vector<std::pair<std::string, std::string>>;

struct Request {
  boost::beast::http::verb method = boost::beast::http::verb::unknown;
  std::string method_text;
  std::string target;  // path and query as sent
  unsigned version = 11;
  bool keep_alive = true;
  boost::beast::http::fields headers;
  std::string body;
  Clock::time_point received{};  // when the whole request had arrived

  std::string_view path() const {
    std::string_view t = target;
    return t.substr(0, t.find('?'));
  }
  std::string_view header(std::string_view name) const {
    auto it = headers.find(boost::beast::string_view(name.data(), name.size()));
    if (it == headers.end()) return {};
    return {it->value().data(), it->value().size()};
  }
};

class Session;

// One HTTP/2 stream as an Exchange's output (src/gateway/http2/): the head
// and the body go out as frames, paced by the peer's flow-control window.
class StreamChannel {
 public:
  virtual ~StreamChannel() = default;
  virtual Executor executor() = 0;
  // `body` set: the whole answer; else a stream follows (write, finish).
  virtual void respond(int status, std::string_view content_type, const Headers& headers,
                       std::optional<std::string_view> body) = 0;
  virtual void write(std::string_view bytes) = 0;
  virtual void finish() = 0;
  virtual void reset() = 0;  // the stream is cut (RST_STREAM)
  virtual size_t queued_bytes() const = 0;
  virtual size_t max_queued_bytes() const = 0;
};

class Exchange : public std::enable_shared_from_this<Exchange> {
 public:
  Exchange(std::shared_ptr<Session> session, unsigned version, bool keep_alive);
  // A request on an HTTP/2 stream.
  explicit Exchange(std::shared_ptr<StreamChannel> stream);

  // A whole response with Content-Length. Ends the exchange.
  void respond(int status, std::string_view content_type, std::string_view body,
               const Headers& headers = {});
  // A streamed response: the head now (chunked on HTTP/1.1), then write()s,
  // then end_stream().
  void begin_stream(int status, std::string_view content_type, const Headers& headers = {});
  void write(std::string_view bytes);
  void end_stream();

  // Runs `fn` on the connection's thread, later. Any thread.
  void post(std::function<void()> fn);
  // Runs `fn` on the connection's thread: at once when called from it, else
  // later. Any thread.
  void dispatch(std::function<void()> fn);
  // True on the connection's worker thread.
  bool on_strand() const;
  boost::asio::any_io_executor executor() const;
  // The io_context of the connection's worker (run by that thread alone).
  boost::asio::io_context& io_context() const;

  // Ends the exchange without an answer and hands the connection over (a
  // protocol upgrade; the new owner writes the 101). On that thread. Empty
  // when the answer has begun or the session cannot give it up (see
  // Session::take_socket).
  std::optional<Stream> take_socket();

  // Called once, on the strand, when the client goes away before the
  // exchange ended (disconnect, shutdown deadline). Not called after end.
  void on_close(std::function<void()> fn) { on_close_ = std::move(fn); }

  // Flow control: called once, on the connection's thread, when the bytes queued for
  // the client are down to half of max_queued_bytes() (the route paused its
  // producer when queued_bytes() went over it). Dropped at the end of the
  // exchange and when the client goes.
  void on_drained(std::function<void()> fn) { on_drained_ = std::move(fn); }
  size_t max_queued_bytes() const;

  bool ended() const { return ended_; }
  bool closed() const { return closed_; }
  bool streaming() const { return streaming_; }
  // Bytes given to write()/respond() that the socket has not taken yet.
  size_t queued_bytes() const;
  // When the first byte of the response was queued (zero until then).
  Clock::time_point first_byte() const { return first_byte_; }

  // Session side.
  void client_gone();
  void drained();

 private:
  void cap_queue();
  void head(std::string& out, int status, std::string_view content_type, const Headers& headers,
            bool chunked, size_t content_length);

  Executor conn_executor() const;

  std::shared_ptr<Session> session_;       // HTTP/1.1
  std::shared_ptr<StreamChannel> stream_;  // or HTTP/2
  unsigned version_;
  bool keep_alive_;
  bool started_ = false;
  bool streaming_ = false;
  bool chunked_ = false;
  bool ended_ = false;
  bool closed_ = false;
  Clock::time_point first_byte_{};
  std::function<void()> on_close_;
  std::function<void()> on_drained_;
};

using Handler = std::function<void(std::shared_ptr<Exchange>, Request&&)>;

}  // namespace toolwire::gateway::http
