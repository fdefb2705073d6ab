// Arbitrary bytes as the frames of one HTTP/2 client connection, into the
// gateway's HTTP/2 ingress (src/gateway/http2/ingress.h): nghttp2's server
// session, HPACK, stream states, flow control, and the mapping of streams
// onto requests with their header and body limits. Every request is
// answered at once, whole or as a stream written in pieces, some streams
// reset, so that answers and peer frames interleave; the output is drained
// after every piece of input.
//
// The first input byte picks the piece size, whether the connection preface
// is supplied (most inputs would otherwise stop there), and whether the
// connection starts as an h2c Upgrade whose HTTP2-Settings header is the
// next bytes of the input (base64url, decoded by upgrade.cc).
#include <algorithm>
#include <cstdint>
#include <optional>
#include <string>
#include <string_view>

#include "gateway/http2/ingress.h"
#include "gateway/http2/upgrade.h"

namespace {

using toolwire::gateway::http::Request;
using toolwire::gateway::http2::Ingress;
using toolwire::gateway::http2::IngressLimits;

constexpr std::string_view kPreface = "PRI * HTTP/2.0\r\n\r\nSM\r\n\r\n";

}  // namespace

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
  if (size == 0) return 0;
  uint8_t mode = data[0];
  ++data;
  --size;
  size_t piece = 1 + (mode & 0x3f) * 97;
  IngressLimits limits;
  limits.max_header_bytes = 4096;
  limits.max_body_bytes = 64 * 1024;
  limits.max_streams = 8;
  Ingress* self = nullptr;
  size_t requests = 0;
  Ingress ingress(
      limits,
      [&](int32_t id, Request&& r, int status, std::string_view message) {
        ++requests;
        if (status) {
          self->respond(id, status, "text/plain", {}, message);
          return;
        }
        if (requests % 5 == 4) return self->reset(id);
        if (r.target.find("stream") != std::string::npos) {
          self->respond(id, 200, "text/event-stream", {{"X-Mixed-Case", "v"}, {"connection", "x"}},
                        std::nullopt);
          for (int i = 0; i < 4; ++i) self->write(id, std::string(1000 + r.body.size(), 'e'));
          self->finish(id);
          return;
        }
        self->respond(id, 200, "application/json", {}, r.body);
      },
      [](int32_t, bool) {}, [](int32_t, size_t) {});
  self = &ingress;
  if ((mode & 0x20) && size > 0) {
    size_t n = std::min<size_t>(size - 1, data[0]);
    Request up;
    up.method = boost::beast::http::verb::post;
    up.method_text = "POST";
    up.target = "/stream";
    up.version = 11;
    up.headers.set("upgrade", "h2c");
    up.headers.set("connection", "Upgrade, HTTP2-Settings");
    up.headers.set("http2-settings", std::string(reinterpret_cast<const char*>(data + 1), n));
    data += 1 + n;
    size -= 1 + n;
    if (auto settings = toolwire::gateway::http2::h2c_upgrade_settings(up))
      ingress.upgrade(*settings, std::move(up));
  }
  std::string out;
  if (mode & 0x40) ingress.feed(reinterpret_cast<const uint8_t*>(kPreface.data()), kPreface.size());
  for (size_t off = 0; off < size; off += piece) {
    size_t n = std::min(piece, size - off);
    bool ok = ingress.feed(data + off, n);
    out.clear();
    ingress.output(out);
    if (!ok) break;
    if (mode & 0x80) ingress.shutdown();
  }
  out.clear();
  ingress.output(out);
  (void)ingress.done();
  (void)ingress.reading_request();
  return 0;
}
