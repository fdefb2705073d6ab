// A conductor WebSocket connection: handshake, frame reads with their limits,
// frame errors, and the ordered write queue.
#include "gateway/conductor/connection.h"

#include <boost/asio/post.hpp>
#include <boost/beast/core/buffers_to_string.hpp>
#include <boost/beast/websocket/error.hpp>
#include <boost/beast/websocket/rfc6455.hpp>

#include "gateway/conductor/conductor.h"
#include "gateway/conductor/session.h"
#include "gateway/routes/context.h"

namespace toolwire::gateway::conductor {

namespace asio = boost::asio;
namespace beast = boost::beast;
namespace websocket = boost::beast::websocket;
using boost::system::error_code;

namespace {
std::atomic<uint64_t> g_conn_no{0};
}

Connection::Connection(Conductor& conductor, http::Stream stream, GatewayKey* key)
    : conductor_(conductor),
      ws_(std::move(stream)),
      key_(key),
      bucket_(conductor.options().frames_per_second, conductor.options().frame_burst),
      conn_no_(++g_conn_no) {}

Connection::~Connection() = default;

void Connection::accept(beast::http::request<beast::http::string_body> req) {
  // A device that vanished without a close (a phone off the network) is
  // found by Beast's pings: after idle_timeout with nothing read, the
  // connection ends and its session's grace period starts.
  auto timeouts = websocket::stream_base::timeout::suggested(beast::role_type::server);
  timeouts.idle_timeout = std::chrono::seconds(60);
  timeouts.keep_alive_pings = true;
  ws_.set_option(timeouts);
  ws_.set_option(websocket::stream_base::decorator(
      [](websocket::response_type& res) { res.set(beast::http::field::server, "toolwire"); }));
  ws_.read_message_max(conductor_.options().max_frame_bytes);
  ws_.async_accept(req, [self = shared_from_this()](error_code ec) {
    if (ec) return self->ended();
    // Nothing else may touch the stream while the handshake runs: a close
    // (gateway shutdown) or a write queued meanwhile starts now.
    self->accepted_ = true;
    if (!self->out_.empty()) self->write_next();
    if (self->closing_) {
      if (!self->writing_ && self->accepted_) self->do_close();
      return;
    }
    self->read();
  });
}

void Connection::read() {
  ws_.async_read(buf_, [self = shared_from_this()](error_code ec, size_t) {
    if (ec) return self->ended();  // closed, reset, or too big (Beast closes with 1009)
    std::string text = beast::buffers_to_string(self->buf_.data());
    self->buf_.consume(self->buf_.size());
    self->on_frame(text, !self->ws_.got_text());
    if (!self->ended_ && !self->closing_) self->read();
  });
}

// Every frame, good or bad, takes a token first: a flood of invalid frames
// hits the limit like any other.
void Connection::on_frame(std::string_view text, bool binary) {
  auto now = TokenBucket::Clock::now();
  // The session's bucket once there is one (a resume goes on with it), then
  // the key's, shared by all its connections.
  const auto& o = conductor_.options();
  std::string refused;
  if (!(session_ ? session_->bucket().take(now) : bucket_.take(now)))
    refused = "too many frames: the limit is " + std::to_string(o.frames_per_second) +
              " a second per session";
  else if (key_ && !conductor_.take_key_frame(key_, now))
    refused = "too many frames for key '" + key_->config().name + "': the limit is " +
              std::to_string(o.key_frames_per_second) + " a second for all its sessions";
  if (!refused.empty()) {
    if (now - last_refused_ > std::chrono::seconds(2)) refused_ = 0;  // a new flood
    last_refused_ = now;
    if (++refused_ > o.flood_close_after)
      return close(static_cast<uint16_t>(websocket::close_code::policy_error),
                   "frame rate limit exceeded");
    return send_error("rate_limited", std::move(refused), true, "",
                      session_ ? session_->id() : std::string());
  }
  std::string sid = session_ ? session_->id() : std::string();
  if (binary)
    return send_error("binary_frame", "binary frames are not accepted; send JSON text frames",
                      false, "", sid);
  auto parsed = parse_frame(text);
  if (parsed.error)
    return send_error(parsed.error->code, parsed.error->message, false, parsed.error->id, sid);
  Frame& f = *parsed.frame;
  f.received = now;
  if (f.type == ClientType::ping) {
    std::string id = "c" + std::to_string(conn_no_) + ":" + std::to_string(++seq_);
    nlohmann::json p = nlohmann::json::object();
    if (!f.id.empty()) p["ref"] = f.id;
    return send(make_event(id, "pong", sid, p));
  }
  if (f.type == ClientType::session_start) {
    if (session_)
      return send_error("session_active", "this connection already carries session " + sid, false,
                        f.id, sid);
    return conductor_.start(shared_from_this(), f);
  }
  if (!session_)
    return send_error("no_session", f.type_name + " before session.start", false, f.id);
  asio::post(session_->strand(),
             [s = session_, self = shared_from_this(), f = std::move(f)]() mutable {
               s->on_frame(self.get(), std::move(f));
             });
}

void Connection::send_error(std::string_view code, std::string message, bool retryable,
                            const std::string& ref, std::string_view session_id) {
  nlohmann::json p = {{"code", code}, {"message", std::move(message)}, {"retryable", retryable}};
  if (!ref.empty()) p["ref"] = ref;
  std::string id = "c" + std::to_string(conn_no_) + ":" + std::to_string(++seq_);
  send(make_event(id, "error", session_id, p));
}

void Connection::send(std::string frame) {
  asio::dispatch(ws_.get_executor(), [self = shared_from_this(), f = std::move(frame)]() mutable {
    if (self->ended_ || self->closing_) return;
    // A device that reads nothing while its session keeps producing would
    // grow this queue without end: past the bound it is cut (no close frame
    // could get through), counted as a slow client; its session's grace
    // period starts as for any lost connection.
    if (self->out_bytes_ + f.size() > kMaxQueuedBytes) {
      self->conductor_.context().metrics.slow_client_cut();
      // The frame being written stays until its write fails.
      while (self->out_.size() > (self->writing_ ? 1u : 0u)) {
        self->out_bytes_ -= self->out_.back().size();
        self->out_.pop_back();
      }
      self->closing_ = true;
      error_code ignored;
      beast::get_lowest_layer(self->ws_).close(ignored);  // pending operations fail: ended()
      return;
    }
    self->out_bytes_ += f.size();
    self->out_.push_back(std::move(f));
    if (!self->writing_ && self->accepted_) self->write_next();
  });
}

void Connection::write_next() {
  if (ended_) return;
  if (out_.empty()) {
    writing_ = false;
    if (closing_) do_close();  // what was queued before the close went out first
    return;
  }
  writing_ = true;
  ws_.text(true);
  ws_.async_write(asio::buffer(out_.front()), [self = shared_from_this()](error_code ec, size_t) {
    self->out_bytes_ -= self->out_.front().size();
    self->out_.pop_front();
    if (ec) {
      self->writing_ = false;
      return self->ended();
    }
    self->write_next();
  });
}

void Connection::close(uint16_t code, std::string reason) {
  asio::dispatch(ws_.get_executor(), [self = shared_from_this(), code, reason = std::move(reason)] {
    if (self->ended_ || self->closing_) return;
    self->closing_ = true;
    self->close_code_ = code;
    self->close_reason_ = reason;
    if (!self->writing_ && self->accepted_) self->do_close();
  });
}

void Connection::abort() {
  asio::post(ws_.get_executor(), [self = shared_from_this()] {
    error_code ignored;
    beast::get_lowest_layer(self->ws_).close(ignored);  // pending operations fail: ended()
  });
}

void Connection::do_close() {
  ws_.async_close(
      websocket::close_reason(static_cast<websocket::close_code>(close_code_), close_reason_),
      [self = shared_from_this()](error_code) { self->ended(); });
}

void Connection::ended() {
  if (ended_) return;
  ended_ = true;
  if (auto s = std::move(session_))
    asio::post(s->strand(), [s, self = shared_from_this()] { s->detach(self.get()); });
  conductor_.forget_connection(this);
}

}  // namespace toolwire::gateway::conductor
