#include "textformats/markers.h"

#include <algorithm>
#include <cstring>

namespace toolwire::textformats {

MarkerSet::MarkerSet(std::span<const std::string_view> markers) {
  for (std::string_view m : markers)
    if (!m.empty()) markers_.push_back(m);
  for (std::string_view m : markers_) {
    auto b = static_cast<unsigned char>(m.front());
    if (first_[b]) continue;
    first_[b] = true;
    if (nfirsts_ <= firsts_.size()) ++nfirsts_;
    if (nfirsts_ <= firsts_.size()) firsts_[nfirsts_ - 1] = b;
  }
  if (nfirsts_ > firsts_.size()) nfirsts_ = 0;
}

MarkerSet::Hit MarkerSet::find(std::string_view hay, bool final) const {
  const char* data = hay.data();
  const size_t n = hay.size();
  // The next occurrence of each first byte at or after i, searched up to
  // `limit` (limit: none before it). The window doubles as the scan goes, so
  // a byte that comes late or never costs no more than the bytes passed.
  std::array<size_t, 4> next{};
  size_t limit = std::min(n, size_t{256});
  auto seek = [&](size_t k, size_t from) {
    const void* p = from < limit ? std::memchr(data + from, firsts_[k], limit - from) : nullptr;
    next[k] = p ? static_cast<size_t>(static_cast<const char*>(p) - data) : limit;
  };
  for (size_t k = 0; k < nfirsts_; ++k) seek(k, 0);
  size_t i = 0;
  size_t hold = n;
  while (i < n) {
    if (nfirsts_ > 0) {
      i = limit;
      for (size_t k = 0; k < nfirsts_; ++k) i = std::min(i, next[k]);
      if (i == limit) {  // none in this window
        if (limit == n) break;
        limit = std::min(n, 2 * limit);
        for (size_t k = 0; k < nfirsts_; ++k) seek(k, i);
        continue;
      }
    } else {
      while (i < n && !first_[static_cast<unsigned char>(data[i])]) ++i;
      if (i == n) break;
    }
    std::string_view tail = hay.substr(i);
    for (size_t k = 0; k < markers_.size(); ++k) {
      if (tail.starts_with(markers_[k])) {
        // A possible longer marker began earlier: wait for it (same answer
        // however the output is split).
        if (hold < i) return {hold, -1};
        return {i, static_cast<int>(k)};
      }
      if (!final && hold == n && is_prefix_of(tail, markers_[k])) hold = i;
    }
    for (size_t k = 0; k < nfirsts_; ++k)
      if (next[k] == i) seek(k, i + 1);
    ++i;
  }
  return {hold, -1};
}

}  // namespace toolwire::textformats
