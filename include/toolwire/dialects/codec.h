// toolwire/dialects/codec.h — the interface every wire dialect implements.
//
// A codec turns one dialect's bytes into IR and IR into that dialect's bytes,
// in both directions (request, response, stream) and does no I/O. Translating
// dialect X to Y is `X.decode_*` then `Y.encode_*`:
//
//   const Codec& from = *find_codec("anthropic_messages");
//   const Codec& to = *find_codec("openai_chat");
//   Warnings warnings;
//   auto req = from.decode_request(body, warnings);
//   if (!req) return to.encode_error(req.error());
//   auto out = to.encode_request(*req, warnings);
//
// or, for a request, `translate_request(from, to, body, warnings)`, which does
// the same and lets the encoder trust what the decoder already checked.
//
// Decoders validate and name the JSON path of anything wrong. Encoders accept
// any valid IR; what the target cannot express becomes a Warning, never a
// silent loss.
#pragma once

#include <memory>
#include <string>
#include <string_view>
#include <utility>
#include <vector>

#include "toolwire/core/http_status.h"
#include "toolwire/core/result.h"
#include "toolwire/core/warnings.h"
#include "toolwire/ir/request.h"
#include "toolwire/ir/response.h"
#include "toolwire/ir/stream.h"

namespace toolwire::dialects {

// Wire bytes (Server-Sent Events) in any chunking → IR stream events.
class StreamDecoder {
 public:
  virtual ~StreamDecoder() = default;
  // Appends the events completed by `bytes`. An error is final.
  virtual Status feed(std::string_view bytes, std::vector<ir::StreamEvent>& out) = 0;
  // End of input. Fails if the stream stopped before its terminal event.
  virtual Status finish(std::vector<ir::StreamEvent>& out) = 0;
  // What the stream said that its events cannot carry (a member the IR has
  // no room for), with the code and the path the whole-response decoder of
  // the dialect uses for it (`dropped_unknown_field` at
  // `$.choices[0].logprobs`...), each code and path once per stream. It
  // grows while feed() runs: a loss found mid-stream is known only after the
  // events before it went out.
  virtual const Warnings& warnings() const = 0;
};

// IR stream events → wire bytes, exactly as the real API frames them.
class StreamEncoder {
 public:
  virtual ~StreamEncoder() = default;
  // Appends the bytes for `event` to `out` (possibly none, possibly several
  // wire events). Events must follow the order documented in ir/stream.h.
  virtual void encode(const ir::StreamEvent& event, std::string& out) = 0;
  virtual const Warnings& warnings() const = 0;
};

// An error body in a dialect, with the HTTP status to send it with.
struct WireError {
  int http_status = 500;
  std::string body;
  // Response headers the dialect's error needs besides the body (Bedrock's
  // x-amzn-errortype); most dialects have none.
  std::vector<std::pair<std::string, std::string>> headers;
};

// How an encoder may treat the IR it is given.
struct EncodeOptions {
  // Every raw JSON field (tool schemas, metadata, and tool arguments flagged
  // arguments_valid) comes from a toolwire decoder, unchanged since: the
  // encoder splices them without parsing them again. Leave false for an IR
  // built or edited by hand; then each is checked, and a bad one is an error
  // naming its path. translate_request() sets it.
  bool raw_json_verified = false;
};

class Codec {
 public:
  virtual ~Codec() = default;
  virtual std::string_view name() const = 0;  // "openai_chat", "anthropic_messages"

  virtual Result<ir::Request> decode_request(std::string_view json, Warnings& warnings) const = 0;
  virtual Result<std::string> encode_request(const ir::Request& request, Warnings& warnings,
                                             const EncodeOptions& options = {}) const = 0;
  virtual Result<ir::Response> decode_response(std::string_view json, Warnings& warnings) const = 0;
  virtual Result<std::string> encode_response(const ir::Response& response,
                                              Warnings& warnings) const = 0;
  virtual std::unique_ptr<StreamDecoder> make_stream_decoder() const = 0;
  virtual std::unique_ptr<StreamEncoder> make_stream_encoder() const = 0;

  // `error` as this dialect's error JSON and HTTP status.
  virtual WireError encode_error(const Error& error) const = 0;
  // An upstream error body of this dialect back into an Error (best effort:
  // a body that is not this dialect's error shape gives its text verbatim).
  virtual Error decode_error(int http_status, std::string_view body) const = 0;
};

// A request body of `from`'s dialect as a request of `to`'s: decode, then
// encode with raw_json_verified (the IR never leaves this call). An error is
// the decoder's (bad input, with its JSON path) or the encoder's.
Result<std::string> translate_request(const Codec& from, const Codec& to, std::string_view body,
                                      Warnings& warnings);

// The built-in codecs, registered explicitly in src/dialects/builtin.cc.
const Codec* find_codec(std::string_view name);
std::vector<const Codec*> all_codecs();

}  // namespace toolwire::dialects
