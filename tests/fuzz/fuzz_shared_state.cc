// What the shared state reads from outside: a redis:// URL (command line,
// YAML), the stored-answer bytes read back from Redis
// (src/gateway/shared_state/conversation_codec.h) and a conductor session's
// hash (src/gateway/conductor/durable.h, its fields split on 0x1e here).
// None may crash; what decodes encodes back to the same bytes (a session:
// to a record that decodes the same again).
#include <cstddef>
#include <cstdint>
#include <cstdlib>
#include <map>
#include <string>
#include <string_view>

#include "gateway/conductor/durable.h"
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

  static const char* kFields[] = {"key", "token", "meta", "history", "turn", "calls", "results"};
  std::map<std::string, std::string> fields;
  size_t start = 0;
  for (const char* name : kFields) {
    size_t end = in.find('\x1e', start);
    fields[name] = std::string(
        in.substr(start, end == std::string_view::npos ? in.size() - start : end - start));
    if (end == std::string_view::npos) break;
    start = end + 1;
  }
  if (auto r = gateway::conductor::decode_record(fields)) {
    auto enc = gateway::conductor::encode_record(*r);
    std::map<std::string, std::string> again;
    for (size_t i = 0; i + 1 < enc.size(); i += 2) again[enc[i]] = enc[i + 1];
    auto r2 = gateway::conductor::decode_record(again);
    if (!r2 || r2->seq != r->seq || r2->history != r->history || r2->calls != r->calls ||
        r2->results != r->results || r2->replay != r->replay)
      std::abort();
  }
  return 0;
}
