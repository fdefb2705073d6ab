// One client connection: reads HTTP/1.1 requests (keep-alive, pipelined),
// answers them in order through Exchanges, enforces the size limits and the
// header/body/idle deadlines, and notices a client that goes away while its
// answer is still being produced.
//
// Everything runs on the connection's worker thread. While a request is answered
// the next one is already being read: that is how pipelined requests queue
// up (bounded by Limits::max_pipelined) and how a disconnect is seen at once
// (the read fails), which cancels the upstream call behind the answer. After
// a request that closes the connection (`Connection: close`, HTTP/1.0) no
// further request is read, but the socket is still watched while the answer
// is produced (watch_gone), so a client that leaves is noticed all the same.
//
// Output: queued, written in gathered writes. Limits::max_queued_bytes is the
// routes' flow-control mark (Exchange::on_drained), and a client whose socket
// takes none of the pending output within Limits::write_timeout is cut.
#pragma once

#include <boost/asio/io_context.hpp>
#include <boost/asio/ip/tcp.hpp>
#include <boost/asio/steady_timer.hpp>
#include <boost/asio/strand.hpp>
#include <boost/beast/core/flat_buffer.hpp>
#include <boost/beast/http/parser.hpp>
#include <deque>
#include <memory>
#include <optional>
#include <string>

#include "gateway/http/append_body.h"
#include "gateway/http/exchange.h"
#include "gateway/http/stream.h"
#include "toolwire/gateway/gateway.h"

namespace toolwire::gateway::http2 {
class Connection;
}

namespace toolwire::gateway::http {

// A request that failed before it reached a route (too big, too slow,
// malformed): the router writes the error in the dialect its path implies.
using ProtocolErrorWriter =
    std::function<void(Exchange&, int status, std::string_view path, std::string_view message)>;

struct SessionContext {
  Limits limits;
  Handler handler;
  ProtocolErrorWriter protocol_error;
  std::function<void()> on_end;          // the session is gone (connection count)
  std::function<void()> on_slow_client;  // cut at the write timeout (a metric)
};

// The read buffer as Beast's header read sees it: every byte committed while
// a header is read is scanned, so that an obs-fold (a header line continued
// on the next line by leading whitespace, RFC 9112 section 5.2) is refused
// instead of silently unfolded; proxies disagree on how to unfold, which is
// how requests get smuggled past them.
class HeaderScanBuffer {
 public:
  using const_buffers_type = boost::beast::flat_buffer::const_buffers_type;
  using mutable_buffers_type = boost::beast::flat_buffer::mutable_buffers_type;

  explicit HeaderScanBuffer(boost::beast::flat_buffer& b) : b_(&b) {}
  // A new header starts at the buffer's first byte; the bytes already there
  // are scanned now.
  void begin();
  bool saw_obs_fold() const { return obs_fold_; }

  size_t size() const { return b_->size(); }
  size_t max_size() const { return b_->max_size(); }
  size_t capacity() const { return b_->capacity(); }
  const_buffers_type data() const { return b_->data(); }
  mutable_buffers_type prepare(size_t n) { return b_->prepare(n); }
  void commit(size_t n);
  void consume(size_t n) { b_->consume(n); }

 private:
  void scan(const char* p, size_t n);

  boost::beast::flat_buffer* b_;
  bool in_header_ = false;
  bool obs_fold_ = false;
  unsigned state_ = 0;  // how much of "\r\n" (then "\r\n" again: end) was just seen
};

class Session : public std::enable_shared_from_this<Session> {
 public:
  static constexpr size_t kReadChunk = 8 * 1024;  // the read buffer's first room
  // A TLS stream's handshake runs first, within Limits::header_timeout.
  Session(Stream stream, std::shared_ptr<const SessionContext> ctx);
  ~Session();

  void start();
  // Graceful: stop reading new requests; close once the current answer ends.
  void drain();
  // Now: close the socket; the current exchange sees client_gone().
  void close();

  // The connection's worker: everything of this session runs there.
  Executor executor() { return stream_.get_executor(); }

  // Exchange side (on the connection's thread).
  // Gives the connection to another protocol (a WebSocket upgrade): the
  // session ends without closing the socket. Empty when the connection is
  // not at a clean boundary (pipelined requests, bytes read ahead, output
  // not yet written).
  std::optional<Stream> take_socket();
  // Bytes to write, in order: they go out once the handler running now
  // returns (HandlerFlush), what it queues together.
  void queue(std::string bytes);
  void flush_now();
  void exchange_ended(bool keep_alive);
  size_t queued_bytes() const { return out_bytes_; }
  size_t max_queued_bytes() const { return ctx_->limits.max_queued_bytes; }
  // A streamed answer's producer that ignores flow control (it cannot pause:
  // MCP notifications, keep-alives) may queue up to this much; past it the
  // client is cut as a slow client.
  size_t hard_queue_limit() const { return 16 * ctx_->limits.max_queued_bytes; }
  // Closes the connection as one that does not take its output (a metric).
  void cut_slow_client();

 private:
  enum class Deadline { none, handshake, idle, header, body };

  void handshake();
  bool http2_preface_waiting();
  void start_http2();
  void read_next();
  void wait_for_bytes();
  void read_header();
  void on_header(boost::system::error_code ec);
  void read_body();
  void on_request();
  void on_read_error(boost::system::error_code ec);
  void arm(Deadline d);
  void set_timer(Clock::time_point at);
  void dispatch();
  void gather(std::vector<boost::asio::const_buffer>& bufs) const;
  void write_some();
  void on_written(boost::system::error_code ec, size_t n);
  void arm_write_deadline();
  void watch_gone();
  void on_watch();
  void shutdown_now();
  void fail_request(int status, std::string_view message, std::string target);
  std::string current_target() const;

  Stream stream_;
  std::shared_ptr<const SessionContext> ctx_;
  boost::beast::flat_buffer buffer_;
  HeaderScanBuffer header_buffer_{buffer_};
  std::optional<boost::beast::http::request_parser<AppendStringBody>> parser_;
  Timer timer_;
  Timer write_timer_;  // the write deadline (lazy: see arm_write_deadline)
  bool write_timer_armed_ = false;
  Clock::time_point write_progress_{};  // a write began or took bytes
  Deadline deadline_ = Deadline::none;
  Clock::time_point due_{};       // when deadline_ runs out
  bool timer_armed_ = false;      // timer_ has a wait pending...
  Clock::time_point timer_at_{};  // ...that fires then
  uint64_t timer_gen_ = 0;        // the pending wait's; older ones do nothing
  bool timed_out_ = false;

  std::shared_ptr<http2::Connection> h2_;  // the connection speaks HTTP/2
  bool first_request_ = true;

  std::deque<Request> pending_;
  std::shared_ptr<Exchange> current_;
  bool reading_ = false;
  bool read_closed_ = false;  // no more requests will be read
  bool draining_ = false;
  bool closing_ = false;  // close once the output is written
  bool closed_ = false;
  bool watching_ = false;  // watch_gone()'s wait is in flight
  size_t discarded_ = 0;   // bytes sent after a closing request, dropped

  std::deque<std::string> out_;
  size_t out_bytes_ = 0;
  size_t out_front_done_ = 0;   // bytes of out_.front() already written
  bool writing_ = false;        // a write of out_ is in flight
  bool flush_pending_ = false;  // a flush is posted, or due at the handler's end
};

}  // namespace toolwire::gateway::http
