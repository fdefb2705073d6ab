// codec_kit.h — what every codec test needs, once: fixtures from
// tests/data/wire/, SSE built from chunk listings, stream decoding cut at
// chosen offsets or in fixed chunks, stream encoding, readable events and
// warnings. Library `toolwire_dialect_test_kit` (tests/support/CMakeLists.txt);
// namespace toolwire::testing.
//
//   const dialects::Codec& c = *dialects::find_codec("anthropic");
//   StreamResult r = decode_stream_chunked(c, read_fixture("anthropic-messages-stream-text.sse"),
//   7); ASSERT_TRUE(r.status.ok()) << describe(r.events);
#pragma once

#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include "toolwire/dialects/codec.h"
#include "toolwire/ir/stream.h"

namespace toolwire::testing {

// tests/data/wire/<name>; a missing file is a test failure (and "").
std::string read_fixture(const std::string& name);
// One JSON value per line of a fixture, skipping blank lines and the
// documentation's `....` elision line.
std::vector<std::string> fixture_lines(const std::string& name);
// The fixture names that start with `prefix` and end with `suffix`, sorted.
std::vector<std::string> fixtures_matching(const std::string& prefix, const std::string& suffix);
// "openai-chat-": the prefix of a codec's fixtures (its name, '_' → '-').
std::string fixture_prefix(const dialects::Codec& codec);

// `data: <chunk>\n\n` per chunk, then `data: [DONE]\n\n` when `done`.
std::string sse_from_chunks(const std::vector<std::string>& chunks, bool done = true);

struct StreamResult {
  std::vector<ir::StreamEvent> events;
  Status status;      // the first failure of feed or finish
  Warnings warnings;  // the decoder's, after the last feed or finish
};
// Feeds `bytes` cut at `cuts` (ascending offsets), then finish().
StreamResult decode_stream(const dialects::Codec& codec, std::string_view bytes,
                           const std::vector<size_t>& cuts);
// decode_stream's events; its status goes to `final_status`, or must be ok.
std::vector<ir::StreamEvent> decode_stream_events(const dialects::Codec& codec,
                                                  std::string_view bytes,
                                                  const std::vector<size_t>& cuts = {},
                                                  Status* final_status = nullptr);
// Feeds `bytes` in pieces of `chunk` bytes (0: all at once), then finish().
StreamResult decode_stream_chunked(const dialects::Codec& codec, std::string_view bytes,
                                   size_t chunk);
// Encodes `events`; the encoder's warnings are appended to `warnings`.
std::string encode_stream(const dialects::Codec& codec, const std::vector<ir::StreamEvent>& events,
                          Warnings* warnings = nullptr);

// The error of decoding `body` as a request (a test failure when it decodes).
Error decode_request_error(const dialects::Codec& codec, const std::string& body);

// A usage event with these token counts.
ir::UsageEvent usage(std::optional<int64_t> input_tokens, std::optional<int64_t> output_tokens);

// A printable form of events, for readable failures.
std::string describe(const ir::StreamEvent& event);
std::string describe(const std::vector<ir::StreamEvent>& events);

// A warning with `code` (and `path`, unless empty).
bool has_warning(const Warnings& warnings, std::string_view code, std::string_view path = {});
std::string warnings_text(const Warnings& warnings);

}  // namespace toolwire::testing
