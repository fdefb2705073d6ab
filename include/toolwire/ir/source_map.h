// toolwire/ir/source_map.h — where a decoded request's messages and parts
// stood in the client's document.
//
// IR positions differ from the client's: leading Chat system messages are
// not IR messages, consecutive Chat tool messages are one, an Anthropic user
// message with tool results is two, a Responses function_call item is a part.
// A request decoder records one span per source message or block it reads;
// an encoder reads the map only when it makes a warning, so that the warning
// names the client's path (`$.messages[1].content[0]`) rather than the IR's.
// Empty for a request built in C++: warnings then name IR positions.
#pragma once

#include <cstdint>
#include <string_view>

namespace toolwire::ir {

// IR parts [first_part, end_part) of IR message `message` came from the
// element `index` of member `key` of source message `source` (`key` itself
// when index is kWhole; the source message when `key` is empty), or from its
// member `inner` (a Chat image part stands for `content[n].image_url`). A
// span with first_part == end_part places the IR message itself.
struct SourceSpan {
  static constexpr uint32_t kWhole = UINT32_MAX;
  uint32_t message = 0;
  uint32_t first_part = 0;
  uint32_t end_part = 0;
  uint32_t source = 0;
  uint32_t index = kWhole;
  std::string_view key;    // a string literal: "content", "parts", "tool_calls"...
  std::string_view inner;  // a string literal; usually empty
};

template <class S>
struct BasicSourceMap {
  std::string_view messages;  // the source's message array (a literal); empty: no map
  uint32_t message_count =
      0;  // the IR messages it was made for: a request edited since is not mapped
  typename S::template Vector<SourceSpan> spans;
  // Where a request came from is not part of what it asks.
  bool operator==(const BasicSourceMap&) const { return true; }
};

}  // namespace toolwire::ir
