// libFuzzer: the conductor's frame parser (GET /v1/conductor text frames).
// Any bytes either parse into a frame or give an error with a code; nothing
// crashes, however deep the nesting (the seeds hold frames nested past the
// limit in a tool.result's result and in a session.start tool's parameters).
// A frame that parsed must parse again, to the same type and payload, once
// written back out.
#include <cstdlib>
#include <nlohmann/json.hpp>
#include <string>
#include <string_view>

#include "gateway/conductor/protocol.h"

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
  using namespace toolwire::gateway::conductor;
  std::string_view in(reinterpret_cast<const char*>(data), size);
  ParsedFrame p = parse_frame(in);
  if (p.frame.has_value() == p.error.has_value()) std::abort();  // exactly one of the two
  if (p.error) {
    if (p.error->code.empty()) std::abort();
    return 0;
  }
  const Frame& f = *p.frame;
  nlohmann::json again = {{"id", f.id}, {"type", f.type_name}, {"payload", f.payload}};
  if (!f.session_id.empty()) again["sessionId"] = f.session_id;
  ParsedFrame q = parse_frame(again.dump());
  if (!q.frame || q.frame->type != f.type || q.frame->payload != f.payload) std::abort();
  return 0;
}
