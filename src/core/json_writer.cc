#include "toolwire/core/json_writer.h"

#include "core/json_escape.h"

#include <algorithm>
#include <charconv>
#include <cmath>
#include <cstdint>
#include <cstring>

#if defined(__SSE2__)
#include <emmintrin.h>
#endif
#if defined(__x86_64__) && (defined(__GNUC__) || defined(__clang__))
#include <immintrin.h>
#define TOOLWIRE_HAVE_AVX2_ESCAPER 1
#endif

namespace toolwire {

namespace {
// 1 for bytes that need escaping inside a JSON string.
constexpr auto kEscape = [] {
  struct T {
    bool v[256];
  } t{};
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
  struct T {
    Escape v[256];
  } t{};
  constexpr char kHex[] = "0123456789abcdef";
  for (int c = 0; c < 0x20; ++c)
    t.v[c] = Escape{{'\\', 'u', '0', '0', kHex[c >> 4], kHex[c & 15]}, 6};
  auto short_form = [&](unsigned char c, char letter) {
    t.v[c] = Escape{{'\\', letter, 0, 0, 0, 0}, 2};
  };
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
      unsigned mask =
          static_cast<unsigned>(_mm_movemask_epi8(_mm_or_si128(_mm_or_si128(quote, slash), ctrl)));
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
        _mm_storeu_si128(reinterpret_cast<__m128i*>(o),
                         _mm_loadu_si128(reinterpret_cast<const __m128i*>(p + done)));
        o += k - done;
        o = write_escape(o, static_cast<unsigned char>(p[k]));
        done = k + 1;
        mask &= mask - 1;
      } while (mask);
      _mm_storeu_si128(reinterpret_cast<__m128i*>(o),
                       _mm_loadu_si128(reinterpret_cast<const __m128i*>(p + done)));
      o += 16 - done;
      p += 16;
      continue;
    }
#endif
    // Shorter runs (most keys, names and short texts are under 32 bytes):
    // 8 bytes per step with SWAR.
    if (end - p >= 8 && olimit - o >= 8) {
      constexpr uint64_t kOnes = 0x0101010101010101ull;
      constexpr uint64_t kHigh = 0x8080808080808080ull;
      uint64_t w;
      std::memcpy(&w, p, 8);
      const uint64_t quote = w ^ (kOnes * '"');
      const uint64_t slash = w ^ (kOnes * '\\');
      const uint64_t hits =
          ((w - kOnes * 0x20) & ~w) | ((quote - kOnes) & ~quote) | ((slash - kOnes) & ~slash);
      if (!(hits & kHigh)) {
        std::memcpy(o, p, 8);
        p += 8;
        o += 8;
        continue;
      }
    }
    const unsigned char c = static_cast<unsigned char>(*p++);
    if (kEscape.v[c])
      o = write_escape(o, c);
    else
      *o++ = static_cast<char>(c);
  }
  return o;
}

// True when no byte of the 8 in `w` needs escaping (exact: a borrow can only
// start at a byte that itself matches).
inline bool word_is_clean(uint64_t w) {
  constexpr uint64_t kOnes = 0x0101010101010101ull;
  constexpr uint64_t kHigh = 0x8080808080808080ull;
  const uint64_t quote = w ^ (kOnes * '"');
  const uint64_t slash = w ^ (kOnes * '\\');
  return !((((w - kOnes * 0x20) & ~w) | ((quote - kOnes) & ~quote) | ((slash - kOnes) & ~slash)) &
           kHigh);
}
inline uint64_t load8(const char* p) {
  uint64_t w;
  std::memcpy(&w, p, 8);
  return w;
}
inline uint64_t load4(const char* p) {
  uint32_t w;
  std::memcpy(&w, p, 4);
  return w;
}

