// libFuzzer: translate_request() against decode + encode. The first byte picks
// the direction (bit 1: Anthropic in, else OpenAI Chat; bit 0: Anthropic out;
// bit 2 / bit 3: OpenAI Responses in / out instead); the rest is the body.
// translate_request runs on the borrowed IR (views + arena), decode + encode
// on the owning IR: both must fail alike or write the same bytes and warnings.
#include "toolwire/dialects/codec.h"
#include "translate_check.h"

namespace toolwire::dialects {
const Codec& openai_chat_codec();
const Codec& anthropic_messages_codec();
const Codec& openai_responses_codec();
}  // namespace toolwire::dialects

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
  using namespace toolwire;
  if (size == 0) return 0;
  const dialects::Codec& openai = dialects::openai_chat_codec();
  const dialects::Codec& anthropic = dialects::anthropic_messages_codec();
  const dialects::Codec& responses = dialects::openai_responses_codec();
  const dialects::Codec& from = (data[0] & 4) ? responses : (data[0] & 2) ? anthropic : openai;
  const dialects::Codec& to = (data[0] & 8) ? responses : (data[0] & 1) ? anthropic : openai;
  const std::string_view body(reinterpret_cast<const char*>(data) + 1, size - 1);

  fuzz::check_translation(from, to, body);
  return 0;
}
