// libFuzzer: the AWS event-stream frame parser alone (toolwire/dialects/framing/eventstream.h).
// Any bytes, split at a byte the input picks and also fed one byte at a
// time: never a crash, the same messages either way, and every message it
// accepts re-encodes to bytes that parse back to the same message. Then the
// input itself framed as a payload (with a header made of its first bytes)
// must round-trip exactly.
#include <cstdio>
#include <cstdlib>
#include <string>
#include <string_view>
#include <vector>

#include "toolwire/dialects/framing/eventstream.h"

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
  using namespace toolwire::dialects;
  const std::string_view input(reinterpret_cast<const char*>(data), size);
  const size_t split = size ? (static_cast<size_t>(data[0]) * 7919u) % (size + 1) : 0;
  const EventStreamLimits limits{.max_message_bytes = 1u << 16, .max_headers_bytes = 4096};

  EventStreamParser two(limits);
  std::vector<EventStreamMessage> a;
  auto st = two.feed(input.substr(0, split), a);
  if (st) st = two.feed(input.substr(split), a);

  EventStreamParser bytewise(limits);
  std::vector<EventStreamMessage> b;
  auto st_b = toolwire::Status::Ok();
  for (size_t i = 0; i < size && st_b; ++i) st_b = bytewise.feed(input.substr(i, 1), b);
  if (st.ok() != st_b.ok() || a != b) {
    std::fprintf(stderr, "chunking changed the result\n");
    std::abort();
  }
  for (const auto& m : a) {
    std::vector<EventStreamHeaderView> hv;
    for (const auto& h : m.headers) hv.push_back({h.name, h.type, h.number, h.text});
    std::string bytes;
    append_event_stream_message(bytes, hv, m.payload);
    EventStreamParser p;
    std::vector<EventStreamMessage> back;
    if (!p.feed(bytes, back).ok() || back.size() != 1 || back[0] != m) std::abort();
  }

  // Encode → parse: a string header from the input's first bytes, the rest as payload.
  const std::string_view name =
      input.substr(0, std::min<size_t>(size, 1 + (size ? data[0] % 40 : 0)));
  std::string framed;
  if (!name.empty()) {
    append_event_stream_message(framed,
                                {{name, input.substr(0, std::min<size_t>(size, 300))},
                                 {"n", HeaderType::long_, static_cast<int64_t>(size)}},
                                input);
  } else {
    append_event_stream_message(framed, {}, input);
  }
  EventStreamParser p;
  std::vector<EventStreamMessage> back;
  if (!p.feed(framed, back).ok() || back.size() != 1 || back[0].payload != input ||
      p.has_partial_message())
    std::abort();
  return 0;
}
