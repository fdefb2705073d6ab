// The Bedrock Converse codec: this folder's functions behind the Codec
// interface (dialects/common/codec_adapter.h), registered in src/dialects/dialects.cc.
#include "dialects/bedrock_converse/wire.h"
#include "dialects/common/codec_adapter.h"

namespace toolwire::dialects {

const Codec& bedrock_converse_codec() {
  static const FunctionCodec codec(TW_CODEC_FUNCTIONS(bedrock_converse));
  return codec;
}

}  // namespace toolwire::dialects
