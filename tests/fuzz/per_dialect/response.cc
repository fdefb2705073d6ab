// libFuzzer, one target per dialect (fuzz_<dialect>_response): the
// error-body reader takes any input, and a response body round trip
// (checks.h).
#include "checks.h"

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
  using namespace toolwire;
  const dialects::Codec& c = fuzz::codec();
  const std::string_view input(reinterpret_cast<const char*>(data), size);
  (void)c.decode_error(static_cast<int>(size % 600), input);
  Warnings warnings;
  fuzz::round_trip(
      input, [&](std::string_view s) { return c.decode_response(s, warnings); },
      [&](const ir::Response& r) { return c.encode_response(r, warnings); });
  return 0;
}
