// The Gemini codec: this folder's functions behind the Codec interface
// (codecs/common/codec_adapter.h), registered in src/codecs/dialects.cc.
#include "codecs/common/codec_adapter.h"
#include "codecs/gemini/wire.h"

namespace toolwire::codec {

const Codec& gemini_codec() {
  static const FunctionCodec codec({
      .name = gemini::kDialect,
      .decode_request = &gemini::decode_request,
      .encode_request = &gemini::encode_request,
      .decode_response = &gemini::decode_response,
      .encode_response = &gemini::encode_response,
      .make_stream_decoder = &gemini::make_stream_decoder,
      .make_stream_encoder = &gemini::make_stream_encoder,
      .encode_error = &gemini::encode_error,
      .decode_error = &gemini::decode_error,
  });
  return codec;
}

}  // namespace toolwire::codec
