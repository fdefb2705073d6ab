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

// The escape sequence of every byte kEscape marks: its bytes and length.
struct Escape {
  char bytes[6];
  unsigned char size;
};
constexpr auto kEscapes = [] {
  struct T { Escape v[256]; } t{};
  constexpr char kHex[] = "0123456789abcdef";
  for (int c = 0; c < 0x20; ++c) t.v[c] = Escape{{'\\', 'u', '0', '0', kHex[c >> 4], kHex[c & 15]}, 6};
  auto short_form = [&](unsigned char c, char letter) { t.v[c] = Escape{{'\\', letter, 0, 0, 0, 0}, 2}; };
  short_form('\b', 'b');
  short_form('\t', 't');
  short_form('\n', 'n');
  short_form('\f', 'f');
  short_form('\r', 'r');
  short_form('"', '"');
  short_form('\\', '\\');
  return t;
}();

// Writes the escape sequence for `c` (a byte kEscape marks) at `o`, which has
// room for 6 bytes; returns the end.
inline char* write_escape(char* o, unsigned char c) {
  const Escape& e = kEscapes.v[c];
  std::memcpy(o, e.bytes, 6);  // a fixed-size copy: one store, no branch on the kind
  return o + e.size;
}

// Escapes [p, end) into [o, olimit + 6): stops when the input is done or the
// output has fewer than 6 bytes of room left. Copies 16 bytes per step with
// SSE2 (8 with SWAR elsewhere); a block with escapes is handled from its
// bitmask, one escape at a time, without going back to single bytes. Prose
// runs at memcpy-like speed and quote-dense JSON text (tool arguments inside a
// string) pays a few cycles per escape.
char* escape_into(const char*& p, const char* end, char* o, const char* olimit) {
  while (p < end && o < olimit) {
#if defined(__SSE2__)
    // 32 bytes of input left (a block and the reads past its escapes) and
    // room for 16 bytes that could all become 6, plus a 16-byte store.
    if (end - p >= 32 && olimit - o >= 112) {
      const __m128i v = _mm_loadu_si128(reinterpret_cast<const __m128i*>(p));
      const __m128i quote = _mm_cmpeq_epi8(v, _mm_set1_epi8('"'));
      const __m128i slash = _mm_cmpeq_epi8(v, _mm_set1_epi8('\\'));
      const __m128i ctrl = _mm_cmpeq_epi8(_mm_min_epu8(v, _mm_set1_epi8(0x1f)), v);  // v <= 0x1f
      unsigned mask = static_cast<unsigned>(_mm_movemask_epi8(_mm_or_si128(_mm_or_si128(quote, slash), ctrl)));
      _mm_storeu_si128(reinterpret_cast<__m128i*>(o), v);
      if (mask == 0) {
        p += 16;
        o += 16;
        continue;
      }
      unsigned done = 0;  // bytes of this block already written
      do {
        const unsigned k = static_cast<unsigned>(__builtin_ctz(mask));
        // The 16 bytes from `done` on: the ones before the escape are kept.
        _mm_storeu_si128(reinterpret_cast<__m128i*>(o), _mm_loadu_si128(reinterpret_cast<const __m128i*>(p + done)));
        o += k - done;
        o = write_escape(o, static_cast<unsigned char>(p[k]));
        done = k + 1;
        mask &= mask - 1;
      } while (mask);
      _mm_storeu_si128(reinterpret_cast<__m128i*>(o), _mm_loadu_si128(reinterpret_cast<const __m128i*>(p + done)));
      o += 16 - done;
      p += 16;
      continue;
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
    // Room for the rest with one escape per two bytes, plus the block path's
    // headroom; denser escapes end this round and the loop asks for more.
    const size_t left = static_cast<size_t>(end - p);
    const size_t room = left + left / 2 + 128;
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
