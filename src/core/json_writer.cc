#include "toolwire/core/json_writer.h"

#include <charconv>
#include <cmath>
#include <cstdint>
#include <cstring>

#if defined(__SSE2__)
#include <emmintrin.h>
#endif

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

// Writes the escape sequence for `c` (a byte kEscape marks) at `o`; returns the end.
inline char* write_escape(char* o, unsigned char c) {
  static constexpr char kShort[0x60] = {
      0, 0, 0, 0, 0, 0, 0, 0, 'b', 't', 'n', 0, 'f', 'r', 0, 0,  // 0x00-0x0f
      0, 0, 0, 0, 0, 0, 0, 0, 0,   0,   0,   0, 0,   0,   0, 0,  // 0x10-0x1f
      0, 0, '"'};                                                // '"' = 0x22; '\\' below
  o[0] = '\\';
  const char short_form = c == '\\' ? '\\' : (c < sizeof kShort ? kShort[c] : 0);
  if (short_form) {
    o[1] = short_form;
    return o + 2;
  }
  static constexpr char kHex[] = "0123456789abcdef";
  o[1] = 'u';
  o[2] = '0';
  o[3] = '0';
  o[4] = kHex[c >> 4];
  o[5] = kHex[c & 15];
  return o + 6;
}

// Escapes [p, end) into [o, olimit + 6): stops when the input is done or the
// output has fewer than 6 bytes of room left. Copies 16 bytes per step with
// SSE2 (8 with SWAR elsewhere) and only looks at single bytes around an
// escape, so prose runs at memcpy-like speed and quote-heavy JSON text (tool
// arguments inside a string) pays a few cycles per escape.
char* escape_into(const char*& p, const char* end, char* o, const char* olimit) {
  while (p < end && o < olimit) {
#if defined(__SSE2__)
    if (end - p >= 16 && olimit - o >= 16) {
      const __m128i v = _mm_loadu_si128(reinterpret_cast<const __m128i*>(p));
      _mm_storeu_si128(reinterpret_cast<__m128i*>(o), v);
      const __m128i quote = _mm_cmpeq_epi8(v, _mm_set1_epi8('"'));
      const __m128i slash = _mm_cmpeq_epi8(v, _mm_set1_epi8('\\'));
      const __m128i ctrl = _mm_cmpeq_epi8(_mm_min_epu8(v, _mm_set1_epi8(0x1f)), v);  // v <= 0x1f
      const unsigned mask = static_cast<unsigned>(_mm_movemask_epi8(_mm_or_si128(_mm_or_si128(quote, slash), ctrl)));
      if (mask == 0) {
        p += 16;
        o += 16;
        continue;
      }
      const int k = __builtin_ctz(mask);
      p += k;
      o += k;
    }
#else
    if (end - p >= 8 && olimit - o >= 8) {
      constexpr uint64_t kOnes = 0x0101010101010101ull;
      constexpr uint64_t kHigh = 0x8080808080808080ull;
      uint64_t w;
      std::memcpy(&w, p, 8);
      const uint64_t quote = w ^ (kOnes * '"');
      const uint64_t slash = w ^ (kOnes * '\\');
      const uint64_t hits = ((w - kOnes * 0x20) & ~w) | ((quote - kOnes) & ~quote) | ((slash - kOnes) & ~slash);
      if (!(hits & kHigh)) {
        std::memcpy(o, p, 8);
        p += 8;
        o += 8;
        continue;
      }
    }
#endif
    const unsigned char c = static_cast<unsigned char>(*p++);
    if (kEscape.v[c]) o = write_escape(o, c);
    else *o++ = static_cast<char>(c);
  }
  return o;
}
}  // namespace

void JsonWriter::append_escaped(std::string& out, std::string_view s) {
  // Short strings (keys, ids, stream fragments) that need no escape: one copy.
  if (s.size() <= 32) {
    bool clean = true;
    for (unsigned char c : s) clean &= !kEscape.v[c];
    if (clean) {
      const size_t base = out.size();
      const size_t total = base + s.size() + 2;
      // The lambda ignores its size argument: GCC 12's libstdc++ passes the
      // new capacity there, not the size asked for.
      out.resize_and_overwrite(total, [&](char* buf, size_t) {
        buf[base] = '"';
        if (!s.empty()) std::memcpy(buf + base + 1, s.data(), s.size());
        buf[total - 1] = '"';
        return total;
      });
      return;
    }
  }
  out.push_back('"');
  const char* p = s.data();
  const char* end = p + s.size();
  while (p < end) {
    // Room for the rest if nothing needs escaping, plus slack; escapes that
    // outgrow it end this round and the loop asks for more.
    const size_t room = static_cast<size_t>(end - p) + 64;
    const size_t base = out.size();
    out.resize_and_overwrite(base + room, [&](char* buf, size_t) {  // (size argument: see above)
      char* o = escape_into(p, end, buf + base, buf + base + room - 6);
      return static_cast<size_t>(o - buf);
    });
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
