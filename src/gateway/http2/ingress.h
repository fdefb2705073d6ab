// The server side of one HTTP/2 connection, without I/O: frames in (feed),
// requests out (on_request), answers in (respond / write / finish), frames
// out (output). nghttp2's server session does the framing, HPACK, stream
// states and flow control; this class maps its streams onto the gateway's
// requests. The socket side is connection.cc; the fuzz target
// (tests/fuzz/fuzz_gateway_http2.cc) drives this class alone.
//
// Flow control is the backpressure of HTTP/2: an answer's bytes wait here
// until the peer's window takes them, and queued(id) is what the route's
// producer watches (Exchange::queued_bytes, on_drained).
#pragma once

#include <nghttp2/nghttp2.h>

#include <cstdint>
#include <functional>
#include <map>
#include <memory>
#include <optional>
#include <string>
#include <string_view>

#include "gateway/http/exchange.h"

namespace toolwire::gateway::http2 {

struct IngressLimits {
  size_t max_header_bytes = 16 * 1024;      // per request's header list → 431
  size_t max_body_bytes = 8 * 1024 * 1024;  // → 413
  uint32_t max_streams = 100;               // SETTINGS_MAX_CONCURRENT_STREAMS
};

class Ingress {
 public:
  // A whole request on stream `id`; status is 0, or the error (413, 431,
  // 400) the request must be answered with (message says why).
  using OnRequest =
      std::function<void(int32_t id, http::Request&& r, int status, std::string_view message)>;
  // A dispatched stream closed; `cut`: before its answer's last byte went
  // out (RST_STREAM, connection error): the client is gone.
  using OnGone = std::function<void(int32_t id, bool cut)>;
  // The bytes queued on the stream went down to `queued`.
  using OnSent = std::function<void(int32_t id, size_t queued)>;

  Ingress(IngressLimits limits, OnRequest on_request, OnGone on_gone, OnSent on_sent);
  ~Ingress();
  Ingress(const Ingress&) = delete;
  Ingress& operator=(const Ingress&) = delete;

  // h2c by Upgrade: `settings` is the client's HTTP2-Settings payload, `r`
  // the request that asked, which becomes stream 1 (on_request runs now).
  // False when nghttp2 refuses the settings.
  bool upgrade(std::string_view settings, http::Request&& r);
  // Frames from the peer. False on a connection error: send output() (a
  // GOAWAY), then close.
  bool feed(const uint8_t* data, size_t n);
  // Appends the frames ready to go out (as much as flow control allows).
  void output(std::string& out);

  // The answer's head; `body` set: the whole answer, else a stream follows
  // (write, finish). False when the stream is gone.
  bool respond(int32_t id, int status, std::string_view content_type, const http::Headers& headers,
               std::optional<std::string_view> body);
  void write(int32_t id, std::string_view bytes);
  void finish(int32_t id);
  // Cancels the stream (RST_STREAM, INTERNAL_ERROR).
  void reset(int32_t id);
  size_t queued(int32_t id) const;
  // Graceful shutdown: GOAWAY, then done() once the open streams end.
  void shutdown();
  // Nothing more to read or write: the connection may close.
  bool done() const;
  // Streams open (requests being read or answered).
  size_t open_streams() const { return streams_.size(); }
  // Streams whose request has not fully arrived (a body deadline applies).
  bool reading_request() const;

 private:
  struct StreamState;
  static int on_begin_headers(nghttp2_session*, const nghttp2_frame*, void*);
  static int on_header(nghttp2_session*, const nghttp2_frame*, const uint8_t*, size_t,
                       const uint8_t*, size_t, uint8_t, void*);
  static int on_data_chunk(nghttp2_session*, uint8_t, int32_t, const uint8_t*, size_t, void*);
  static int on_frame_recv(nghttp2_session*, const nghttp2_frame*, void*);
  static int on_stream_close(nghttp2_session*, int32_t, uint32_t, void*);
  static ssize_t read_body(nghttp2_session*, int32_t, uint8_t*, size_t, uint32_t*,
                           nghttp2_data_source*, void*);
  StreamState* find(int32_t id) const;
  void request_complete(StreamState& s);

  IngressLimits limits_;
  OnRequest on_request_;
  OnGone on_gone_;
  OnSent on_sent_;
  nghttp2_session* session_ = nullptr;
  std::map<int32_t, std::unique_ptr<StreamState>> streams_;
};

}  // namespace toolwire::gateway::http2
