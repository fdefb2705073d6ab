// libFuzzer: translate_request() against decode + encode. The first byte picks
// the direction (bit 1: Anthropic in, else OpenAI Chat; bit 0: Anthropic out;
// bit 2 / bit 3: OpenAI Responses in / out instead); the rest is the body.
// translate_request runs on the borrowed IR (views + arena), decode + encode
// on the owning IR: both must fail alike or write the same bytes and warnings.
#include "toolwire/dialects/codec.h"
#include "toolwire/dialects/dialect.h"
#include "translate_check.h"

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
  using namespace toolwire;
  if (size == 0) return 0;
  static const dialects::Codec& openai = dialects::find_dialect("openai_chat")->codec();
  static const dialects::Codec& anthropic = dialects::find_dialect("anthropic_messages")->codec();
  static const dialects::Codec& responses = dialects::find_dialect("openai_responses")->codec();
  const dialects::Codec& from = (data[0] & 4) ? responses : (data[0] & 2) ? anthropic : openai;
  const dialects::Codec& to = (data[0] & 8) ? responses : (data[0] & 1) ? anthropic : openai;
  const std::string_view body(reinterpret_cast<const char*>(data) + 1, size - 1);

  fuzz::check_translation(from, to, body);
  return 0;
}
