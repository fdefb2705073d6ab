// The Gemini codec: this folder's functions behind the Codec interface
// (dialects/common/codec_adapter.h), registered in src/dialects/dialects.cc.
#include "dialects/common/codec_adapter.h"
#include "dialects/gemini/wire.h"

namespace toolwire::dialects {

const Codec& gemini_codec() {
  static const FunctionCodec codec(TW_CODEC_FUNCTIONS(gemini));
  return codec;
}

}  // namespace toolwire::dialects
