// The Anthropic Messages codec object and its factory.
#include "codecs/anthropic_messages/wire.h"

namespace toolwire::codec {
namespace anthropic_messages {
namespace {

class AnthropicMessagesCodec final : public Codec {
 public:
  std::string_view name() const override { return kDialect; }
  Result<ir::Request> decode_request(std::string_view json, Warnings& warnings) const override {
    return anthropic_messages::decode_request(json, warnings);
  }
  Result<std::string> encode_request(const ir::Request& request, Warnings& warnings,
                                     const EncodeOptions& options) const override {
    return anthropic_messages::encode_request(request, warnings, options);
  }
  Result<ir::Response> decode_response(std::string_view json, Warnings& warnings) const override {
    return anthropic_messages::decode_response(json, warnings);
  }
  Result<std::string> encode_response(const ir::Response& response,
                                      Warnings& warnings) const override {
    return anthropic_messages::encode_response(response, warnings);
  }
  std::unique_ptr<StreamDecoder> make_stream_decoder() const override {
    return anthropic_messages::make_stream_decoder();
  }
  std::unique_ptr<StreamEncoder> make_stream_encoder() const override {
    return anthropic_messages::make_stream_encoder();
  }
  WireError encode_error(const Error& error) const override {
    return anthropic_messages::encode_error(error);
  }
  Error decode_error(int http_status, std::string_view body) const override {
    return anthropic_messages::decode_error(http_status, body);
  }
};

}  // namespace
}  // namespace anthropic_messages

const Codec& anthropic_messages_codec() {
  static const anthropic_messages::AnthropicMessagesCodec codec;
  return codec;
}

}  // namespace toolwire::codec
