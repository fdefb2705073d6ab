// libFuzzer, one target per dialect (fuzz_<dialect>_stream): stream decode,
// fed in two pieces split at a byte the input picks, then finish(). The
// encoder takes whatever was decoded, even from a broken stream; a stream
// that decodes completely must re-encode into bytes that decode completely.
#include <cstdio>
#include <cstdlib>
#include <string>
#include <string_view>
#include <vector>

#include "checks.h"

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
  using namespace toolwire;
  const dialects::Codec& c = fuzz::codec();
  const std::string_view input(reinterpret_cast<const char*>(data), size);
  const size_t split = size ? (static_cast<size_t>(data[0]) * 7919u) % (size + 1) : 0;
  auto decoder = c.make_stream_decoder();
  std::vector<ir::StreamEvent> events;
  Status st = decoder->feed(input.substr(0, split), events);
  if (st) st = decoder->feed(input.substr(split), events);
  if (st) st = decoder->finish(events);
  auto encoder = c.make_stream_encoder();
  std::string bytes;
  for (const auto& e : events) encoder->encode(e, bytes);
  if (!st) return 0;
  auto again = c.make_stream_decoder();
  std::vector<ir::StreamEvent> events2;
  Status st2 = again->feed(bytes, events2);
  if (st2) st2 = again->finish(events2);
  if (!st2) {
    // Event-stream bytes are binary: the input libFuzzer saves reproduces it.
    std::fprintf(stderr, "re-decode failed: %s (%zu bytes)\n", st2.error().to_string().c_str(),
                 bytes.size());
    std::abort();
  }
  return 0;
}
