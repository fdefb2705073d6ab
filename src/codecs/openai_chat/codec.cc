// The OpenAI Chat Completions codec: the Codec interface over this folder's
// free functions, and its factory (registered in src/codecs/builtin.cc).
#include "codecs/openai_chat/wire.h"

namespace toolwire::codec {
namespace openai_chat {
namespace {

class OpenAiChatCodec final : public Codec {
 public:
  std::string_view name() const override { return kDialect; }
  Result<ir::Request> decode_request(std::string_view json, Warnings& warnings) const override {
    return openai_chat::decode_request(json, warnings);
  }
  Result<std::string> encode_request(const ir::Request& request, Warnings& warnings,
                                     const EncodeOptions& options) const override {
    return openai_chat::encode_request(request, warnings, options);
  }
  Result<ir::Response> decode_response(std::string_view json, Warnings& warnings) const override {
    return openai_chat::decode_response(json, warnings);
  }
  Result<std::string> encode_response(const ir::Response& response,
                                      Warnings& warnings) const override {
    return openai_chat::encode_response(response, warnings);
  }
  std::unique_ptr<StreamDecoder> make_stream_decoder() const override {
    return openai_chat::make_stream_decoder();
  }
  std::unique_ptr<StreamEncoder> make_stream_encoder() const override {
    return openai_chat::make_stream_encoder();
  }
  WireError encode_error(const Error& error) const override {
    return openai_chat::encode_error(error);
  }
  Error decode_error(int http_status, std::string_view body) const override {
    return openai_chat::decode_error(http_status, body);
  }
};

}  // namespace
}  // namespace openai_chat

const Codec& openai_chat_codec() {
  static const openai_chat::OpenAiChatCodec codec;
  return codec;
}

}  // namespace toolwire::codec
