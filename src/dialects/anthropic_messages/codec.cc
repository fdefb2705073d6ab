// The Anthropic Messages codec: this folder's functions behind the Codec interface
// (dialects/common/codec_adapter.h), registered in src/dialects/dialects.cc.
#include "dialects/anthropic_messages/wire.h"
#include "dialects/common/codec_adapter.h"

namespace toolwire::dialects {

const Codec& anthropic_messages_codec() {
  static const FunctionCodec codec(TW_CODEC_FUNCTIONS(anthropic_messages));
  return codec;
}

}  // namespace toolwire::dialects
