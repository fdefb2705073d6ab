// One WebSocket connection of the conductor, taken over from the HTTP
// session after GET /v1/conductor. It reads frames (size limit, rate limit,
// text only), parses and validates them, answers ping and frame errors
// itself, and hands the rest to its session. Writes are queued and go out
// one at a time; everything runs on the socket's strand.
#pragma once

#include <boost/beast/core/flat_buffer.hpp>
#include <boost/beast/http/message.hpp>
#include <boost/beast/http/string_body.hpp>
#include <boost/beast/websocket/stream.hpp>
#include <deque>
#include <memory>
#include <string>

#include "gateway/conductor/protocol.h"
#include "gateway/conductor/rate_limit.h"
#include "gateway/http/stream.h"
#include "toolwire/gateway/auth.h"

namespace toolwire::gateway::conductor {

class Conductor;
class Session;

class Connection : public std::enable_shared_from_this<Connection> {
 public:
  // Frames queued for the device and not yet written: past this the
  // connection is cut (a device that stopped reading).
  static constexpr size_t kMaxQueuedBytes = 4 * 1024 * 1024;

  Connection(Conductor& conductor, http::Stream stream, GatewayKey* key);
  ~Connection();

  // Completes the handshake (the 101) and starts reading.
  void accept(boost::beast::http::request<boost::beast::http::string_body> req);
  // Any thread.
  void send(std::string frame);
  void close(uint16_t code, std::string reason);
  // Cuts the TCP connection (shutdown, after a close the device did not answer).
  void abort();

  // On the strand (Conductor::start runs there).
  void set_session(std::shared_ptr<Session> s) { session_ = std::move(s); }
  bool has_session() const { return session_ != nullptr; }
  bool gone() const { return ended_; }  // the device went away
  http::Executor executor() { return ws_.get_executor(); }
  GatewayKey* key() const { return key_; }
  void set_key(GatewayKey* k) { key_ = k; }
  void send_error(std::string_view code, std::string message, bool retryable,
                  const std::string& ref, std::string_view session_id = {});

 private:
  void read();
  void on_frame(std::string_view text, bool binary);
  void write_next();
  void do_close();
  void ended();

  Conductor& conductor_;
  boost::beast::websocket::stream<http::Stream> ws_;
  boost::beast::flat_buffer buf_;
  GatewayKey* key_;
  std::shared_ptr<Session> session_;
  TokenBucket bucket_;
  int refused_ = 0;  // frames refused by the rate limit since the flood began
  TokenBucket::Clock::time_point last_refused_{};
  std::deque<std::string> out_;
  size_t out_bytes_ = 0;
  bool accepted_ = false;  // the handshake (101) is done
  bool writing_ = false;
  bool closing_ = false;  // a close is queued behind the writes
  uint16_t close_code_ = 1000;
  std::string close_reason_;
  bool ended_ = false;
  uint64_t seq_ = 0;  // ids of the events this connection writes itself
  uint64_t conn_no_;
};

}  // namespace toolwire::gateway::conductor
