// literal_match.h — pieces of the stream decoders' fast paths (events in the
// exact byte layout the APIs write, decoded without a DOM). Private to the codecs.
#pragma once

#include <simdjson.h>

#include <cstdint>
#include <string>
#include <string_view>

#if defined(__SSE2__)
#include <emmintrin.h>
#endif

namespace toolwire::dialects::json {

// True when `body` can stand between the quotes of a JSON string as is and
// means itself: no quote, backslash or control byte, and valid UTF-8.
// Anything else (escapes included) is left to the full path.
inline bool plain_string_body(std::string_view body) {
  bool ascii = true;
  for (unsigned char c : body) {
    if (c == '"' || c == '\\' || c < 0x20) return false;
    ascii &= c < 0x80;
  }
  return ascii || simdjson::validate_utf8(body.data(), body.size());
}

// Reads the body of a JSON string from s[i] (just past its opening quote);
// leaves `i` on the closing quote. A body without escapes comes back as a
// view of `s`; one with only the short escapes (\" \\ \/ \b \f \n \r \t) is
// unescaped into `scratch` and the view points there (model text is full of
// line breaks and quotes: without this, one delta in six would take the DOM).
// False for \u escapes, control bytes, invalid UTF-8 or no closing quote:
// the full path decides (and words) those.
inline bool simple_string(std::string_view s, size_t& i, std::string& scratch,
                          std::string_view& out) {
  const auto* p = reinterpret_cast<const unsigned char*>(s.data());
  size_t j = i;
  bool ascii = true, escaped = false;
  while (j < s.size()) {
#if defined(__SSE2__)
    // 16 bytes at a time while none is a quote, backslash, control or non-ASCII byte.
    const __m128i quote = _mm_set1_epi8('"'), slash = _mm_set1_epi8('\\');
    const __m128i space = _mm_set1_epi8(0x20);
    while (j + 16 <= s.size()) {
      const __m128i v = _mm_loadu_si128(reinterpret_cast<const __m128i*>(p + j));
      // Signed compare: bytes >= 0x80 read as negative, so `v < 0x20` catches them too.
      const __m128i special =
          _mm_or_si128(_mm_or_si128(_mm_cmpeq_epi8(v, quote), _mm_cmpeq_epi8(v, slash)),
                       _mm_cmplt_epi8(v, space));
      const int mask = _mm_movemask_epi8(special);
      if (mask == 0) {
        j += 16;
        continue;
      }
      j += static_cast<size_t>(__builtin_ctz(static_cast<unsigned>(mask)));
      break;
    }
    if (j >= s.size()) break;
#endif
    const unsigned char c = p[j];
    if (c == '"') break;
    if (c == '\\') {
      escaped = true;
      j += 2;
      continue;
    }
    if (c < 0x20) return false;
    ascii &= c < 0x80;
    ++j;
  }
  if (j >= s.size()) return false;
  const std::string_view body = s.substr(i, j - i);
  if (!ascii && !simdjson::validate_utf8(body.data(), body.size())) return false;
  i = j;
  if (!escaped) {
    out = body;
    return true;
  }
  scratch.clear();
  for (size_t k = 0; k < body.size(); ++k) {
    if (body[k] != '\\') {
      const size_t run = body.find('\\', k);
      const size_t end = run == std::string_view::npos ? body.size() : run;
      scratch.append(body.substr(k, end - k));
      k = end - 1;
      continue;
    }
    switch (body[++k]) {  // a backslash is never last: the closing quote follows
      case '"':
        scratch.push_back('"');
        break;
      case '\\':
        scratch.push_back('\\');
        break;
      case '/':
        scratch.push_back('/');
        break;
      case 'b':
        scratch.push_back('\b');
        break;
      case 'f':
        scratch.push_back('\f');
        break;
      case 'n':
        scratch.push_back('\n');
        break;
      case 'r':
        scratch.push_back('\r');
        break;
      case 't':
        scratch.push_back('\t');
        break;
      default:
        return false;  // \u escapes (and invalid ones): the full path
    }
  }
  out = scratch;
  return true;
}

// Reads a JSON non-negative integer of at most `max_digits` digits at
// s[i] ("0" or no leading zero); advances `i` past it. False otherwise.
inline bool small_index(std::string_view s, size_t& i, size_t max_digits, int64_t& value) {
  const size_t first = i;
  value = 0;
  while (i < s.size() && i - first < max_digits && s[i] >= '0' && s[i] <= '9')
    value = value * 10 + (s[i++] - '0');
  return i != first && !(s[first] == '0' && i - first > 1);
}

// The start of the content-block delta layouts: `head`, the block's index,
// `delta`, then the first of `forms` (each with a `head`) that follows.
// Returns that form with `i` just past it, or nullptr.
template <class Form, size_t N>
const Form* match_block_delta(std::string_view d, std::string_view head, std::string_view delta,
                              const Form (&forms)[N], size_t& i, int64_t& index) {
  if (!d.starts_with(head)) return nullptr;
  i = head.size();
  if (!small_index(d, i, 9, index)) return nullptr;
  if (d.substr(i, delta.size()) != delta) return nullptr;
  i += delta.size();
  for (const Form& f : forms)
    if (d.substr(i, f.head.size()) == f.head) {
      i += f.head.size();
      return &f;
    }
  return nullptr;
}

}  // namespace toolwire::dialects::json
