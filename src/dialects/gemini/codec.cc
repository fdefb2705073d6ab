// The Gemini codec: this folder's functions behind the Codec interface
// (dialects/common/codec_adapter.h), registered in src/dialects/dialects.cc.
#include "dialects/common/codec_adapter.h"
#include "dialects/gemini/wire.h"

namespace toolwire::dialects {

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

}  // namespace toolwire::dialects
