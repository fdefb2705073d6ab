// libFuzzer, one target per dialect (fuzz_<dialect>_request): a request body
// round trip (checks.h), and translate_request() into every built-in dialect
// held to decode + encode (translate_check.h).
#include "../translate_check.h"
#include "checks.h"

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
  using namespace toolwire;
  const dialects::Codec& c = fuzz::codec();
  const std::string_view body(reinterpret_cast<const char*>(data), size);
  Warnings warnings;
  fuzz::round_trip(
      body, [&](std::string_view s) { return c.decode_request(s, warnings); },
      [&](const ir::Request& r) { return c.encode_request(r, warnings); });
  for (const dialects::Codec* to : dialects::all_codecs()) fuzz::check_translation(c, *to, body);
  return 0;
}
