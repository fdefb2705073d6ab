// toolwire/dialects/framing/eventstream.h — the `application/vnd.amazon.eventstream`
// binary framing (AWS event streams: Bedrock's ConverseStream), both ways.
//
// One message on the wire, all integers big-endian:
//
//   total length (u32) | headers length (u32) | prelude CRC32 (u32, of the 8 bytes before)
//   headers: name length (u8), name, value type (u8), value — repeated
//   payload
//   message CRC32 (u32, of every byte before it)
//
// Header value types: 0 true, 1 false, 2 byte (i8), 3 short (i16), 4 integer
// (i32), 5 long (i64), 6 byte array (u16 length + bytes), 7 string (u16
// length + UTF-8), 8 timestamp (i64 milliseconds), 9 UUID (16 bytes). The
// CRC is CRC-32/ISO-HDLC (zlib's, reflected polynomial 0xEDB88320).
//
// The parser takes bytes in any chunking, checks both CRCs and every length
// before it trusts them, buffers only an unfinished message and hands each
// message to a sink as it completes (views valid during the call only).
//
//   EventStreamParser parser;
//   std::vector<EventStreamMessage> out;  // owning copies; or feed(bytes, sink)
//   TW_TRY(parser.feed(bytes, out));
//
//   std::string wire;
//   append_event_stream_message(wire, {{":event-type", "messageStart"}},
//   R"({"role":"assistant"})");
#pragma once

#include <cstddef>
#include <cstdint>
#include <initializer_list>
#include <span>
#include <string>
#include <string_view>
#include <vector>

#include "toolwire/core/result.h"

namespace toolwire::dialects {

// CRC-32 (ISO-HDLC) of `bytes`, continuing from `crc` (0 to start).
uint32_t crc32(std::string_view bytes, uint32_t crc = 0);

enum class HeaderType : uint8_t {
  bool_true = 0,
  bool_false = 1,
  byte = 2,
  short_ = 3,
  integer = 4,
  long_ = 5,
  bytes = 6,
  string = 7,
  timestamp = 8,
  uuid = 9,
};

// One header; `text` holds the value of string, byte-array and UUID headers
// (16 raw bytes), `number` that of the integer kinds and timestamps.
struct EventStreamHeaderView {
  std::string_view name;
  HeaderType type = HeaderType::string;
  int64_t number = 0;
  std::string_view text;

  constexpr EventStreamHeaderView() = default;
  // A string header, the common case (":event-type": "messageStart").
  constexpr EventStreamHeaderView(std::string_view n, std::string_view value)
      : name(n), type(HeaderType::string), text(value) {}
  constexpr EventStreamHeaderView(std::string_view n, HeaderType t, int64_t num,
                                  std::string_view value = {})
      : name(n), type(t), number(num), text(value) {}
};

// A parsed message; views into the parser's input or its buffer, valid
// during the sink call only.
struct EventStreamMessageView {
  std::span<const EventStreamHeaderView> headers;
  std::string_view payload;
  // The value of the first string header named `name`; "" when none.
  std::string_view header(std::string_view name) const;
};

// An owning copy (EventStreamParser::feed's vector form, tests).
struct EventStreamHeader {
  std::string name;
  HeaderType type = HeaderType::string;
  int64_t number = 0;
  std::string text;
  bool operator==(const EventStreamHeader&) const = default;
};
struct EventStreamMessage {
  std::vector<EventStreamHeader> headers;
  std::string payload;
  std::string_view header(std::string_view name) const;
  bool operator==(const EventStreamMessage&) const = default;
};

class EventStreamSink {
 public:
  virtual ~EventStreamSink() = default;
  // An error stops the parser for good and is returned by feed().
  virtual Status on_message(const EventStreamMessageView& message) = 0;
};

struct EventStreamLimits {
  size_t max_message_bytes = 16u << 20;  // total length, prelude and CRCs included
  size_t max_headers_bytes = 128u << 10;
};

class EventStreamParser {
 public:
  explicit EventStreamParser(EventStreamLimits limits = {}) : limits_(limits) {}

  // Hands every message completed by `bytes` to `sink`. A bad CRC, a length
  // out of range or a malformed header fails, finally, naming the message's
  // offset in the stream.
  Status feed(std::string_view bytes, EventStreamSink& sink);
  Status feed(std::string_view bytes, std::vector<EventStreamMessage>& out);

  // True when bytes of an unfinished message are pending (a truncated stream).
  bool has_partial_message() const { return !buffer_.empty(); }

 private:
  // Parses the whole message `m` (its length already checked).
  Status message(std::string_view m, EventStreamSink& sink);
  Error fail(std::string message);

  EventStreamLimits limits_;
  std::string buffer_;  // an unfinished message
  std::vector<EventStreamHeaderView> headers_;
  uint64_t offset_ = 0;  // stream offset of the next message's first byte
  bool failed_ = false;
};

// ---- writing ----

// Appends one message. Header names longer than 255 bytes and string or byte
// values longer than 32767 bytes are the caller's bug (checked by assert);
// the codecs write fixed, short headers.
void append_event_stream_message(std::string& out, std::span<const EventStreamHeaderView> headers,
                                 std::string_view payload);
inline void append_event_stream_message(std::string& out,
                                        std::initializer_list<EventStreamHeaderView> headers,
                                        std::string_view payload) {
  append_event_stream_message(out, std::span(headers.begin(), headers.size()), payload);
}

// The same in two steps, for a payload written straight into `out` (no
// copy): begin writes the prelude's place and the headers and returns the
// message's start; the caller appends the payload; end fills in the lengths
// and both CRCs.
size_t begin_event_stream_message(std::string& out, std::span<const EventStreamHeaderView> headers);
void end_event_stream_message(std::string& out, size_t start);

}  // namespace toolwire::dialects
