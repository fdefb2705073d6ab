// The Bedrock Converse codec: this folder's functions behind the Codec
// interface (dialects/common/codec_adapter.h), registered in src/dialects/dialects.cc.
#include "dialects/bedrock_converse/entry.h"
#include "dialects/common/codec_adapter.h"

namespace toolwire::dialects::bedrock_converse {

const Codec& codec() {
  static const FunctionCodec instance(TW_CODEC_FUNCTIONS(bedrock_converse));
  return instance;
}

}  // namespace toolwire::dialects::bedrock_converse