// Whether [p, p + n), n <= 32, needs no escape: a few overlapping loads that
// stay inside the string (first and last 16, 8 or 4 bytes) instead of a loop
// over its bytes. Keys and ids take this path on every write.
inline bool short_is_clean(const char* p, size_t n) {
#if defined(__SSE2__)
  if (n >= 16) {
    auto hits = [](__m128i v) {
      const __m128i quote = _mm_cmpeq_epi8(v, _mm_set1_epi8('"'));
      const __m128i slash = _mm_cmpeq_epi8(v, _mm_set1_epi8('\\'));
      const __m128i ctrl = _mm_cmpeq_epi8(_mm_min_epu8(v, _mm_set1_epi8(0x1f)), v);
      return _mm_or_si128(_mm_or_si128(quote, slash), ctrl);
    };
    const __m128i a = _mm_loadu_si128(reinterpret_cast<const __m128i*>(p));
    const __m128i b = _mm_loadu_si128(reinterpret_cast<const __m128i*>(p + n - 16));
    return _mm_movemask_epi8(_mm_or_si128(hits(a), hits(b))) == 0;
  }
#else
  if (n >= 16) {
    for (size_t i = 0; i + 8 < n; i += 8)
      if (!word_is_clean(load8(p + i))) return false;
    return word_is_clean(load8(p + n - 8));
  }
#endif
  if (n >= 8) return word_is_clean(load8(p)) && word_is_clean(load8(p + n - 8));
  if (n >= 4) return word_is_clean(load4(p) | (load4(p + n - 4) << 32));
  bool clean = true;
  for (size_t i = 0; i < n; ++i) clean &= !kEscape.v[static_cast<unsigned char>(p[i])];
  return clean;
}

#if defined(TOOLWIRE_HAVE_AVX2_ESCAPER)
// Clears the upper halves of the vector registers before going back to code
// built for SSE2. GCC 12 emits no vzeroupper on leaving these target("avx…")
// functions, and on Intel cores every later legacy-SSE instruction (libstdc++'s
// inlined copies, this file's SSE2 loop) then carries a false dependency on
// the dirty upper state: measured on a Xeon with AVX-512, the Anthropic stream
// encoder ran 7x slower after the first escaped string.
__attribute__((target("avx"))) inline void leave_wide_registers() { _mm256_zeroupper(); }

// escape_into with 32-byte blocks, for CPUs with AVX2 (chosen at run time):
// clean text goes twice as fast; a block with escapes is handled the same
// way, from its bitmask. The SSE2 loop finishes the last 63 bytes.
__attribute__((target("avx2"))) char* escape_into_avx2(const char*& p, const char* end, char* o,
                                                       const char* olimit) {
  const __m256i quote = _mm256_set1_epi8('"');
  const __m256i slash = _mm256_set1_epi8('\\');
  const __m256i ctrl_max = _mm256_set1_epi8(0x1f);
  // 64 bytes of input left (a block and the reads past its escapes) and room
  // for 32 bytes that could all become 6, plus a 32-byte store.
  while (end - p >= 64 && olimit - o >= 224) {
    const __m256i v = _mm256_loadu_si256(reinterpret_cast<const __m256i*>(p));
    const __m256i hits =
        _mm256_or_si256(_mm256_or_si256(_mm256_cmpeq_epi8(v, quote), _mm256_cmpeq_epi8(v, slash)),
                        _mm256_cmpeq_epi8(_mm256_min_epu8(v, ctrl_max), v));  // v <= 0x1f
    uint32_t mask = static_cast<uint32_t>(_mm256_movemask_epi8(hits));
    _mm256_storeu_si256(reinterpret_cast<__m256i*>(o), v);
    if (mask == 0) {
      p += 32;
      o += 32;
      continue;
    }
    unsigned done = 0;  // bytes of this block already written
    do {
      const unsigned k = static_cast<unsigned>(__builtin_ctz(mask));
      _mm256_storeu_si256(reinterpret_cast<__m256i*>(o),
                          _mm256_loadu_si256(reinterpret_cast<const __m256i*>(p + done)));
      o += k - done;
      o = write_escape(o, static_cast<unsigned char>(p[k]));
      done = k + 1;
      mask &= mask - 1;
    } while (mask);
    _mm256_storeu_si256(reinterpret_cast<__m256i*>(o),
                        _mm256_loadu_si256(reinterpret_cast<const __m256i*>(p + done)));
    o += 32 - done;
    p += 32;
  }
  leave_wide_registers();
  return escape_into(p, end, o, olimit);
}
#endif

