// seen_ids.h — the tool call ids seen so far while decoding a request, to
// check that every tool result answers an earlier call. Private to the codecs.
//
// The ids are views into the parser's DOM (alive for the decode). A short
// list is searched newest first — a result nearly always answers one of the
// latest calls — and a hash set takes over once a long conversation (or a
// hostile input) makes the list long, so checking stays linear overall.
#pragma once

#include <string_view>
#include <unordered_set>
#include <vector>

namespace toolwire::dialects {

class SeenIds {
 public:
  void insert(std::string_view id) {
    if (set_.empty() && list_.size() < kListMax) {
      if (list_.empty()) list_.reserve(kListMax);  // one allocation, not seven doublings
      list_.push_back(id);
      return;
    }
    if (set_.empty()) set_.insert(list_.begin(), list_.end());
    set_.insert(id);
  }

  bool contains(std::string_view id) const {
    if (!set_.empty()) return set_.count(id) > 0;
    for (auto it = list_.rbegin(); it != list_.rend(); ++it)
      if (*it == id) return true;
    return false;
  }

 private:
  static constexpr size_t kListMax = 64;
  std::vector<std::string_view> list_;
  std::unordered_set<std::string_view> set_;
};

}  // namespace toolwire::dialects
