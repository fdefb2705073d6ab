// The client's side of a streamed answer (docs/gateway.md, "Streams and
// keep-alive per dialect"): the head, each event encoded into the caller's
// dialect and written as soon as it is given (nothing is buffered), a
// keep-alive after `stream_keepalive` without a write (server tools running,
// an upstream thinking), and the error event that ends a stream early.
// Used on the connection's thread only.
#pragma once

#include <boost/asio/steady_timer.hpp>
#include <functional>
#include <memory>
#include <string>
#include <string_view>

#include "gateway/http/exchange.h"
#include "gateway/routes/context.h"
#include "gateway/routes/previous_response.h"
#include "gateway/routes/stream_shape.h"
#include "toolwire/dialects/codec.h"
#include "toolwire/ir/stream.h"

namespace toolwire::gateway::routes {

class StreamRelay : public std::enable_shared_from_this<StreamRelay> {
 public:
  StreamRelay(std::shared_ptr<http::Exchange> ex, RouteContext& ctx, const dialects::Codec& codec);

  bool begun() const { return begun_; }
  // The head: 200, the dialect's stream media type, `headers`; keep-alives from now on.
  void begin(http::Headers headers);
  // One event, encoded and written (the head first if not sent yet).
  void send(const ir::StreamEvent& e);
  // The same, the response store seeing the event as the client gets it.
  void send(ir::StreamEvent e, ResponseRecorder& recorder);
  // Bytes as they are (tool-activity comments).
  void write(std::string_view bytes);
  // The error event that ends the stream early.
  void send_error(const Error& e);
  // The stream's end; no keep-alive after it.
  void end();
  // The client is gone: no keep-alive after it.
  void cancel();
  // What encoding the events into the caller's dialect dropped so far.
  const Warnings& warnings() const { return encoder_->warnings(); }

  // Runs after a write that left more than max_queued_bytes queued for the
  // client (the producer should pause until the exchange says drained).
  std::function<void()> on_behind;

 private:
  void arm_keepalive();

  std::shared_ptr<http::Exchange> ex_;
  RouteContext& ctx_;
  StreamShape shape_;
  std::unique_ptr<dialects::StreamEncoder> encoder_;
  boost::asio::steady_timer keepalive_;
  http::Clock::time_point last_write_{};
  std::string buf_;
  bool begun_ = false;
  bool over_ = false;  // ended or cancelled
};

}  // namespace toolwire::gateway::routes
