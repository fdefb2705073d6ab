// libFuzzer: translate_request() against decode + encode. The first byte picks
// the direction (bit 1: Anthropic in, else OpenAI Chat; bit 0: Anthropic out;
// bit 2 / bit 3: OpenAI Responses in / out instead); the rest is the body.
// translate_request runs on the borrowed IR (views + arena), decode + encode
// on the owning IR: both must fail alike or write the same bytes and warnings.
#include <cstdio>
#include <cstdlib>
#include <string>
#include <string_view>

#include "toolwire/dialects/codec.h"

namespace toolwire::dialects {
const Codec& openai_chat_codec();
const Codec& anthropic_messages_codec();
const Codec& openai_responses_codec();
}  // namespace toolwire::dialects

namespace {
std::string codes(const toolwire::Warnings& ws) {
  std::string out;
  for (const auto& w : ws) out += w.code + "@" + w.path + ":" + w.message + "\n";
  return out;
}
}  // namespace

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
  using namespace toolwire;
  if (size == 0) return 0;
  const dialects::Codec& openai = dialects::openai_chat_codec();
  const dialects::Codec& anthropic = dialects::anthropic_messages_codec();
  const dialects::Codec& responses = dialects::openai_responses_codec();
  const dialects::Codec& from = (data[0] & 4) ? responses : (data[0] & 2) ? anthropic : openai;
  const dialects::Codec& to = (data[0] & 8) ? responses : (data[0] & 1) ? anthropic : openai;
  const std::string_view body(reinterpret_cast<const char*>(data) + 1, size - 1);

  Warnings w1, w2;
  auto fast = dialects::translate_request(from, to, body, w1);
  auto req = from.decode_request(body, w2);
  if (!req) {
    if (fast || fast.error().to_string() != req.error().to_string()) {
      std::fprintf(stderr, "decode failed only on the owning path: %s\n",
                   req.error().to_string().c_str());
      std::abort();
    }
    return 0;
  }
  auto slow = to.encode_request(*req, w2, dialects::EncodeOptions{.raw_json_verified = true});
  if (fast.ok() != slow.ok() || (fast && *fast != *slow) ||
      (!fast && fast.error().to_string() != slow.error().to_string()) || codes(w1) != codes(w2)) {
    std::fprintf(stderr,
                 "borrowed and owning translations differ\nborrowed: %s\nowning:   %s\n%s---\n%s",
                 fast ? fast->c_str() : fast.error().to_string().c_str(),
                 slow ? slow->c_str() : slow.error().to_string().c_str(), codes(w1).c_str(),
                 codes(w2).c_str());
    std::abort();
  }
  return 0;
}
