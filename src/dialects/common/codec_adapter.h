// codec_adapter.h — the Codec interface over a dialect folder's free
// functions (the ones its wire.h declares), so no folder hand-writes a Codec
// class. A folder's codec.cc is its factory:
//
//   const Codec& openai_chat_codec() {
//     static const FunctionCodec codec({.name = openai_chat::kDialect,
//                                       .decode_request = &openai_chat::decode_request, ...});
//     return codec;
//   }
#pragma once

#include <memory>
#include <string>
#include <string_view>

#include "toolwire/dialects/codec.h"

namespace toolwire::dialects {

// One dialect's codec functions; every member is required.
struct CodecFunctions {
  std::string_view name;
  Result<ir::Request> (*decode_request)(std::string_view, Warnings&);
  Result<std::string> (*encode_request)(const ir::Request&, Warnings&, const EncodeOptions&);
  Result<ir::Response> (*decode_response)(std::string_view, Warnings&);
  Result<std::string> (*encode_response)(const ir::Response&, Warnings&);
  std::unique_ptr<StreamDecoder> (*make_stream_decoder)();
  std::unique_ptr<StreamEncoder> (*make_stream_encoder)();
  WireError (*encode_error)(const Error&);
  Error (*decode_error)(int, std::string_view);
};

class FunctionCodec final : public Codec {
 public:
  explicit constexpr FunctionCodec(const CodecFunctions& f) : f_(f) {}

  std::string_view name() const override { return f_.name; }
  Result<ir::Request> decode_request(std::string_view json, Warnings& warnings) const override {
    return f_.decode_request(json, warnings);
  }
  Result<std::string> encode_request(const ir::Request& request, Warnings& warnings,
                                     const EncodeOptions& options) const override {
    return f_.encode_request(request, warnings, options);
  }
  Result<ir::Response> decode_response(std::string_view json, Warnings& warnings) const override {
    return f_.decode_response(json, warnings);
  }
  Result<std::string> encode_response(const ir::Response& response,
                                      Warnings& warnings) const override {
    return f_.encode_response(response, warnings);
  }
  std::unique_ptr<StreamDecoder> make_stream_decoder() const override {
    return f_.make_stream_decoder();
  }
  std::unique_ptr<StreamEncoder> make_stream_encoder() const override {
    return f_.make_stream_encoder();
  }
  WireError encode_error(const Error& error) const override { return f_.encode_error(error); }
  Error decode_error(int http_status, std::string_view body) const override {
    return f_.decode_error(http_status, body);
  }

 private:
  CodecFunctions f_;
};

}  // namespace toolwire::dialects
