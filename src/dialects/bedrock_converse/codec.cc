// The Bedrock Converse codec: this folder's functions behind the Codec interface
// (dialects/common/codec_adapter.h), registered in src/dialects/dialects.cc.
// Its answers go through the forced-tool unwrapping (forced_output.h): its
// encoder asks for JSON mode with a forced tool.
#include "dialects/bedrock_converse/entry.h"
#include "dialects/common/codec_adapter.h"
#include "dialects/common/forced_output.h"

namespace toolwire::dialects::bedrock_converse {
namespace {

CodecFunctions functions() {
  CodecFunctions f = TW_CODEC_FUNCTIONS(bedrock_converse);
  f.decode_response = &decode_response_unwrapped<&bedrock_converse::decode_response>;
  f.make_stream_decoder = &make_stream_decoder_unwrapped<&bedrock_converse::make_stream_decoder>;
  return f;
}

}  // namespace

const Codec& codec() {
  static const FunctionCodec instance(functions());
  return instance;
}

}  // namespace toolwire::dialects::bedrock_converse
