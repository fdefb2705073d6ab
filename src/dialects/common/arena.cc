#include "dialects/common/arena.h"

#include <algorithm>
#include <cstdlib>
#include <cstring>
#include <new>

#if defined(__SANITIZE_ADDRESS__)
#define TOOLWIRE_ASAN 1
#elif defined(__has_feature)
#if __has_feature(address_sanitizer)
#define TOOLWIRE_ASAN 1
#endif
#endif
#ifdef TOOLWIRE_ASAN
#include <sanitizer/asan_interface.h>
#endif

namespace toolwire::dialects {

thread_local int ArenaScope::depth_ = 0;

Arena& Arena::current() {
  thread_local Arena arena;
  return arena;
}

Arena::~Arena() {
  for (auto& r : retired_) ::operator delete(r.block);
  ::operator delete(block_);
}

void Arena::unpoison(void* p, size_t n) {
#ifdef TOOLWIRE_ASAN
  ASAN_UNPOISON_MEMORY_REGION(p, n);
#else
  (void)p, (void)n;
#endif
}

void Arena::poison(void* p, size_t n) {
#ifdef TOOLWIRE_ASAN
  ASAN_POISON_MEMORY_REGION(p, n);
#else
  (void)p, (void)n;
#endif
}

void* Arena::allocate_slow(size_t bytes, size_t align) {
  if (block_) retired_.push_back({block_, size_, used_});
  size_t want = std::max({kFirstBlock, size_ * 2, bytes + align});
  block_ = static_cast<char*>(::operator new(want));
  size_ = want;
  used_ = 0;
  poison(block_, size_);
  return allocate(bytes, align);
}

std::string_view Arena::copy(std::string_view text) {
  if (text.empty()) return {};
  char* p = static_cast<char*>(allocate(text.size(), 1));
  std::memcpy(p, text.data(), text.size());
  return {p, text.size()};
}

void Arena::release(Mark m, bool outermost) {
  if (!outermost) {
    // Free the blocks started inside the scope, then rewind the one it began in.
    while (retired_.size() > m.blocks) {
      ::operator delete(block_);
      Retired r = retired_.back();
      retired_.pop_back();
      block_ = r.block, size_ = r.size, used_ = r.used;
    }
    poison(block_ + m.used, used_ - m.used);
    used_ = m.used;
    return;
  }
  // The outermost scope: everything goes. If the call needed several blocks,
  // replace them with one big enough for it, so the next such call fits.
  size_t total = used_;
  for (auto& r : retired_) total += r.used;
  high_water_ = std::max(high_water_, total);
  if (!retired_.empty()) {
    for (auto& r : retired_) ::operator delete(r.block);
    retired_.clear();
    ::operator delete(block_);
    block_ = nullptr;
    size_ = used_ = 0;
    if (high_water_ <= kKeepMax) {
      size_ = std::max(kFirstBlock, high_water_ + high_water_ / 4);
      block_ = static_cast<char*>(::operator new(size_));
    }
  } else if (size_ > kKeepMax) {  // one huge request must not pin its memory forever
    ::operator delete(block_);
    block_ = nullptr;
    size_ = 0;
  }
  if (high_water_ > kKeepMax) high_water_ = 0;
  used_ = 0;
  if (block_) poison(block_, size_);
}

}  // namespace toolwire::dialects
