#include "textformats/markers.h"

#include <cstring>

namespace toolwire::textformats {

MarkerSet::MarkerSet(std::span<const std::string_view> markers) {
  for (std::string_view m : markers)
    if (!m.empty()) markers_.push_back(m);
  for (std::string_view m : markers_) {
    auto b = static_cast<unsigned char>(m.front());
    if (single_first_ == -1 && m == markers_.front()) single_first_ = b;
    if (single_first_ != b) single_first_ = -2;
    first_[b] = true;
  }
  if (single_first_ < 0) single_first_ = -1;
}

MarkerSet::Hit MarkerSet::find(std::string_view hay, bool final) const {
  const char* data = hay.data();
  size_t i = 0;
  size_t hold = hay.size();
  while (i < hay.size()) {
    if (single_first_ >= 0) {
      const void* p = std::memchr(data + i, single_first_, hay.size() - i);
      if (!p) break;
      i = static_cast<size_t>(static_cast<const char*>(p) - data);
    } else {
      while (i < hay.size() && !first_[static_cast<unsigned char>(data[i])]) ++i;
      if (i == hay.size()) break;
    }
    std::string_view tail = hay.substr(i);
    for (size_t k = 0; k < markers_.size(); ++k) {
      if (tail.starts_with(markers_[k])) {
        // A possible longer marker began earlier: wait for it (same answer
        // however the output is split).
        if (hold < i) return {hold, -1};
        return {i, static_cast<int>(k)};
      }
      if (!final && hold == hay.size() && is_prefix_of(tail, markers_[k])) hold = i;
    }
    ++i;
  }
  return {hold, -1};
}

}  // namespace toolwire::textformats
