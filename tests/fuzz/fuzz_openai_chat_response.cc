// libFuzzer: OpenAI Chat response decode → encode → decode again.
#include <cstdio>
#include <cstdlib>
#include <string_view>

#include "toolwire/dialects/codec.h"

namespace toolwire::dialects {
const Codec& openai_chat_codec();
}

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
  using namespace toolwire;
  const dialects::Codec& c = dialects::openai_chat_codec();
  std::string_view body(reinterpret_cast<const char*>(data), size);
  Warnings warnings;
  auto resp = c.decode_response(body, warnings);
  // The error-body reader takes anything too.
  (void)c.decode_error(size % 600, body);
  if (!resp) return 0;
  auto out = c.encode_response(*resp, warnings);
  if (!out) std::abort();
  auto again = c.decode_response(*out, warnings);
  if (!again) {
    std::fprintf(stderr, "re-decode failed: %s\n%s\n", again.error().to_string().c_str(),
                 out->c_str());
    std::abort();
  }
  return 0;
}
