// libFuzzer: Bedrock Converse request decode → encode → decode → encode.
// Any input may fail to decode; what decodes must encode, the encoding must
// decode, and encoding is a fixed point after one pass. translate_request()
// into each other built-in dialect (borrowed IR) must write the same bytes
// and warnings as decode + encode (owning IR).
#include <cstdio>
#include <cstdlib>
#include <string>
#include <string_view>

#include "toolwire/dialects/codec.h"

namespace toolwire::dialects {
const Codec& bedrock_converse_codec();
}

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
  using namespace toolwire;
  const dialects::Codec& c = dialects::bedrock_converse_codec();
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
  const std::string_view body(reinterpret_cast<const char*>(data), size);
  for (const dialects::Codec* to : dialects::all_codecs()) {
    Warnings w1, w2;
    auto fast = dialects::translate_request(c, *to, body, w1);
    auto ir = c.decode_request(body, w2);
    if (!ir) std::abort();  // it decoded above
    auto slow = to->encode_request(*ir, w2, dialects::EncodeOptions{.raw_json_verified = true});
    auto text = [](const Warnings& ws) {
      std::string t;
      for (const auto& w : ws) t += w.code + "@" + w.path + ":" + w.message + "\n";
      return t;
    };
    if (fast.ok() != slow.ok() || (fast.ok() && *fast != *slow) || text(w1) != text(w2)) {
      std::fprintf(stderr, "borrowed and owning paths differ into %s\n%s\n%s\n",
                   std::string(to->name()).c_str(), fast ? fast->c_str() : "(error)",
                   slow ? slow->c_str() : "(error)");
      std::abort();
    }
  }
  return 0;
}
