// The I/O of one HTTP/2 connection: bytes from the client's stream into the
// Ingress (ingress.h), its frames back out, each stream's request handed to
// the router with an Exchange whose answer becomes HEADERS and DATA frames.
//
// A connection starts as an HTTP/1.1 Session (session.h) and becomes HTTP/2
// when TLS negotiated `h2` by ALPN, the first bytes are the HTTP/2
// connection preface (h2c with prior knowledge), or its first request asks
// for h2c by Upgrade (upgrade.h). The Session stays the
// gateway's handle on it (connection count, drain on shutdown); this object
// does the rest, on the Session's thread.
//
// Deadlines: a request whose header or body has not fully arrived within
// Limits::body_timeout, or a connection with no stream open for
// Limits::keepalive_idle, closes the connection; a write that makes no
// progress within Limits::write_timeout cuts the client.
#pragma once

#include <array>
#include <map>
#include <memory>
#include <string>
#include <string_view>

#include "gateway/http/session.h"
#include "gateway/http2/ingress.h"

namespace toolwire::gateway::http2 {

class Connection : public std::enable_shared_from_this<Connection> {
 public:
  Connection(std::shared_ptr<http::Session> owner, http::Stream& stream,
             std::shared_ptr<const http::SessionContext> ctx);

  // `preread`: bytes of the connection already read off the stream.
  void start(std::string_view preread);
  // h2c by Upgrade: the 101 goes out, then `r` is answered as stream 1.
  void start_upgraded(std::string_view preread, std::string_view settings, http::Request&& r);
  // GOAWAY; the connection closes once its open streams end.
  void drain();
  // Now: open exchanges see client_gone().
  void close();

 private:
  class Channel;

  void read();
  void feed(const uint8_t* data, size_t n);
  void on_request(int32_t id, http::Request&& r, int status, std::string_view message);
  void on_gone(int32_t id, bool cut);
  void on_sent(int32_t id, size_t queued);
  void flush();
  void write_out();
  void arm();
  void close_if_done();

  std::shared_ptr<http::Session> owner_;
  http::Stream& stream_;  // the owner's
  std::shared_ptr<const http::SessionContext> ctx_;
  Ingress ingress_;
  std::map<int32_t, std::weak_ptr<http::Exchange>> exchanges_;
  std::array<uint8_t, 16 * 1024> in_{};
  std::string out_;      // frames waiting for the write in flight
  std::string sending_;  // the write in flight
  http::Timer timer_;
  http::Timer write_timer_;
  bool writing_ = false;
  bool flush_posted_ = false;
  bool failed_ = false;  // a connection error: close once the GOAWAY is out
  bool closed_ = false;
};

}  // namespace toolwire::gateway::http2
