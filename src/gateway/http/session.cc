#include "gateway/http/session.h"

#include <sys/socket.h>
#include <algorithm>
#include <boost/asio/post.hpp>
#include <boost/asio/write.hpp>
#include <boost/beast/http/error.hpp>
#include <boost/beast/http/read.hpp>
#include <cerrno>
#include <cstring>
#include <utility>

#include "gateway/http/handler_flush.h"
#include "gateway/http2/connection.h"
#include "gateway/http2/upgrade.h"

namespace toolwire::gateway::http {

namespace asio = boost::asio;
namespace beast = boost::beast;
namespace bhttp = boost::beast::http;
using boost::system::error_code;

// ---- obs-fold scan ---------------------------------------------------------

void HeaderScanBuffer::begin() {
  in_header_ = true;
  obs_fold_ = false;
  state_ = 0;
  auto d = b_->cdata();
  scan(static_cast<const char*>(d.data()), d.size());
}

void HeaderScanBuffer::commit(size_t n) {
  size_t before = b_->size();
  b_->commit(n);
  if (!in_header_) return;
  auto d = b_->cdata();
  scan(static_cast<const char*>(d.data()) + before, b_->size() - before);
}

// state_: 0 inside a line, 1 after CR, 2 after CRLF (a line ended), 3 after
// CRLF CR. A line that starts with SP or HTAB is a folded continuation;
// CRLF CRLF ends the header (what follows is body or the next request).
void HeaderScanBuffer::scan(const char* p, size_t n) {
  const char* const end = p + n;
  while (p < end && in_header_) {
    if (state_ == 0) {
      // Inside a line only a CR can change the state: skip to it.
      const void* cr = std::memchr(p, '\r', static_cast<size_t>(end - p));
      if (cr == nullptr) return;
      p = static_cast<const char*>(cr);
    }
    char c = *p++;
    switch (state_) {
      case 1:
        state_ = c == '\n' ? 2 : (c == '\r' ? 1 : 0);
        break;
      case 2:
        if (c == ' ' || c == '\t') obs_fold_ = true;
        state_ = c == '\r' ? 3 : 0;
        break;
      case 3:
        if (c == '\n') in_header_ = false;
        state_ = c == '\r' ? 1 : 0;
        break;
      default:
        state_ = c == '\r' ? 1 : 0;
    }
  }
}

Session::Session(Stream stream, std::shared_ptr<const SessionContext> ctx)
    : stream_(std::move(stream)),
      ctx_(std::move(ctx)),
      timer_(stream_.get_executor()),
      write_timer_(stream_.get_executor()) {}

Session::~Session() {
  if (!closed_ && ctx_->on_end) ctx_->on_end();
}

void Session::start() {
  error_code ignored;
  stream_.socket().set_option(asio::ip::tcp::no_delay(true), ignored);
  // Beast reads max(512, free capacity) bytes at a time: without room a
  // 3 KB request took six reads, each its own parse round.
  buffer_.reserve(kReadChunk);
  if (stream_.is_tls()) return handshake();
  // Plain TCP: a request's bytes are read (read_header, read_body) and its
  // answer written (flush_now) at once where the socket allows, which needs
  // reads and writes that return would_block rather than wait.
  stream_.socket().non_blocking(true, ignored);
  read_next();
}

// A handshake that fails (not TLS, a protocol it refuses, a certificate the
// client rejects) or does not finish in time just closes the connection:
// there is no channel to answer on.
void Session::handshake() {
  arm(Deadline::handshake);
  stream_.async_handshake([self = shared_from_this()](error_code ec) {
    if (self->closed_) return;
    self->arm(Deadline::none);
    if (ec || self->timed_out_) return self->close();
    const unsigned char* alpn = nullptr;
    unsigned len = 0;
    SSL_get0_alpn_selected(self->stream_.tls().native_handle(), &alpn, &len);
    if (len == 2 && std::memcmp(alpn, "h2", 2) == 0) return self->start_http2();
    self->read_next();
  });
}

// h2c with prior knowledge: the first bytes of the connection are HTTP/2's
// preface ("PRI * HTTP/2.0..."), which is no HTTP/1.1 request the gateway
// serves. Peeked, so that the HTTP/2 side reads the preface itself.
bool Session::http2_preface_waiting() {
  if (!first_request_ || stream_.is_tls() || buffer_.size() > 0) return false;
  char head[3];
  ssize_t n = ::recv(stream_.socket().native_handle(), head, sizeof head, MSG_PEEK | MSG_DONTWAIT);
  return n >= 2 && std::memcmp(head, "PRI", static_cast<size_t>(n)) == 0;
}

void Session::start_http2() {
  reading_ = false;
  read_closed_ = true;
  arm(Deadline::none);
  h2_ = std::make_shared<http2::Connection>(shared_from_this(), stream_, ctx_);
  auto data = buffer_.cdata();
  std::string preread(static_cast<const char*>(data.data()), data.size());
  buffer_.consume(buffer_.size());
  h2_->start(preread);
}

void Session::drain() {
  if (closed_) return;
  if (h2_) return h2_->drain();
  draining_ = true;
  read_closed_ = true;
  if (!current_ && pending_.empty()) {
    if (!writing_ && out_.empty()) return close();
    closing_ = true;
  }
  watch_gone();
}

void Session::close() {
  if (closed_) return;
  closed_ = true;
  if (auto h2 = std::move(h2_)) h2->close();  // its exchanges see client_gone()
  timer_.cancel();
  write_timer_.cancel();
  error_code ignored;
  stream_.socket().shutdown(asio::ip::tcp::socket::shutdown_both, ignored);
  stream_.socket().close(ignored);
  pending_.clear();
  out_.clear();
  out_bytes_ = 0;
  out_front_done_ = 0;
  if (auto ex = std::move(current_)) ex->client_gone();
  if (ctx_->on_end) ctx_->on_end();
}

// ---- reading ---------------------------------------------------------------

void Session::read_next() {
  if (reading_ || read_closed_ || closed_) return;
  if (pending_.size() >= ctx_->limits.max_pipelined) return;  // resumed by dispatch()
  reading_ = true;
  wait_for_bytes();
}

// Waits for the first byte of the next request without a header deadline:
// an idle keep-alive connection (or one whose answer is still streaming)
// may be quiet for long. A disconnect also wakes this wait.
void Session::wait_for_bytes() {
  if (buffer_.size() > 0) return read_header();
  arm(!current_ && pending_.empty() ? Deadline::idle : Deadline::none);
  if (stream_.is_tls()) {
    // Readiness of the TCP socket says nothing of the bytes TLS already
    // decrypted and holds: the first bytes are read instead.
    stream_.async_read_some(buffer_.prepare(kReadChunk),
                            [self = shared_from_this()](error_code ec, size_t n) {
                              if (self->closed_) return;
                              self->buffer_.commit(n);
                              if (ec) return self->on_read_error(ec);
                              self->read_header();
                            });
    return;
  }
  stream_.socket().async_wait(asio::ip::tcp::socket::wait_read,
                              [self = shared_from_this()](error_code ec) {
                                if (self->closed_) return;
                                if (ec) return self->on_read_error(ec);
                                if (self->http2_preface_waiting()) return self->start_http2();
                                self->read_header();
                              });
}

void Session::read_header() {
  parser_.emplace();
  parser_->header_limit(static_cast<std::uint32_t>(ctx_->limits.max_header_bytes));
  parser_->body_limit(ctx_->limits.max_body_bytes);
  arm(Deadline::header);
  header_buffer_.begin();
  // Plain TCP, woken because bytes are there: the header is usually whole
  // in them. Read and parsed now, it costs no asynchronous round (Asio posts
  // the completion of a read it could do at once: a scheduler pass and an
  // epoll_wait more per request). What is missing is waited for below.
  if (!stream_.is_tls()) {
    error_code ec;
    bhttp::read_header(stream_.socket(), header_buffer_, *parser_, ec);
    if (ec != asio::error::would_block) return on_header(ec);
  }
  bhttp::async_read_header(stream_, header_buffer_, *parser_,
                           [self = shared_from_this()](error_code ec, size_t) {
                             if (self->closed_) return;
                             self->on_header(ec);
                           });
}

void Session::on_header(error_code ec) {
  if (ec) return on_read_error(ec);
  if (header_buffer_.saw_obs_fold()) {
    reading_ = false;
    arm(Deadline::none);
    return fail_request(400,
                        "malformed HTTP request: a header line continued on the next "
                        "line (obs-fold) is not accepted",
                        current_target());
  }
  if (parser_->is_done()) return on_request();
  read_body();
}

void Session::read_body() {
  arm(Deadline::body);
  // As read_header(): the body often came with the header. One read only,
  // not a loop to the body's end: a large upload arriving as fast as it is
  // read would hold the worker from its other connections.
  if (!stream_.is_tls()) {
    error_code ec;
    bhttp::read_some(stream_.socket(), buffer_, *parser_, ec);
    if (ec && ec != asio::error::would_block) return on_read_error(ec);
    if (!ec && parser_->is_done()) return on_request();
  }
  bhttp::async_read(stream_, buffer_, *parser_, [self = shared_from_this()](error_code ec, size_t) {
    if (self->closed_) return;
    if (ec) return self->on_read_error(ec);
    self->on_request();
  });
}

void Session::on_request() {
  reading_ = false;
  bool first = std::exchange(first_request_, false);
  arm(Deadline::none);
  auto msg = parser_->release();
  parser_.reset();
  Request r;
  r.method = msg.method();
  r.method_text = std::string(msg.method_string());
  r.target = std::string(msg.target());
  r.version = msg.version();
  r.keep_alive = msg.keep_alive();
  r.body = std::move(msg.body());
  r.headers = std::move(static_cast<bhttp::fields&>(msg.base()));
  r.received = Clock::now();
  // h2c by Upgrade, on a connection's first request only (nothing queued
  // behind it to answer in HTTP/1.1 order).
  if (first && !stream_.is_tls() && !draining_ && pending_.empty() && !current_)
    if (auto settings = http2::h2c_upgrade_settings(r)) {
      read_closed_ = true;
      h2_ = std::make_shared<http2::Connection>(shared_from_this(), stream_, ctx_);
      auto data = buffer_.cdata();
      std::string preread(static_cast<const char*>(data.data()), data.size());
      buffer_.consume(buffer_.size());
      return h2_->start_upgraded(preread, *settings, std::move(r));
    }
  if (!r.keep_alive || draining_) read_closed_ = true;
  pending_.push_back(std::move(r));
  if (!current_) dispatch();
  read_next();
  watch_gone();
}

// After a request that closes the connection nothing more is read, yet the
// client may leave while its answer is produced (an upstream still
// thinking): that must cancel the upstream at once, not at its timeout. So
// while an exchange is in flight the socket is watched for readability;
// a peek then tells a disconnect (0 bytes, an error) from bytes the client
// sent anyway, which are dropped (up to kMaxDiscard; past that the watch
// stops, and a disconnect is seen at the next write).
void Session::watch_gone() {
  if (closed_ || watching_ || reading_ || !read_closed_ || !current_) return;
  watching_ = true;
  stream_.socket().async_wait(asio::ip::tcp::socket::wait_read,
                              [self = shared_from_this()](error_code ec) {
                                self->watching_ = false;
                                if (self->closed_) return;
                                if (ec == asio::error::operation_aborted) return self->watch_gone();
                                if (ec) return self->close();
                                self->on_watch();
                              });
}

void Session::on_watch() {
  constexpr size_t kMaxDiscard = 64 * 1024;
  char scratch[4096];
  int fd = stream_.socket().native_handle();
  ssize_t n = ::recv(fd, scratch, sizeof scratch, MSG_PEEK | MSG_DONTWAIT);
  if (n == 0) return close();  // the client is gone (or half-closed: the same, see on_read_error)
  if (n < 0) {
    if (errno == EAGAIN || errno == EWOULDBLOCK || errno == EINTR) return watch_gone();
    return close();
  }
  n = ::recv(fd, scratch, static_cast<size_t>(n), MSG_DONTWAIT);
  if (n > 0) discarded_ += static_cast<size_t>(n);
  if (discarded_ > kMaxDiscard) return;
  watch_gone();
}

void Session::on_read_error(error_code ec) {
  reading_ = false;
  bool timed_out = timed_out_;
  timed_out_ = false;
  arm(Deadline::none);
  std::string target = current_target();
  if (timed_out) {
    // A slow client: the request did not arrive in time. While an answer
    // streams, the connection is simply closed (the answer is cut).
    if (current_) return close();
    return fail_request(408, "the request did not arrive within the server's read timeout", target);
  }
  if (ec == bhttp::error::header_limit)
    return fail_request(
        431, "request headers exceed " + std::to_string(ctx_->limits.max_header_bytes) + " bytes",
        target);
  if (ec == bhttp::error::body_limit)
    return fail_request(
        413, "request body exceeds " + std::to_string(ctx_->limits.max_body_bytes) + " bytes",
        target);
  // A TLS stream that breaks (a bad record, a close without close_notify)
  // has no channel left for an answer: the client is gone too.
  if (ec == bhttp::error::end_of_stream || ec == asio::error::eof ||
      ec.category() == asio::error::get_ssl_category() ||
      ec == asio::ssl::error::stream_truncated || ec == asio::error::connection_reset ||
      ec == asio::error::operation_aborted || ec == bhttp::error::partial_message ||
      ec == asio::error::broken_pipe) {
    // The client went away (or half-closed: treated the same, since no
    // client this serves sends a request and then shuts its side).
    read_closed_ = true;
    if (current_) return close();
    if (pending_.empty() && !writing_ && out_.empty()) return close();
    closing_ = true;
    return;
  }
  fail_request(400, "malformed HTTP request: " + ec.message(), target);
}

// The target of the request being read, so that its error takes the dialect
// of its path: the parser's once it has read the request line; else the one
// on the buffered request line (Beast parses a header only once all of it is
// there, so a header that is too big or too slow leaves it unparsed).
std::string Session::current_target() const {
  if (parser_ && !parser_->get().target().empty()) return std::string(parser_->get().target());
  auto data = buffer_.cdata();
  std::string_view line(static_cast<const char*>(data.data()), std::min<size_t>(data.size(), 8192));
  line = line.substr(0, line.find("\r\n"));
  size_t sp = line.find(' ');
  if (sp == std::string_view::npos) return {};
  size_t end = line.find(' ', sp + 1);  // the target is whole only once its space arrived
  if (end == std::string_view::npos) return {};
  return std::string(line.substr(sp + 1, end - sp - 1));
}

// A request that cannot be read is answered in order, then the connection
// closes: what follows it on the wire cannot be trusted.
void Session::fail_request(int status, std::string_view message, std::string target) {
  read_closed_ = true;
  Request r;
  r.target = std::move(target);
  r.keep_alive = false;
  r.method = bhttp::verb::unknown;
  r.method_text = "!";
  r.body = std::to_string(status) + " " + std::string(message);  // read by dispatch()
  parser_.reset();
  pending_.push_back(std::move(r));
  if (!current_) dispatch();
}

// Deadlines are kept lazily: arm() records which one runs and when it is
// due, and touches the Asio timer only when none is pending or the pending
// one would fire too late. The timer is never set further than the shortest
// limit ahead, so a connection that goes header → body → idle → header at
// every request re-arms it once per that limit, not several times per
// request (each re-arm was a timerfd_settime, each cancel a handler run).
void Session::arm(Deadline d) {
  deadline_ = d;
  if (d == Deadline::none) return;  // a pending wait finds nothing to do
  const auto& l = ctx_->limits;
  const auto now = Clock::now();
  due_ = now + (d == Deadline::idle   ? l.keepalive_idle
                : d == Deadline::body ? l.body_timeout
                                      : l.header_timeout);  // header, handshake
  if (timer_armed_ && timer_at_ <= due_) return;            // fires first, then re-arms
  set_timer(std::min(due_, now + std::min({l.header_timeout, l.body_timeout, l.keepalive_idle})));
}

void Session::set_timer(Clock::time_point at) {
  timer_armed_ = true;
  timer_at_ = at;
  timer_.expires_at(at);  // cancels a pending wait: its handler sees a newer generation
  timer_.async_wait([self = shared_from_this(), gen = ++timer_gen_](error_code ec) {
    if (gen != self->timer_gen_) return;
    self->timer_armed_ = false;
    if (ec || self->closed_ || self->deadline_ == Deadline::none) return;
    const auto now = Clock::now();
    if (now < self->due_) {
      const auto& l = self->ctx_->limits;
      return self->set_timer(std::min(
          self->due_, now + std::min({l.header_timeout, l.body_timeout, l.keepalive_idle})));
    }
    if (self->deadline_ == Deadline::idle) return self->close();  // quiet keep-alive connection
    self->timed_out_ = true;
    error_code ignored;
    self->stream_.socket().cancel(ignored);  // the read completes with operation_aborted
  });
}

// ---- answering -------------------------------------------------------------

void Session::dispatch() {
  if (closed_ || current_ || pending_.empty()) return;
  Request r = std::move(pending_.front());
  pending_.pop_front();
  if (deadline_ == Deadline::idle) arm(Deadline::none);
  // An answer begun while draining says `connection: close`.
  current_ = std::make_shared<Exchange>(shared_from_this(), r.version, r.keep_alive && !draining_);
  watch_gone();
  if (r.method_text == "!") {
    // A protocol error recorded by fail_request(): "STATUS message".
    int status = std::stoi(r.body.substr(0, 3));
    auto ex = current_;
    ctx_->protocol_error(*ex, status, r.path(), std::string_view(r.body).substr(4));
    if (!ex->ended()) ex->respond(status, "text/plain", r.body.substr(4));
    return;
  }
  auto ex = current_;
  ctx_->handler(std::move(ex), std::move(r));
}

void Session::exchange_ended(bool keep_alive) {
  current_.reset();
  // Draining: the connection closes once what was already read is answered,
  // not at the drain deadline.
  if (!keep_alive || (draining_ && pending_.empty())) {
    closing_ = true;
    read_closed_ = true;
  }
  if (closed_) return;
  if (closing_ && pending_.empty()) {
    if (!writing_ && out_.empty()) close();
    return;
  }
  if (!pending_.empty()) return dispatch();
  if (reading_ && deadline_ == Deadline::none && !parser_) arm(Deadline::idle);
  read_next();
}

std::optional<Stream> Session::take_socket() {
  if (closed_ || reading_ || watching_ || !pending_.empty() || buffer_.size() > 0 || writing_ ||
      !out_.empty())
    return std::nullopt;
  closed_ = true;
  read_closed_ = true;
  timer_.cancel();
  current_.reset();
  error_code ignored;
  if (!stream_.is_tls()) stream_.socket().non_blocking(false, ignored);  // as it was given
  std::optional<Stream> s(std::move(stream_));
  if (ctx_->on_end) ctx_->on_end();
  return s;
}

// Bytes queued while a handler runs go out together once it returns (one
// post), so the events decoded from one upstream read cost one write, not
// one each.
void Session::queue(std::string bytes) {
  if (closed_ || bytes.empty()) return;
  out_bytes_ += bytes.size();
  out_.push_back(std::move(bytes));
  if (writing_ || flush_pending_) return;
  // On a gateway worker the bytes go out once the handler running now
  // returns (HandlerFlush::run): what it queues goes out together, with no
  // scheduler pass for the flush. Elsewhere a posted flush does the same.
  if (HandlerFlush::active()) {
    flush_pending_ = true;
    HandlerFlush::add(shared_from_this());
    return;
  }
  flush_pending_ = true;
  asio::post(stream_.get_executor(), [self = shared_from_this()] { self->flush_now(); });
}

// The flush: what is queued goes out now, in one non-blocking gathered
// write, rather than by an asynchronous write whose completion Asio posts
// even when the socket took everything at once (a scheduler pass and an
// epoll_wait more per answer). What the socket does not take, or a TLS
// stream's bytes, go the asynchronous way.
void Session::flush_now() {
  flush_pending_ = false;
  if (closed_ || writing_ || out_.empty()) return;
  if (stream_.is_tls()) return write_some();
  std::vector<asio::const_buffer> bufs;
  gather(bufs);
  error_code ec;
  const size_t n = stream_.socket().write_some(bufs, ec);
  if (ec == asio::error::would_block || ec == asio::error::try_again) return write_some();
  on_written(ec, n);
}

// Everything queued, as buffers for one gathered write: a burst of stream
// events costs one system call. A write may take part of it; the rest goes
// in the next.
void Session::gather(std::vector<asio::const_buffer>& bufs) const {
  bufs.reserve(std::min<size_t>(out_.size(), 64));
  size_t skip = out_front_done_;
  for (const auto& s : out_) {
    bufs.emplace_back(s.data() + skip, s.size() - skip);
    skip = 0;
    if (bufs.size() == 64) break;  // writev's share per call (IOV_MAX is larger)
  }
}

void Session::write_some() {
  std::vector<asio::const_buffer> bufs;
  gather(bufs);
  writing_ = true;
  write_progress_ = Clock::now();
  arm_write_deadline();
  stream_.async_write_some(
      bufs, [self = shared_from_this()](error_code ec, size_t n) { self->on_written(ec, n); });
}

void Session::on_written(error_code ec, size_t n) {
  if (closed_) return;
  writing_ = false;
  out_bytes_ -= n;
  n += out_front_done_;
  while (!out_.empty() && n >= out_.front().size()) {
    n -= out_.front().size();
    out_.pop_front();
  }
  out_front_done_ = n;
  if (ec) return close();  // the client is gone
  // Flow control: the route reads its upstream again once the queue is down
  // to half the mark.
  if (current_ && out_bytes_ <= ctx_->limits.max_queued_bytes / 2) {
    auto ex = current_;
    ex->drained();
    if (closed_) return;
  }
  if (!out_.empty()) {
    if (!writing_) write_some();
    return;
  }
  if (closing_ && !current_ && pending_.empty()) close();
}

// The write deadline: a write that takes no byte for Limits::write_timeout
// cuts the client (nginx's send_timeout). One timer for the connection,
// moved on lazily from the last progress rather than re-set per write.
void Session::arm_write_deadline() {
  if (write_timer_armed_) return;
  write_timer_armed_ = true;
  write_timer_.expires_at(write_progress_ + ctx_->limits.write_timeout);
  write_timer_.async_wait([self = shared_from_this()](error_code ec) {
    self->write_timer_armed_ = false;
    if (ec || self->closed_ || !self->writing_) return;
    auto due = self->write_progress_ + self->ctx_->limits.write_timeout;
    if (Clock::now() < due) return self->arm_write_deadline();
    self->cut_slow_client();  // the exchange sees client_gone(): its upstream is cancelled
  });
}

void Session::cut_slow_client() {
  if (closed_) return;
  if (ctx_->on_slow_client) ctx_->on_slow_client();
  close();
}

}  // namespace toolwire::gateway::http
