// wire.h — test helpers around the public Codec API: fixture loading, OpenAI
// SSE built from the documentation's chunk/delta listings, whole-stream
// decode/encode and accumulation.
#pragma once

#include <string>
#include <vector>

#include "codec_kit.h"
#include "toolwire/dialects/codec.h"
#include "toolwire/ir/accumulator.h"

namespace toolwire::testing {

const dialects::Codec& openai();
const dialects::Codec& anthropic();
// Every built-in codec, from the dialect list: the cross-dialect suites run
// every ordered pair of these.
std::vector<const dialects::Codec*> codecs();
// Fixtures (read_fixture, fixtures_matching, fixture_prefix), encode_stream,
// has_warning and warnings_text: the codec test kit (codec_kit.h).

// `data: <chunk>` events from openai-chat-stream-text.chunks.txt (one JSON per
// line; the "...." elision line skipped) followed by `data: [DONE]`.
std::string openai_sse_from_chunk_lines(const std::string& text);
// A full chunk stream around the documented delta.tool_calls values (one JSON
// per line, `null` = a chunk without tool_calls, which carries the finish).
std::string openai_sse_from_tool_call_deltas(const std::string& jsonl);

struct Decoded {
  std::vector<ir::StreamEvent> events;
  std::string error;  // empty on success: feed and finish both succeeded
};
// Feeds `bytes` in pieces of `chunk` bytes (0 = all at once).
Decoded decode_stream(const dialects::Codec& codec, const std::string& bytes, size_t chunk = 0);
ir::Response accumulate(const std::vector<ir::StreamEvent>& events);

}  // namespace toolwire::testing
