#include "gateway/http2/connection.h"

#include "gateway/http2/upgrade.h"

#include <boost/asio/post.hpp>
#include <boost/asio/write.hpp>

namespace toolwire::gateway::http2 {

namespace asio = boost::asio;
using boost::system::error_code;

// One stream's side of an Exchange. Holds the connection: an exchange a
// route still holds keeps it (closed, its writes dropped) alive.
class Connection::Channel : public http::StreamChannel {
 public:
  Channel(std::shared_ptr<Connection> c, int32_t id) : c_(std::move(c)), id_(id) {}
  http::Executor executor() override { return c_->owner_->executor(); }
  void respond(int status, std::string_view content_type, const http::Headers& headers,
               std::optional<std::string_view> body) override {
    if (c_->closed_) return;
    c_->ingress_.respond(id_, status, content_type, headers, body);
    c_->flush();
  }
  void write(std::string_view bytes) override {
    if (c_->closed_) return;
    c_->ingress_.write(id_, bytes);
    c_->flush();
  }
  void finish() override {
    if (c_->closed_) return;
    c_->ingress_.finish(id_);
    c_->flush();
  }
  void reset() override {
    if (c_->closed_) return;
    if (c_->ctx_->on_slow_client) c_->ctx_->on_slow_client();
    c_->ingress_.reset(id_);
    c_->flush();
  }
  size_t queued_bytes() const override { return c_->ingress_.queued(id_); }
  size_t max_queued_bytes() const override { return c_->ctx_->limits.max_queued_bytes; }

 private:
  std::shared_ptr<Connection> c_;
  int32_t id_;
};

namespace {

IngressLimits limits_of(const Limits& l) {
  IngressLimits i;
  i.max_header_bytes = l.max_header_bytes;
  i.max_body_bytes = l.max_body_bytes;
  return i;
}

}  // namespace

Connection::Connection(std::shared_ptr<http::Session> owner, http::Stream& stream,
                       std::shared_ptr<const http::SessionContext> ctx)
    : owner_(std::move(owner)),
      stream_(stream),
      ctx_(std::move(ctx)),
      ingress_(
          limits_of(ctx_->limits),
          [this](int32_t id, http::Request&& r, int status, std::string_view m) {
            on_request(id, std::move(r), status, m);
          },
          [this](int32_t id, bool cut) { on_gone(id, cut); },
          [this](int32_t id, size_t queued) { on_sent(id, queued); }),
      timer_(stream.get_executor()),
      write_timer_(stream.get_executor()) {}

void Connection::start(std::string_view preread) {
  if (!preread.empty()) feed(reinterpret_cast<const uint8_t*>(preread.data()), preread.size());
  flush();  // the server's SETTINGS
  if (closed_ || failed_) return;
  arm();
  read();
}

void Connection::start_upgraded(std::string_view preread, std::string_view settings,
                                http::Request&& r) {
  out_.assign(kSwitchingProtocols);  // before any frame
  if (!ingress_.upgrade(settings, std::move(r))) failed_ = true;
  start(preread);
}

void Connection::read() {
  stream_.async_read_some(asio::buffer(in_), [self = shared_from_this()](error_code ec, size_t n) {
    if (self->closed_) return;
    if (ec) return self->close();  // the client is gone
    self->feed(self->in_.data(), n);
    if (self->closed_ || self->failed_) return;
    self->arm();
    self->read();
  });
}

void Connection::feed(const uint8_t* data, size_t n) {
  if (!ingress_.feed(data, n)) failed_ = true;  // a GOAWAY goes out, then the connection closes
  flush();
}

void Connection::on_request(int32_t id, http::Request&& r, int status, std::string_view message) {
  auto ex = std::make_shared<http::Exchange>(std::make_shared<Channel>(shared_from_this(), id));
  exchanges_[id] = ex;
  if (status) {
    ctx_->protocol_error(*ex, status, r.path(), message);
    if (!ex->ended()) ex->respond(status, "text/plain", message);
    return;
  }
  ctx_->handler(std::move(ex), std::move(r));
}

void Connection::on_gone(int32_t id, bool cut) {
  auto it = exchanges_.find(id);
  if (it == exchanges_.end()) return;
  auto ex = it->second.lock();
  exchanges_.erase(it);
  if (ex && cut) ex->client_gone();
  if (!closed_) arm();  // the last stream gone: the idle deadline runs
}

// Flow control: the route behind a stream reads its upstream again once
// the stream's queue is down to half the mark.
void Connection::on_sent(int32_t id, size_t queued) {
  if (queued > ctx_->limits.max_queued_bytes / 2) return;
  auto it = exchanges_.find(id);
  if (it == exchanges_.end()) return;
  if (auto ex = it->second.lock()) ex->drained();
}

// Frames go out once per handler turn: the writes of one handler (a burst
// of stream events, several streams' answers) share one system call.
void Connection::flush() {
  if (closed_ || flush_posted_) return;
  flush_posted_ = true;
  asio::post(owner_->executor(), [self = shared_from_this()] {
    self->flush_posted_ = false;
    if (self->closed_) return;
    self->ingress_.output(self->out_);
    if (!self->writing_) self->write_out();
  });
}

void Connection::write_out() {
  if (out_.empty()) return close_if_done();
  writing_ = true;
  sending_.swap(out_);
  out_.clear();
  write_timer_.expires_after(ctx_->limits.write_timeout);
  write_timer_.async_wait([self = shared_from_this()](error_code ec) {
    if (ec || self->closed_ || !self->writing_) return;
    if (self->ctx_->on_slow_client) self->ctx_->on_slow_client();
    self->close();  // a client that takes none of its output
  });
  asio::async_write(stream_, asio::buffer(sending_),
                    [self = shared_from_this()](error_code ec, size_t) {
                      self->writing_ = false;
                      self->write_timer_.cancel();
                      if (self->closed_) return;
                      if (ec) return self->close();
                      self->sending_.clear();
                      self->ingress_.output(self->out_);  // what the window took meanwhile
                      self->write_out();
                    });
}

void Connection::close_if_done() {
  if (failed_ || ingress_.done()) close();
}

// One deadline at a time: a request still arriving (body_timeout from its
// last bytes), or an idle connection (keepalive_idle).
void Connection::arm() {
  const Limits& l = ctx_->limits;
  bool reading = ingress_.reading_request();
  if (!reading && ingress_.open_streams() > 0) {
    timer_.cancel();
    return;
  }
  timer_.expires_after(reading ? l.body_timeout : l.keepalive_idle);
  timer_.async_wait([self = shared_from_this()](error_code ec) {
    if (ec || self->closed_) return;
    self->close();
  });
}

void Connection::drain() {
  if (closed_) return;
  ingress_.shutdown();
  flush();
}

void Connection::close() {
  if (closed_) return;
  closed_ = true;
  timer_.cancel();
  write_timer_.cancel();
  auto open = std::move(exchanges_);
  for (auto& [id, w] : open)
    if (auto ex = w.lock()) ex->client_gone();
  owner_->close();
}

}  // namespace toolwire::gateway::http2
