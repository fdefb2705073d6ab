// The OpenAI Chat Completions codec: this folder's functions behind the Codec interface
// (dialects/common/codec_adapter.h), registered in src/dialects/dialects.cc.
#include "dialects/common/codec_adapter.h"
#include "dialects/openai_chat/wire.h"

namespace toolwire::dialects {

const Codec& openai_chat_codec() {
  static const FunctionCodec codec(TW_CODEC_FUNCTIONS(openai_chat));
  return codec;
}

}  // namespace toolwire::dialects
