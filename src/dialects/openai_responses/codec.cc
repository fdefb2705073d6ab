// The OpenAI Responses codec: this folder's functions behind the Codec interface
// (dialects/common/codec_adapter.h), registered in src/dialects/dialects.cc.
#include "dialects/common/codec_adapter.h"
#include "dialects/openai_responses/wire.h"

namespace toolwire::dialects {

const Codec& openai_responses_codec() {
  static const FunctionCodec codec(TW_CODEC_FUNCTIONS(openai_responses));
  return codec;
}

}  // namespace toolwire::dialects
