// source_map.h — filling and reading a request's source map
// (toolwire/ir/source_map.h): decoders note where each IR part came from,
// encoders name an IR message or part by the client's path in a warning.
//
// Noting is a push of a few integers per source block, no text; reading
// happens only when a warning's path is written (json::Path::str).
#pragma once

#include <cstdint>
#include <string_view>

#include "dialects/common/json_in.h"
#include "toolwire/ir/request.h"

namespace toolwire::dialects {

// Starts the map of a request whose messages live in the source's array
// `messages` (a literal: "messages", "input", "contents").
template <class S>
void begin_source_map(ir::BasicRequest<S>& req, std::string_view messages) {
  req.source_map.messages = messages;
  req.source_map.spans.clear();
}

// IR message `message`'s parts [first, end) came from source message
// `source`'s member `key`, element `index` (kWhole: the member itself; `key`
// empty: the message); `inner`: a member of that element. A span with
// first == end places the message alone.
template <class S>
void note_source(ir::BasicSourceMap<S>& map, size_t message, size_t first, size_t end,
                 size_t source, std::string_view key = {}, uint32_t index = ir::SourceSpan::kWhole,
                 std::string_view inner = {}) {
  map.spans.push_back(ir::SourceSpan{static_cast<uint32_t>(message), static_cast<uint32_t>(first),
                                     static_cast<uint32_t>(end), static_cast<uint32_t>(source),
                                     index, key, inner});
}
template <class S>
void note_source(ir::BasicRequest<S>& req, size_t message, size_t first, size_t end, size_t source,
                 std::string_view key = {}, uint32_t index = ir::SourceSpan::kWhole,
                 std::string_view inner = {}) {
  note_source(req.source_map, message, first, end, source, key, index, inner);
}

// Notes the parts the last IR message gained since it had `first` (none if
// there is no message), from source message `source`'s `key`[`index`].
template <class S>
void note_last(ir::BasicRequest<S>& req, size_t first, size_t source, std::string_view key = {},
               uint32_t index = ir::SourceSpan::kWhole, std::string_view inner = {}) {
  if (req.messages.empty()) return;
  note_source(req, req.messages.size() - 1, first, req.messages.back().parts.size(), source, key,
              index, inner);
}

// The notes of a source user message whose tool results become an IR tool
// message and the rest an IR user message after it (push_user_message):
// blocks are noted as they are read, their IR message fixed once pushed.
template <class S>
struct SplitNotes {
  ir::BasicSourceMap<S>& map;
  size_t source;
  std::string_view key;  // "content", "parts"
  size_t mark = map.spans.size();

  void block(bool in_tool, size_t first, size_t end, size_t index) {
    note_source(map, in_tool ? 0 : 1, first, end, source, key, static_cast<uint32_t>(index));
  }
  // The messages went to IR index `first` on: the tool message if any, then
  // the user message (if it has parts or there were no results).
  void pushed(size_t first, bool tool, bool user) {
    for (size_t k = mark; k < map.spans.size(); ++k)
      map.spans[k].message = static_cast<uint32_t>(first + (map.spans[k].message == 1 && tool));
    if (tool) note_source(map, first, 0, 0, source);
    if (user) note_source(map, first + tool, 0, 0, source);
  }
};

// Seals the map for the request's messages as decoded.
template <class S>
void end_source_map(ir::BasicRequest<S>& req) {
  req.source_map.message_count = static_cast<uint32_t>(req.messages.size());
}

// The map of a request as an encoder reads it: unplaced (IR paths) if the
// request has none or was edited since it was decoded.
struct SourcePlaces {
  std::string_view messages;
  const ir::SourceSpan* spans = nullptr;
  size_t size = 0;
  // IR message `message` (its part `part`), for a json::Path frame.
  json::SourcePlace at(size_t message, size_t part = ir::SourceSpan::kWhole) const {
    return json::SourcePlace{messages, spans, size, static_cast<uint32_t>(message),
                             static_cast<uint32_t>(part)};
  }
};

template <class S>
SourcePlaces source_places(const ir::BasicRequest<S>& req) {
  const auto& map = req.source_map;
  if (map.messages.empty() || map.message_count != req.messages.size()) return {};
  return SourcePlaces{map.messages, map.spans.data(), map.spans.size()};
}

}  // namespace toolwire::dialects
