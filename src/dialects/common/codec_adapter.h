// codec_adapter.h — the Codec interface over a dialect folder's free
// functions (the ones its wire.h declares with TW_DIALECT_FUNCTIONS), so no
// folder hand-writes a Codec class. A folder's codec.cc is its factory:
//
//   const Codec& openai_chat::codec() {
//     static const FunctionCodec instance(TW_CODEC_FUNCTIONS(openai_chat));
//     return instance;
//   }
#pragma once

#include <memory>
#include <string>
#include <string_view>

#include "dialects/common/borrowed_ir.h"
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

// The owning request decoder over a folder's decode_request_into.
template <Status (*DecodeInto)(std::string_view, Warnings&, ir::Request&)>
Result<ir::Request> decode_owning_request(std::string_view json, Warnings& warnings) {
  ir::Request request;
  TW_TRY(DecodeInto(json, warnings, request));
  return request;
}

// The CodecFunctions of the folder whose namespace is toolwire::dialects::`ns`.
#define TW_CODEC_FUNCTIONS(ns)                                                          \
  ::toolwire::dialects::CodecFunctions {                                                \
    .name = ns::kDialect,                                                               \
    .decode_request = &::toolwire::dialects::decode_owning_request<                     \
        &ns::decode_request_into<::toolwire::ir::Owning>>,                              \
    .encode_request = &ns::encode_request_from<::toolwire::ir::Owning>,                 \
    .decode_response = &ns::decode_response, .encode_response = &ns::encode_response,   \
    .make_stream_decoder = &ns::make_stream_decoder,                                    \
    .make_stream_encoder = &ns::make_stream_encoder, .encode_error = &ns::encode_error, \
    .decode_error = &ns::decode_error,                                                  \
  }

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
