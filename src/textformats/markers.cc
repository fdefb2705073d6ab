#include "textformats/markers.h"

#include <algorithm>
#include <bit>
#include <cassert>
#include <cstring>

#if defined(__SSE2__)
#include <emmintrin.h>
#endif

namespace toolwire::textformats {

MarkerSet::MarkerSet(std::span<const std::string_view> markers) {
  markers_.reserve(markers.size());
  for (std::string_view m : markers)
    if (!m.empty()) markers_.push_back(m);
  assert(markers_.size() <= 8);
  for (size_t k = 0; k < markers_.size() && k < 8; ++k) {
    auto b = static_cast<unsigned char>(markers_[k].front());
    if (by_first_[b] == 0 && nfirsts_ <= firsts_.size()) {
      if (nfirsts_ < firsts_.size()) firsts_[nfirsts_] = b;
      ++nfirsts_;
    }
    by_first_[b] = static_cast<uint8_t>(by_first_[b] | (1u << k));
  }
  if (nfirsts_ > firsts_.size()) nfirsts_ = 0;
}

[[gnu::always_inline]] inline MarkerSet::Hit MarkerSet::at(std::string_view hay, size_t i,
                                                           bool final, size_t& hold) const {
  std::string_view tail = hay.substr(i);
  for (unsigned bits = by_first_[static_cast<unsigned char>(hay[i])]; bits; bits &= bits - 1) {
    auto k = static_cast<size_t>(std::countr_zero(bits));
    if (tail.starts_with(markers_[k])) {
      // A possible longer marker began earlier: wait for it (same answer
      // however the output is split).
      if (hold < i) return {hold, -1};
      return {i, static_cast<int>(k)};
    }
    if (!final && hold == hay.size() && is_prefix_of(tail, markers_[k])) hold = i;
  }
  return {hay.size(), -1};
}

#if defined(__SSE2__)
template <size_t K>
MarkerSet::Hit MarkerSet::find_few(std::string_view hay, bool final) const {
  const char* data = hay.data();
  const size_t n = hay.size();
  size_t hold = n;
  __m128i f[K];
  for (size_t k = 0; k < K; ++k)
    f[k] = _mm_set1_epi8(static_cast<char>(firsts_[k < nfirsts_ ? k : 0]));
  auto mask16 = [&](size_t i) {
    __m128i v = _mm_loadu_si128(reinterpret_cast<const __m128i*>(data + i));
    __m128i m = _mm_cmpeq_epi8(v, f[0]);
    for (size_t k = 1; k < K; ++k) m = _mm_or_si128(m, _mm_cmpeq_epi8(v, f[k]));
    return m;
  };
  size_t i = 0;
  for (; i + 64 <= n; i += 64) {
    __m128i m0 = mask16(i), m1 = mask16(i + 16), m2 = mask16(i + 32), m3 = mask16(i + 48);
    if (!_mm_movemask_epi8(_mm_or_si128(_mm_or_si128(m0, m1), _mm_or_si128(m2, m3)))) continue;
    uint64_t bits = static_cast<uint64_t>(static_cast<uint32_t>(_mm_movemask_epi8(m0))) |
                    static_cast<uint64_t>(static_cast<uint32_t>(_mm_movemask_epi8(m1))) << 16 |
                    static_cast<uint64_t>(static_cast<uint32_t>(_mm_movemask_epi8(m2))) << 32 |
                    static_cast<uint64_t>(static_cast<uint32_t>(_mm_movemask_epi8(m3))) << 48;
    for (; bits; bits &= bits - 1) {
      size_t j = i + static_cast<size_t>(std::countr_zero(bits));
      if (Hit h = at(hay, j, final, hold); h.which >= 0 || h.pos < n) return h;
    }
  }
  for (; i < n; ++i) {
    if (!by_first_[static_cast<unsigned char>(data[i])]) continue;
    if (Hit h = at(hay, i, final, hold); h.which >= 0 || h.pos < n) return h;
  }
  return {hold, -1};
}
#endif

MarkerSet::Hit MarkerSet::find(std::string_view hay, bool final) const {
  const char* data = hay.data();
  const size_t n = hay.size();
  size_t hold = n;
  if (nfirsts_ == 1) {  // one first byte: memchr to each candidate
    for (size_t i = 0; i < n; ++i) {
      const void* p = std::memchr(data + i, firsts_[0], n - i);
      if (!p) break;
      i = static_cast<size_t>(static_cast<const char*>(p) - data);
      if (Hit h = at(hay, i, final, hold); h.which >= 0 || h.pos < n) return h;
    }
    return {hold, -1};
  }
  if (nfirsts_ == 0 || n < 64) {  // many first bytes, or a few bytes (a token): one by one
    for (size_t i = 0; i < n; ++i) {
      if (!by_first_[static_cast<unsigned char>(data[i])]) continue;
      if (Hit h = at(hay, i, final, hold); h.which >= 0 || h.pos < n) return h;
    }
    return {hold, -1};
  }
#if defined(__SSE2__)
  // A few first bytes: 64 bytes at a time compared with each of them (one
  // pass, whatever their number), then the candidates in order.
  return nfirsts_ == 2 ? find_few<2>(hay, final) : find_few<4>(hay, final);
#else
  // A few first bytes: the next occurrence of each at or after i, searched up
  // to `limit` (limit: none before it). The window doubles as the scan goes,
  // so a byte that comes late or never costs no more than the bytes passed.
  std::array<size_t, 4> next{};
  size_t limit = std::min(n, size_t{256});
  auto seek = [&](size_t k, size_t from) {
    const void* p = from < limit ? std::memchr(data + from, firsts_[k], limit - from) : nullptr;
    next[k] = p ? static_cast<size_t>(static_cast<const char*>(p) - data) : limit;
  };
  for (size_t k = 0; k < nfirsts_; ++k) seek(k, 0);
  while (true) {
    size_t i = limit;
    for (size_t k = 0; k < nfirsts_; ++k) i = std::min(i, next[k]);
    if (i == limit) {  // none in this window
      if (limit == n) break;
      limit = std::min(n, 2 * limit);
      for (size_t k = 0; k < nfirsts_; ++k) seek(k, i);
      continue;
    }
    if (Hit h = at(hay, i, final, hold); h.which >= 0 || h.pos < n) return h;
    for (size_t k = 0; k < nfirsts_; ++k)
      if (next[k] == i) seek(k, i + 1);
  }
  return {hold, -1};
#endif
}

}  // namespace toolwire::textformats
