// libFuzzer: Anthropic Messages SSE decode, fed in two pieces split at a byte
// the input picks; a stream that decodes completely must re-encode, and the
// encoder's output must decode completely again.
#include <cstdio>
#include <cstdlib>
#include <string>
#include <string_view>
#include <vector>

#include "toolwire/dialects/codec.h"

namespace toolwire::dialects {
const Codec& anthropic_messages_codec();
}

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
  using namespace toolwire;
  const dialects::Codec& c = dialects::anthropic_messages_codec();
  const std::string_view input(reinterpret_cast<const char*>(data), size);
  const size_t split = size ? (static_cast<size_t>(data[0]) * 7919u) % (size + 1) : 0;
  auto decoder = c.make_stream_decoder();
  std::vector<ir::StreamEvent> events;
  Status st = decoder->feed(input.substr(0, split), events);
  if (st) st = decoder->feed(input.substr(split), events);
  if (st) st = decoder->finish(events);
  auto encoder = c.make_stream_encoder();
  std::string sse;
  for (const auto& e : events) encoder->encode(e, sse);  // never crashes, even on partial streams
  if (!st) return 0;
  auto again = c.make_stream_decoder();
  std::vector<ir::StreamEvent> events2;
  Status st2 = again->feed(sse, events2);
  if (st2) st2 = again->finish(events2);
  if (!st2) {
    std::fprintf(stderr, "re-decode failed: %s\n%s\n", st2.error().to_string().c_str(),
                 sse.c_str());
    std::abort();
  }
  return 0;
}
