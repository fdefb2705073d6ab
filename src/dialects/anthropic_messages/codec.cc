// The Anthropic Messages codec: this folder's functions behind the Codec interface
// (dialects/common/codec_adapter.h), registered in src/dialects/dialects.cc.
#include "dialects/anthropic_messages/wire.h"
#include "dialects/common/codec_adapter.h"

namespace toolwire::dialects {

const Codec& anthropic_messages_codec() {
  static const FunctionCodec codec({
      .name = anthropic_messages::kDialect,
      .decode_request = &anthropic_messages::decode_request,
      .encode_request = &anthropic_messages::encode_request,
      .decode_response = &anthropic_messages::decode_response,
      .encode_response = &anthropic_messages::encode_response,
      .make_stream_decoder = &anthropic_messages::make_stream_decoder,
      .make_stream_encoder = &anthropic_messages::make_stream_encoder,
      .encode_error = &anthropic_messages::encode_error,
      .decode_error = &anthropic_messages::decode_error,
  });
  return codec;
}

}  // namespace toolwire::dialects
