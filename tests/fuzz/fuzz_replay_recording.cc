// libFuzzer: a recording file of `toolwire serve --replay` (untrusted: it is
// read from a folder a user may have edited or pulled). Any bytes parse into
// an exchange or give an error naming the file; nothing crashes, however
// deep the nesting. An exchange that parsed is written back out and must
// parse again to the same request and response, byte for byte; its request
// key matches itself with no difference.
#include <cstdlib>
#include <string>
#include <string_view>

#include "gateway/replay/normalize.h"
#include "gateway/replay/recording.h"

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
  using namespace toolwire::gateway::replay;
  std::string_view in(reinterpret_cast<const char*>(data), size);
  auto e = parse_exchange(in, "fuzz.json");
  if (!e) {
    if (e.error().message.find("recording fuzz.json") == std::string::npos) std::abort();
    return 0;
  }
  auto again = parse_exchange(to_file(*e), "again.json");
  if (!again) std::abort();
  if (again->method != e->method || again->target != e->target || again->body != e->body ||
      again->status != e->status || again->headers != e->headers ||
      again->chunks.size() != e->chunks.size())
    std::abort();
  for (size_t i = 0; i < e->chunks.size(); ++i)
    if (again->chunks[i].bytes != e->chunks[i].bytes) std::abort();
  RequestKey k = normalize_request(e->method, "http://h" + e->target, e->body);
  if (differ(k, k).count != 0) std::abort();
  return 0;
}
