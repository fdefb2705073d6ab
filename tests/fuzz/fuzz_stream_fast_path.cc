// libFuzzer, differential: the stream decoders' fast paths (Anthropic
// content_block_delta events, OpenAI chunks around a learnt envelope) against
// their full paths. The first byte picks the dialect; the rest is SSE. The
// stream is decoded as is and "respaced" (a space after every ':' and ','
// outside strings on data lines, which no fast matcher accepts). When the
// original decodes completely, every data line was valid JSON, so the
// respaced stream means the same and must give the same events.
#include <cstdio>
#include <cstdlib>
#include <string>
#include <string_view>
#include <vector>

#include "../support/sse_respace.h"
#include "toolwire/dialects/codec.h"
#include "toolwire/dialects/dialect.h"

namespace {

bool decode(const toolwire::dialects::Codec& c, std::string_view sse,
            std::vector<toolwire::ir::StreamEvent>& events) {
  auto decoder = c.make_stream_decoder();
  toolwire::Status st = decoder->feed(sse, events);
  if (st) st = decoder->finish(events);
  return static_cast<bool>(st);
}

// The raw JSON the events carry (envelope members a decoder keeps, Chat
// logprobs) is the source's text, spaces included: compared without them.
void unspace(toolwire::ir::StreamExtras& x) {
  for (auto& f : x.extra) f.raw_json = toolwire::testing::unspace_json(f.raw_json);
}
void unspace(toolwire::ir::StreamEvent& e) {
  using namespace toolwire::ir;
  if (auto* s = std::get_if<MessageStart>(&e)) unspace(s->extras);
  if (auto* u = std::get_if<UsageEvent>(&e)) unspace(u->extras);
  if (auto* f = std::get_if<Finish>(&e)) unspace(f->extras);
  if (auto* t = std::get_if<TextDelta>(&e))
    t->logprobs = toolwire::testing::unspace_json(t->logprobs);
}

// Error events may quote the event's raw JSON, whose spacing differs.
bool same_events(std::vector<toolwire::ir::StreamEvent> a,
                 std::vector<toolwire::ir::StreamEvent> b) {
  if (a.size() != b.size()) return false;
  for (auto& e : a) unspace(e);
  for (auto& e : b) unspace(e);
  for (size_t i = 0; i < a.size(); ++i) {
    const auto* ea = std::get_if<toolwire::ir::ErrorEvent>(&a[i]);
    const auto* eb = std::get_if<toolwire::ir::ErrorEvent>(&b[i]);
    if (ea && eb ? ea->type != eb->type : !(a[i] == b[i])) return false;
  }
  return true;
}

}  // namespace

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
  using namespace toolwire;
  if (size == 0) return 0;
  const dialects::Codec& c =
      dialects::find_dialect(data[0] % 2 ? "openai_chat" : "anthropic_messages")->codec();
  const std::string_view sse(reinterpret_cast<const char*>(data) + 1, size - 1);
  std::vector<ir::StreamEvent> fast, full;
  if (!decode(c, sse, fast)) return 0;
  const std::string spaced = toolwire::testing::respace(sse);
  if (!decode(c, spaced, full) || !same_events(fast, full)) {
    std::fprintf(stderr, "fast and full paths disagree (%s)\n--- input\n%.*s\n--- respaced\n%s\n",
                 std::string(c.name()).c_str(), static_cast<int>(sse.size()), sse.data(),
                 spaced.c_str());
    std::abort();
  }
  return 0;
}
