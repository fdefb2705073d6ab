// The OpenAI Chat Completions codec: this folder's functions behind the Codec interface
// (dialects/common/codec_adapter.h), registered in src/dialects/dialects.cc.
#include "dialects/common/codec_adapter.h"
#include "dialects/openai_chat/entry.h"

namespace toolwire::dialects::openai_chat {

const Codec& codec() {
  static const FunctionCodec instance(TW_CODEC_FUNCTIONS(openai_chat));
  return instance;
}

}  // namespace toolwire::dialects::openai_chat
