#include "toolwire/core/json_writer.h"

#include <charconv>
#include <cmath>
#include <cstdint>
#include <cstring>

namespace toolwire {

namespace {
// 1 for bytes that need escaping inside a JSON string.
constexpr auto kEscape = [] {
  struct T { bool v[256]; } t{};
  for (int c = 0; c < 0x20; ++c) t.v[c] = true;
  t.v[static_cast<unsigned char>('"')] = true;
  t.v[static_cast<unsigned char>('\\')] = true;
  return t;
}();

// Position of the first byte in [p, end) that needs escaping, or end. Scans
// eight bytes per step (SWAR): a word is skipped when it has no byte < 0x20,
// no '"' and no '\\' — the common case for prose, code and JSON text.
const char* find_escape(const char* p, const char* end) {
  constexpr uint64_t kOnes = 0x0101010101010101ull;
  constexpr uint64_t kHigh = 0x8080808080808080ull;
  while (end - p >= 8) {
    uint64_t w;
    std::memcpy(&w, p, 8);
    const uint64_t quote = w ^ (kOnes * '"');
    const uint64_t slash = w ^ (kOnes * '\\');
    const uint64_t hits = ((w - kOnes * 0x20) & ~w) | ((quote - kOnes) & ~quote) | ((slash - kOnes) & ~slash);
    if (hits & kHigh) break;  // an escape is in this word: find it bytewise
    p += 8;
  }
  while (p < end && !kEscape.v[static_cast<unsigned char>(*p)]) ++p;
  return p;
}
}  // namespace

void JsonWriter::append_escaped(std::string& out, std::string_view s) {
  out.reserve(out.size() + s.size() + 2);
  out.push_back('"');
  const char* p = s.data();
  const char* end = p + s.size();
  while (p < end) {
    const char* run = p;
    p = find_escape(p, end);
    out.append(run, p);
    if (p == end) break;
    const unsigned char c = static_cast<unsigned char>(*p++);
    switch (c) {
      case '"': out.append("\\\""); break;
      case '\\': out.append("\\\\"); break;
      case '\n': out.append("\\n"); break;
      case '\r': out.append("\\r"); break;
      case '\t': out.append("\\t"); break;
      case '\b': out.append("\\b"); break;
      case '\f': out.append("\\f"); break;
      default: {
        static constexpr char hex[] = "0123456789abcdef";
        char buf[6] = {'\\', 'u', '0', '0', hex[c >> 4], hex[c & 15]};
        out.append(buf, 6);
      }
    }
  }
  out.push_back('"');
}

void JsonWriter::number(int64_t n) {
  value_prefix();
  char buf[24];
  auto [end, ec] = std::to_chars(buf, buf + sizeof buf, n);
  out_.append(buf, end);
}

void JsonWriter::number(double d) {
  value_prefix();
  if (!std::isfinite(d)) {  // JSON has no NaN/Infinity
    out_.append("null");
    return;
  }
  char buf[32];
  auto [end, ec] = std::to_chars(buf, buf + sizeof buf, d);
  out_.append(buf, end);
}

}  // namespace toolwire
