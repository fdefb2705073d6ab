// libFuzzer: Anthropic Messages response decode → encode → decode → encode.
#include <cstdio>
#include <cstdlib>
#include <string_view>

#include "toolwire/dialects/codec.h"

namespace toolwire::dialects {
const Codec& anthropic_messages_codec();
}

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
  using namespace toolwire;
  const dialects::Codec& c = dialects::anthropic_messages_codec();
  const std::string_view input(reinterpret_cast<const char*>(data), size);
  Warnings warnings;
  auto resp = c.decode_response(input, warnings);
  if (!resp) {
    if (resp.error().message.empty()) std::abort();
    (void)c.decode_error(400, input);  // the error path must not crash either
    return 0;
  }
  auto out = c.encode_response(*resp, warnings);
  if (!out) std::abort();
  auto again = c.decode_response(*out, warnings);
  if (!again) {
    std::fprintf(stderr, "re-decode failed: %s\n%s\n", again.error().to_string().c_str(),
                 out->c_str());
    std::abort();
  }
  auto out2 = c.encode_response(*again, warnings);
  if (!out2 || *out2 != *out) {
    std::fprintf(stderr, "not a fixed point:\n%s\n%s\n", out->c_str(),
                 out2 ? out2->c_str() : "(error)");
    std::abort();
  }
  return 0;
}
