// The OpenAI Responses codec: this folder's functions behind the Codec interface
// (dialects/common/codec_adapter.h), registered in src/dialects/dialects.cc.
#include "dialects/common/codec_adapter.h"
#include "dialects/openai_responses/wire.h"

namespace toolwire::dialects {

const Codec& openai_responses_codec() {
  static const FunctionCodec codec({
      .name = openai_responses::kDialect,
      .decode_request = &openai_responses::decode_request,
      .encode_request = &openai_responses::encode_request,
      .decode_response = &openai_responses::decode_response,
      .encode_response = &openai_responses::encode_response,
      .make_stream_decoder = &openai_responses::make_stream_decoder,
      .make_stream_encoder = &openai_responses::make_stream_encoder,
      .encode_error = &openai_responses::encode_error,
      .decode_error = &openai_responses::decode_error,
  });
  return codec;
}

}  // namespace toolwire::dialects
