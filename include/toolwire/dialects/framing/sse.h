// toolwire/dialects/framing/sse.h — incremental Server-Sent Events framing.
//
// Parses `text/event-stream` bytes fed in any chunking (a byte at a time
// works) in time linear in the input: each byte is looked at once, and only
// an incomplete trailing line is buffered. Follows the WHATWG rules: LF, CR or
// CRLF line ends, `field: value` with one optional space stripped, repeated
// `data:` lines joined by "\n", comment lines (":") and unknown fields ignored,
// an event dispatched at a blank line only when it has data.
#pragma once

#include <cstddef>
#include <string>
#include <string_view>
#include <vector>

#include "toolwire/core/result.h"

namespace toolwire::dialects {

struct SseEvent {
  std::string event;  // "" when the event had no `event:` field
  std::string data;
  bool operator==(const SseEvent&) const = default;
};

// Receives events as they complete (SseParser::feed's streaming form). The
// event is the parser's own buffer, cleared and reused for the next event, so
// a stream costs no allocation per event: take what you need during the call.
// The sink may modify it (reserve padding for an in-place parse). An error
// stops the parser for good and is returned by feed().
class SseSink {
 public:
  virtual ~SseSink() = default;
  virtual Status on_event(SseEvent& event) = 0;
};

class SseParser {
 public:
  explicit SseParser(size_t max_event_bytes = 16u << 20) : max_event_bytes_(max_event_bytes) {}

  // Appends every event completed by `bytes`. Fails (finally) when one event
  // grows past max_event_bytes.
  Status feed(std::string_view bytes, std::vector<SseEvent>& out);
  // Hands every event completed by `bytes` to `sink` as it completes.
  Status feed(std::string_view bytes, SseSink& sink);

  // True when bytes of an unfinished event are pending (a truncated stream).
  bool has_partial_event() const { return !line_.empty() || has_data_ || !current_.event.empty(); }

  // The stream's last event ID (the `id` field of the last dispatched event,
  // kept across events as the SSE spec says) and its `retry` field in
  // milliseconds (-1: none seen), for resuming a cut stream (MCP).
  const std::string& last_event_id() const { return last_event_id_; }
  long retry_ms() const { return retry_ms_; }

 private:
  Status process_line(std::string_view line, SseSink& sink);

  std::string line_;  // the incomplete last line, if a chunk ended mid-line
  SseEvent current_;
  bool has_data_ = false;
  bool skip_lf_ = false;  // last chunk ended with CR: a leading LF belongs to it
  bool at_start_ = true;  // a UTF-8 BOM is allowed before the first byte
  bool failed_ = false;
  size_t max_event_bytes_;
  std::string id_buffer_, last_event_id_;
  long retry_ms_ = -1;
};

}  // namespace toolwire::dialects