#if defined(TOOLWIRE_HAVE_AVX2_ESCAPER)
#define TOOLWIRE_AVX512_TARGET \
  __attribute__((target("avx512f,avx512bw,avx512vl,avx512vbmi,avx512vbmi2,bmi2,popcnt")))

// Text that is mostly escapes (JSON inside a string: tool arguments, JSON
// tool results) costs the loops above a few cycles per escape. With AVX-512
// VBMI2 a 32-byte block is escaped at once: each byte gets a slot pair
// (backslash, byte), and one compress keeps the backslashes of the bytes that
// need one. Control bytes with a two-byte form (\b \t \n \f \r) have their
// letter swapped in first; a block with any other control byte (\u00XX) is
// left to the SSE2 loop. The last block is loaded masked (no read past the
// end), padded with a byte that needs no escape.
// GCC 12's own permutexvar intrinsics trip its -Wmaybe-uninitialized (their
// unused pass-through operand).
#if defined(__GNUC__) && !defined(__clang__)
#pragma GCC diagnostic push
#pragma GCC diagnostic ignored "-Wmaybe-uninitialized"
#endif
TOOLWIRE_AVX512_TARGET char* escape_into_avx512(const char*& p, const char* end, char* o,
                                                const char* olimit) {
  alignas(32) static constexpr char kLetters[32] = {0, 0,   0,   0, 0, 0, 0, 0, 'b', 't', 'n',
                                                    0, 'f', 'r', 0, 0, 0, 0, 0, 0,   0,   0,
                                                    0, 0,   0,   0, 0, 0, 0, 0, 0,   0};
  alignas(64) static constexpr auto kPairs = [] {  // slot j takes byte j / 2
    struct T {
      char v[64];
    } t{};
    for (int j = 0; j < 64; ++j) t.v[j] = static_cast<char>(j / 2);
    return t;
  }();
  constexpr uint64_t kEven = 0x5555555555555555ull;
  const __m256i letters = _mm256_load_si256(reinterpret_cast<const __m256i*>(kLetters));
  const __m512i pairs = _mm512_load_si512(kPairs.v);
  const __m256i quote = _mm256_set1_epi8('"');
  const __m256i slash = _mm256_set1_epi8('\\');
  const __m256i ctrl_max = _mm256_set1_epi8(0x1f);
  const __m256i filler = _mm256_set1_epi8('a');
  const __m512i backslashes = _mm512_set1_epi8('\\');
  int clean_run = 0;  // blocks in a row with no escape; from two on, try 64 bytes at once
  // Room for a 64-byte store: 32 bytes can become at most 64 here.
  while (p < end && olimit - o >= 64) {
    if (clean_run >= 2 && end - p >= 64) {
      const __m512i v = _mm512_loadu_si512(p);
      if (!(_mm512_cmpeq_epi8_mask(v, _mm512_set1_epi8('"')) |
            _mm512_cmpeq_epi8_mask(v, backslashes) |
            _mm512_cmple_epu8_mask(v, _mm512_set1_epi8(0x1f)))) {
        _mm512_storeu_si512(o, v);
        p += 64;
        o += 64;
        continue;
      }
    }
    const size_t n = std::min<size_t>(32, static_cast<size_t>(end - p));
    const __mmask32 live = n == 32 ? ~__mmask32{0} : static_cast<__mmask32>((1u << n) - 1);
    const __m256i v = _mm256_mask_loadu_epi8(filler, live, p);
    const __mmask32 ctrl = _mm256_cmple_epu8_mask(v, ctrl_max);
    __m256i bytes = v;
    if (ctrl) {
      const __m256i letter = _mm256_permutexvar_epi8(v, letters);
      if (_mm256_mask_cmpeq_epi8_mask(ctrl, letter, _mm256_setzero_si256())) break;  // needs \u00XX
      bytes = _mm256_mask_blend_epi8(ctrl, v, letter);
    }
    const uint32_t escapes = static_cast<uint32_t>(_mm256_cmpeq_epi8_mask(v, quote) |
                                                   _mm256_cmpeq_epi8_mask(v, slash) | ctrl);
    if (escapes == 0) {
      _mm256_storeu_si256(reinterpret_cast<__m256i*>(o), v);
    } else {
      const __m512i slots = _mm512_mask_blend_epi8(
          kEven, _mm512_permutexvar_epi8(pairs, _mm512_castsi256_si512(bytes)), backslashes);
      const uint64_t keep = _pdep_u64(escapes, kEven) | ~kEven;
      _mm512_storeu_si512(o, _mm512_maskz_compress_epi8(keep, slots));
    }
    clean_run = escapes == 0 ? clean_run + 1 : 0;
    p += n;
    o += n + static_cast<size_t>(__builtin_popcount(escapes));
  }
  leave_wide_registers();
  return escape_into(p, end, o, olimit);
}
#if defined(__GNUC__) && !defined(__clang__)
#pragma GCC diagnostic pop
#endif

