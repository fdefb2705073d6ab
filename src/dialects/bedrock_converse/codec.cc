// The Bedrock Converse codec: this folder's functions behind the Codec
// interface (dialects/common/codec_adapter.h), registered in src/dialects/dialects.cc.
#include "dialects/bedrock_converse/wire.h"
#include "dialects/common/codec_adapter.h"

namespace toolwire::dialects {

const Codec& bedrock_converse_codec() {
  static const FunctionCodec codec({
      .name = bedrock_converse::kDialect,
      .decode_request = &bedrock_converse::decode_request,
      .encode_request = &bedrock_converse::encode_request,
      .decode_response = &bedrock_converse::decode_response,
      .encode_response = &bedrock_converse::encode_response,
      .make_stream_decoder = &bedrock_converse::make_stream_decoder,
      .make_stream_encoder = &bedrock_converse::make_stream_encoder,
      .encode_error = &bedrock_converse::encode_error,
      .decode_error = &bedrock_converse::decode_error,
  });
  return codec;
}

}  // namespace toolwire::dialects
