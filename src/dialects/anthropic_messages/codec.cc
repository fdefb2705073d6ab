// The Anthropic Messages codec: this folder's functions behind the Codec interface
// (dialects/common/codec_adapter.h), registered in src/dialects/dialects.cc.
#include "dialects/anthropic_messages/entry.h"
#include "dialects/common/codec_adapter.h"

namespace toolwire::dialects::anthropic_messages {

const Codec& codec() {
  static const FunctionCodec instance(TW_CODEC_FUNCTIONS(anthropic_messages));
  return instance;
}

}  // namespace toolwire::dialects::anthropic_messages