bool cpu_has_avx512_escaper() {
  return __builtin_cpu_supports("avx512f") && __builtin_cpu_supports("avx512bw") &&
         __builtin_cpu_supports("avx512vl") && __builtin_cpu_supports("avx512vbmi") &&
         __builtin_cpu_supports("avx512vbmi2") && __builtin_cpu_supports("bmi2");
}
#endif

using EscapeFn = char* (*)(const char*&, const char*, char*, const char*);

bool cpu_has_avx2() {
#if defined(TOOLWIRE_HAVE_AVX2_ESCAPER)
  return __builtin_cpu_supports("avx2");
#else
  return false;
#endif
}

bool cpu_has(detail::EscapeIsa isa) {
  switch (isa) {
    case detail::EscapeIsa::portable:
      return true;
    case detail::EscapeIsa::avx2:
      return cpu_has_avx2();
    case detail::EscapeIsa::avx512:
#if defined(TOOLWIRE_HAVE_AVX2_ESCAPER)
      return cpu_has_avx512_escaper();
#else
      return false;
#endif
  }
  return false;
}

EscapeFn escaper_for(detail::EscapeIsa isa) {
#if defined(TOOLWIRE_HAVE_AVX2_ESCAPER)
  if (isa == detail::EscapeIsa::avx512) return escape_into_avx512;
  if (isa == detail::EscapeIsa::avx2) return escape_into_avx2;
#endif
  (void)isa;
  return escape_into;
}

void append_escaped_using(EscapeFn escape, std::string& out, std::string_view s) {
  // Short strings (keys, ids, stream fragments) that need no escape: one copy.
  if (s.size() <= 32 && short_is_clean(s.data(), s.size())) {
    JsonWriter::append_quoted_plain(out, s);
    return;
  }
  out.push_back('"');
  const char* p = s.data();
  const char* end = p + s.size();
  while (p < end) {
    // Room for the rest with one escape per two bytes, plus the block paths'
    // headroom; denser escapes end this round and the loop asks for more.
    const size_t left = static_cast<size_t>(end - p);
    const size_t room = left + left / 2 + 256;
    const size_t base = out.size();
    out.resize_and_overwrite(base + room,
                             [&](char* buf, size_t) {  // (size argument: see append_quoted_plain)
                               char* o = escape(p, end, buf + base, buf + base + room - 6);
                               return static_cast<size_t>(o - buf);
                             });
  }
  out.push_back('"');
}

}  // namespace

namespace detail {

bool escape_isa_available(EscapeIsa isa) { return cpu_has(isa); }

EscapeIsa escape_isa_in_use() {
  static const EscapeIsa isa = cpu_has(EscapeIsa::avx512) ? EscapeIsa::avx512
                               : cpu_has(EscapeIsa::avx2) ? EscapeIsa::avx2
                                                          : EscapeIsa::portable;
  return isa;
}

void append_escaped_with(EscapeIsa isa, std::string& out, std::string_view s) {
  append_escaped_using(escaper_for(isa), out, s);
}

}  // namespace detail

void JsonWriter::append_escaped(std::string& out, std::string_view s) {
  static const EscapeFn escape = escaper_for(detail::escape_isa_in_use());
  append_escaped_using(escape, out, s);
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
