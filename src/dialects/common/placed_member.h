// placed_member.h — a member of a nested object that the IR has no field for
// (an Anthropic block's `cache_control` or `citations`, a tool's
// `defer_loading`...), kept as an extra field of the request so that its own
// dialect writes it back into the same object and every other dialect drops it
// with a warning at its path (request_tail.h), instead of losing it silently.
//
// Such an extra ("placed member") has
//  - key: the member's JSON path in the source request, e.g.
//    "$.messages[3].content[1].cache_control" (a key no top-level field has);
//  - raw_json: [where, i, j, value]: what carries it (kPlacedSystem: system
//    part i; kPlacedTool: tool definition i; kPlacedPart: part j of message i,
//    IR indices, or of a response's content when i is 0; kPlacedPartInner:
//    the object inside that part that the key names, e.g. a Gemini part's
//    functionResponse; kPlacedSystemBlock: a whole system block (the key its
//    path, the value the block) written before system part i, e.g. a
//    Bedrock cachePoint; kPlacedResultBlock: block k of the content of
//    the tool result that is part j of message i, j and k packed by
//    result_block_slot(), e.g. an Anthropic cache_control there; kPlacedFixed: the
//    object the key names, e.g. a response's "$.usage" or
//    "$.choices[0].message"), then the member's value as it came.
// Only decoders whose encoder places them back create them; none is made on
// the common path (a request without such members has none).
#pragma once

#include <charconv>
#include <string>
#include <string_view>
#include <vector>

#include "toolwire/core/json_writer.h"

namespace toolwire::dialects {

enum PlacedWhere {
  kPlacedSystem = 0,
  kPlacedTool = 1,
  kPlacedPart = 2,
  kPlacedFixed = 3,
  kPlacedPartInner = 4,
  kPlacedSystemBlock = 5,
  kPlacedResultBlock = 6
};

// The `j` of a kPlacedResultBlock member: block `k` of the content of part
// `part` (a tool result's content is short: 2^20 blocks is no limit).
constexpr size_t kResultBlockBits = 20;
inline size_t result_block_slot(size_t part, size_t k) { return (part << kResultBlockBits) | k; }

inline bool is_placed_key(std::string_view key) { return key.starts_with("$."); }

// The member's name: the key's last segment.
inline std::string_view placed_member_name(std::string_view key) {
  const size_t dot = key.rfind('.');
  return dot == std::string_view::npos ? key : key.substr(dot + 1);
}

// The raw_json of a placed member.
inline std::string placed_raw(PlacedWhere where, size_t i, size_t j, std::string_view value) {
  std::string raw;
  raw.reserve(value.size() + 16);
  raw.push_back('[');
  raw.append(std::to_string(static_cast<int>(where)));
  raw.push_back(',');
  raw.append(std::to_string(i));
  raw.push_back(',');
  raw.append(std::to_string(j));
  raw.push_back(',');
  raw.append(value);
  raw.push_back(']');
  return raw;
}

struct PlacedMember {
  int where = -1;
  size_t i = 0, j = 0;
  std::string_view name;   // the member's key
  std::string_view value;  // its raw JSON
  std::string_view path;   // the extra's key
  bool written = false;
};

// The placed members among `extra` (a same-dialect request's), in order.
template <class Extras>
std::vector<PlacedMember> collect_placed(const Extras& extra) {
  std::vector<PlacedMember> out;
  for (const auto& x : extra) {
    const std::string_view key = x.key;
    if (!is_placed_key(key)) continue;
    const std::string_view raw = x.raw_json;
    if (raw.size() < 9 || raw.front() != '[' || raw.back() != ']') continue;
    PlacedMember m;
    const char* p = raw.data() + 1;
    const char* end = raw.data() + raw.size() - 1;
    auto num = [&](auto& v) {
      auto [q, ec] = std::from_chars(p, end, v);
      if (ec != std::errc() || q == end || *q != ',') return false;
      p = q + 1;
      return true;
    };
    if (!num(m.where) || !num(m.i) || !num(m.j)) continue;
    m.value = std::string_view(p, static_cast<size_t>(end - p));
    m.name = placed_member_name(key);
    m.path = key;
    out.push_back(m);
  }
  return out;
}

// True when a placed member's value says nothing: null, false, an empty
// array or object, or one whose numbers are all 0 and that holds no string
// value (`annotations: []`, `completion_tokens_details` of zeros). Another
// dialect drops such a member without a warning: nothing is lost.
inline bool placed_value_is_empty(std::string_view raw) {
  // raw: [where,i,j,value]; the value follows the third comma.
  size_t at = 0;
  for (int commas = 0; commas < 3; ++at) {
    if (at >= raw.size()) return false;
    commas += raw[at] == ',';
  }
  bool in_string = false, escaped = false;
  for (size_t k = at; k + 1 < raw.size(); ++k) {  // the closing ']' is the list's
    const char c = raw[k];
    if (in_string) {
      if (escaped) {
        escaped = false;
      } else if (c == '\\') {
        escaped = true;
      } else if (c == '"') {
        in_string = false;
        size_t n = k + 1;  // a key is followed by ':'; anything else is a string value
        while (n < raw.size() && (raw[n] == ' ' || raw[n] == '\n')) ++n;
        if (n >= raw.size() || raw[n] != ':') return false;
      }
    } else if (c == '"') {
      in_string = true;
    } else if ((c >= '1' && c <= '9') || c == 't') {
      return false;  // a count, a number other than 0, true
    }
  }
  return true;
}

// Writes, inside the object being written, the members placed on (where, i,
// j) and marks them written.
inline void write_placed(std::vector<PlacedMember>& placed, int where, size_t i, size_t j,
                         JsonWriter& w) {
  for (PlacedMember& m : placed)
    if (!m.written && m.where == where && m.i == i && m.j == j) {
      w.field_raw(m.name, m.value);
      m.written = true;
    }
}
// Writes, inside the object at `object_path` ("$.usage"), the kPlacedFixed
// members placed there and marks them written.
inline void write_placed_in(std::vector<PlacedMember>& placed, std::string_view object_path,
                            JsonWriter& w) {
  for (PlacedMember& m : placed)
    if (!m.written && m.where == kPlacedFixed &&
        m.path.size() == object_path.size() + 1 + m.name.size() &&
        m.path.starts_with(object_path) && m.path[object_path.size()] == '.') {
      w.field_raw(m.name, m.value);
      m.written = true;
    }
}
inline bool has_placed(const std::vector<PlacedMember>& placed, int where, size_t i, size_t j) {
  for (const PlacedMember& m : placed)
    if (m.where == where && m.i == i && m.j == j) return true;
  return false;
}
// Whether a block of the content of the tool result at part j of message i
// has placed members.
inline bool has_placed_result_blocks(const std::vector<PlacedMember>& placed, size_t i, size_t j) {
  for (const PlacedMember& m : placed)
    if (m.where == kPlacedResultBlock && m.i == i && (m.j >> kResultBlockBits) == j) return true;
  return false;
}

// Where an encoder writing one object looks for its placed members: none
// (the common case) unless `placed` is set.
struct PlaceAt {
  std::vector<PlacedMember>* placed = nullptr;
  int where = kPlacedPart;
  size_t i = 0, j = 0;
  void write(JsonWriter& w) const {
    if (placed) [[unlikely]]
      write_placed(*placed, where, i, j, w);
  }
  // The members of the object inside the part (kPlacedPartInner).
  void write_inner(JsonWriter& w) const {
    if (placed) [[unlikely]]
      write_placed(*placed, kPlacedPartInner, i, j, w);
  }
};

}  // namespace toolwire::dialects
