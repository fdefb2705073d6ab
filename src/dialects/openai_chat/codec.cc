// The OpenAI Chat Completions codec: this folder's functions behind the Codec interface
// (dialects/common/codec_adapter.h), registered in src/dialects/dialects.cc.
#include "dialects/common/codec_adapter.h"
#include "dialects/openai_chat/wire.h"

namespace toolwire::dialects {

const Codec& openai_chat_codec() {
  static const FunctionCodec codec({
      .name = openai_chat::kDialect,
      .decode_request = &openai_chat::decode_request,
      .encode_request = &openai_chat::encode_request,
      .decode_response = &openai_chat::decode_response,
      .encode_response = &openai_chat::encode_response,
      .make_stream_decoder = &openai_chat::make_stream_decoder,
      .make_stream_encoder = &openai_chat::make_stream_encoder,
      .encode_error = &openai_chat::encode_error,
      .decode_error = &openai_chat::decode_error,
  });
  return codec;
}

}  // namespace toolwire::dialects
