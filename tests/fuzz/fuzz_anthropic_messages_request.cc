// libFuzzer: Anthropic Messages request decode → encode → decode → encode.
// Any input may fail to decode; what decodes must encode, the encoding must
// decode, and encoding is a fixed point after one pass.
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
  Warnings warnings;
  auto req =
      c.decode_request(std::string_view(reinterpret_cast<const char*>(data), size), warnings);
  if (!req) {
    if (req.error().message.empty()) std::abort();  // errors always say what went wrong
    return 0;
  }
  auto out = c.encode_request(*req, warnings);
  if (!out) {
    std::fprintf(stderr, "encode failed: %s\n", out.error().to_string().c_str());
    std::abort();
  }
  auto again = c.decode_request(*out, warnings);
  if (!again) {
    std::fprintf(stderr, "re-decode failed: %s\n%s\n", again.error().to_string().c_str(),
                 out->c_str());
    std::abort();
  }
  auto out2 = c.encode_request(*again, warnings);
  if (!out2 || *out2 != *out) {
    std::fprintf(stderr, "not a fixed point:\n%s\n%s\n", out->c_str(),
                 out2 ? out2->c_str() : "(error)");
    std::abort();
  }
  return 0;
}
