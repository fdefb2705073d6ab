// libFuzzer: OpenAI Responses request decode → encode → decode again. Any input may
// fail to decode; what decodes must encode, and the encoding must decode.
#include <cstdio>
#include <cstdlib>
#include <string_view>

#include "toolwire/dialects/codec.h"

namespace toolwire::dialects {
const Codec& openai_responses_codec();
}

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
  using namespace toolwire;
  const dialects::Codec& c = dialects::openai_responses_codec();
  Warnings warnings;
  auto req =
      c.decode_request(std::string_view(reinterpret_cast<const char*>(data), size), warnings);
  if (!req) {
    if (req.error().message.empty()) std::abort();  // errors always say what went wrong
    return 0;
  }
  auto out = c.encode_request(*req, warnings);
  if (!out) std::abort();
  auto again = c.decode_request(*out, warnings);
  if (!again) {
    std::fprintf(stderr, "re-decode failed: %s\n%s\n", again.error().to_string().c_str(),
                 out->c_str());
    std::abort();
  }
  return 0;
}
