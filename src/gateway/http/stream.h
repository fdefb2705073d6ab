// A client connection's byte stream: the TCP socket itself, or TLS over it.
//
// One type for both, chosen per connection at run time, so that the session,
// its exchanges and the WebSocket conductor stay one code path each (no
// template over the stream). It is an Asio AsyncStream (Beast's HTTP reads
// and its websocket::stream take it as is); socket() is the TCP socket under
// it, for options, readiness waits, cancel and close.
#pragma once

#include <boost/asio/ssl/context.hpp>
#include <boost/asio/ssl/stream.hpp>
#include <boost/beast/core/role.hpp>
#include <boost/beast/websocket/ssl.hpp>
#include <boost/beast/websocket/teardown.hpp>
#include <memory>
#include <optional>
#include <utility>

#include "gateway/http/socket.h"

namespace toolwire::gateway::http {

class Stream {
 public:
  using executor_type = Executor;
  using TlsStream = boost::asio::ssl::stream<Socket>;

  explicit Stream(Socket socket) : plain_(std::move(socket)) {}
  // TLS with `context` (kept alive by the stream: a certificate reload
  // replaces the gateway's context, not this connection's).
  Stream(Socket socket, std::shared_ptr<boost::asio::ssl::context> context)
      : context_(std::move(context)), tls_(std::in_place, std::move(socket), *context_) {}
  Stream(Stream&&) = default;
  Stream& operator=(Stream&&) = delete;

  executor_type get_executor() { return socket().get_executor(); }
  bool is_tls() const { return tls_.has_value(); }
  Socket& socket() { return tls_ ? tls_->next_layer() : *plain_; }
  TlsStream& tls() { return *tls_; }

  template <class MutableBuffers, class Handler>
  void async_read_some(const MutableBuffers& buffers, Handler&& handler) {
    if (tls_)
      tls_->async_read_some(buffers, std::forward<Handler>(handler));
    else
      plain_->async_read_some(buffers, std::forward<Handler>(handler));
  }

  template <class ConstBuffers, class Handler>
  void async_write_some(const ConstBuffers& buffers, Handler&& handler) {
    if (tls_)
      tls_->async_write_some(buffers, std::forward<Handler>(handler));
    else
      plain_->async_write_some(buffers, std::forward<Handler>(handler));
  }

  // The server side of the TLS handshake (TLS streams only).
  template <class Handler>
  void async_handshake(Handler&& handler) {
    tls_->async_handshake(boost::asio::ssl::stream_base::server, std::forward<Handler>(handler));
  }

  // The TCP socket closes; pending operations complete with an error.
  void close(boost::system::error_code& ec) { socket().close(ec); }

 private:
  std::shared_ptr<boost::asio::ssl::context> context_;  // before tls_: outlives it
  std::optional<Socket> plain_;
  std::optional<TlsStream> tls_;
};

// What Beast's websocket::stream needs of a user-defined next layer: closing
// it on a timeout, and the teardown after a close frame (TLS: close_notify).
inline void beast_close_socket(Stream& s) {
  boost::system::error_code ignored;
  s.close(ignored);
}

inline void teardown(boost::beast::role_type role, Stream& s, boost::system::error_code& ec) {
  if (s.is_tls())
    boost::beast::teardown(role, s.tls(), ec);
  else
    boost::beast::websocket::teardown(role, s.socket(), ec);
}

template <class Handler>
void async_teardown(boost::beast::role_type role, Stream& s, Handler&& handler) {
  if (s.is_tls())
    boost::beast::async_teardown(role, s.tls(), std::forward<Handler>(handler));
  else
    boost::beast::websocket::async_teardown(role, s.socket(), std::forward<Handler>(handler));
}

}  // namespace toolwire::gateway::http
