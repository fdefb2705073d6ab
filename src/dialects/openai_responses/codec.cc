// The OpenAI Responses codec: this folder's functions behind the Codec interface
// (dialects/common/codec_adapter.h), registered in src/dialects/dialects.cc.
#include "dialects/common/codec_adapter.h"
#include "dialects/openai_responses/entry.h"

namespace toolwire::dialects::openai_responses {

const Codec& codec() {
  static const FunctionCodec instance(TW_CODEC_FUNCTIONS(openai_responses));
  return instance;
}

}  // namespace toolwire::dialects::openai_responses
