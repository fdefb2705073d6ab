// Mock upstream responses in a dialect's exact wire format, produced from IR
// by that dialect's own encoders (the same bytes the codec tests pin against
// real fixtures), served by tests/support's MockHttpServer.
#pragma once

#include <string>
#include <vector>

#include "mock_http_server.h"
#include "toolwire/dialects/codec.h"
#include "toolwire/ir/accumulator.h"

namespace toolwire::testing {

class Upstream {
 public:
  explicit Upstream(const char* dialect) : codec_(*dialects::find_codec(dialect)) {}
  const dialects::Codec& codec() const { return codec_; }

  // The events as an SSE body, one HTTP chunk per wire event group.
  MockResponse stream(const std::vector<ir::StreamEvent>& events,
                      milliseconds gap = milliseconds(0)) const {
    MockResponse r = MockResponse::sse_stream();
    for (const auto& bytes : sse_pieces(events)) r.chunk(bytes, gap);
    return r;
  }

  // Each event's bytes as the encoder frames them (empty pieces skipped).
  std::vector<std::string> sse_pieces(const std::vector<ir::StreamEvent>& events) const {
    auto enc = codec_.make_stream_encoder();
    std::vector<std::string> out;
    for (const auto& e : events) {
      std::string bytes;
      enc->encode(e, bytes);
      if (!bytes.empty()) out.push_back(std::move(bytes));
    }
    return out;
  }

  // The events folded into one response, as the dialect's JSON body.
  MockResponse whole(const std::vector<ir::StreamEvent>& events) const {
    ir::StreamAccumulator acc;
    for (const auto& e : events) acc.add(e);
    Warnings w;
    auto body = codec_.encode_response(std::move(acc).take(), w);
    return MockResponse::json(200, body.ok() ? *body : std::string("{}"));
  }

  // The request body decoded back to IR (empty request on failure).
  ir::Request decode(const MockRequest& req) const {
    Warnings w;
    auto r = codec_.decode_request(req.body, w);
    return r.ok() ? *r : ir::Request{};
  }

 private:
  const dialects::Codec& codec_;
};

}  // namespace toolwire::testing
