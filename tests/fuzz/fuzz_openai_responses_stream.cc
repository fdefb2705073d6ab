// libFuzzer: OpenAI Responses SSE stream decode, fed in two pieces split at a byte
// derived from the data, then finish(). A stream that decodes cleanly is
// re-encoded and that output must decode cleanly too.
#include <cstdio>
#include <cstdlib>
#include <string_view>
#include <vector>

#include "toolwire/dialects/codec.h"

namespace toolwire::dialects {
const Codec& openai_responses_codec();
}

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
  using namespace toolwire;
  const dialects::Codec& c = dialects::openai_responses_codec();
  std::string_view bytes(reinterpret_cast<const char*>(data), size);
  size_t cut = size ? data[0] % (size + 1) : 0;
  auto dec = c.make_stream_decoder();
  std::vector<ir::StreamEvent> events;
  bool ok = dec->feed(bytes.substr(0, cut), events).ok() &&
            dec->feed(bytes.substr(cut), events).ok() && dec->finish(events).ok();
  auto enc = c.make_stream_encoder();
  std::string out;
  for (const auto& e : events) enc->encode(e, out);
  if (!ok) return 0;
  auto again = c.make_stream_decoder();
  std::vector<ir::StreamEvent> events2;
  Status st = again->feed(out, events2);
  if (st) st = again->finish(events2);
  if (!st) {
    std::fprintf(stderr, "re-decode failed: %s\n%s\n", st.error().to_string().c_str(), out.c_str());
    std::abort();
  }
  return 0;
}
