// What the shared state reads from outside: a redis:// URL (command line,
// YAML) and the stored-answer bytes read back from Redis
// (src/gateway/shared_state/conversation_codec.h). Neither may crash; what
// decodes encodes back to the same bytes.
#include <cstddef>
#include <cstdint>
#include <cstdlib>
#include <string_view>

#include "gateway/shared_state/conversation_codec.h"
#include "toolwire/redis/url.h"

using namespace toolwire;

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
  std::string_view in(reinterpret_cast<const char*>(data), size);
  if (auto url = redis::parse_url(in)) {
    // What it accepted names itself the same way again.
    auto again = redis::parse_url(url->to_string());
    if (!again || again->host != url->host || again->port != url->port || again->db != url->db)
      std::abort();
  }
  using namespace gateway::shared_state;
  if (auto m = decode_messages(in))
    if (encode_messages(*m) != in) std::abort();
  if (auto p = decode_parts(in))
    if (encode_parts(*p) != in) std::abort();
  return 0;
}
