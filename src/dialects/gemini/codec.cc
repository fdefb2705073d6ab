// The Gemini codec: this folder's functions behind the Codec interface
// (dialects/common/codec_adapter.h), registered in src/dialects/dialects.cc.
#include "dialects/common/codec_adapter.h"
#include "dialects/gemini/entry.h"

namespace toolwire::dialects::gemini {

const Codec& codec() {
  static const FunctionCodec instance(TW_CODEC_FUNCTIONS(gemini));
  return instance;
}

}  // namespace toolwire::dialects::gemini
