// The per-thread arena behind translate_request's borrowed IR: allocations are
// aligned and disjoint, scopes nest and release only their own memory, and a
// call bigger than the first block grows the arena without losing what it
// holds.
#include "dialects/common/arena.h"

#include <gtest/gtest.h>

#include <cstdint>
#include <cstring>
#include <string>
#include <vector>

#if defined(__SANITIZE_ADDRESS__)
#define ARENA_TEST_ASAN 1
#elif defined(__has_feature)
#if __has_feature(address_sanitizer)
#define ARENA_TEST_ASAN 1
#endif
#endif
#ifdef ARENA_TEST_ASAN
#include <sanitizer/asan_interface.h>
#endif

namespace toolwire::dialects {
namespace {

using ArenaVector = std::vector<uint64_t, ArenaAllocator<uint64_t>>;

TEST(Arena, AllocationsAreAlignedAndDoNotOverlap) {
  ArenaScope scope;
  Arena& arena = Arena::current();
  std::vector<std::pair<char*, size_t>> blocks;
  for (size_t i = 1; i < 200; ++i) {
    const size_t align = size_t{1} << (i % 5);  // 1..16
    auto* p = static_cast<char*>(arena.allocate(i, align));
    ASSERT_EQ(reinterpret_cast<uintptr_t>(p) % align, 0u);
    std::memset(p, static_cast<int>(i), i);
    blocks.emplace_back(p, i);
  }
  for (size_t i = 0; i < blocks.size(); ++i)  // each block still holds its own bytes
    for (size_t k = 0; k < blocks[i].second; ++k)
      ASSERT_EQ(static_cast<unsigned char>(blocks[i].first[k]), i + 1);
}

TEST(Arena, CopiesTextAndKeepsItWhileTheScopeLives) {
  ArenaScope scope;
  std::string source = "a view that must not follow its source";
  std::string_view copy = Arena::current().copy(source);
  source.assign(source.size(), 'x');
  EXPECT_EQ(copy, "a view that must not follow its source");
  EXPECT_TRUE(Arena::current().copy("").empty());
}

TEST(Arena, GrowsPastItsFirstBlockAndKeepsEarlierData) {
  ArenaScope scope;
  ArenaVector small{1, 2, 3};
  ArenaVector big;
  for (uint64_t i = 0; i < 300'000; ++i) big.push_back(i);  // ~2.4 MB: many blocks
  ASSERT_EQ(big.size(), 300'000u);
  for (uint64_t i = 0; i < big.size(); i += 997) ASSERT_EQ(big[i], i);
  EXPECT_EQ(small, (ArenaVector{1, 2, 3}));
}

TEST(Arena, InnerScopeReleasesOnlyItsOwnAllocations) {
  ArenaScope outer;
  Arena& arena = Arena::current();
  auto* kept = static_cast<uint64_t*>(arena.allocate(sizeof(uint64_t), alignof(uint64_t)));
  *kept = 42;
  void* inner_first = nullptr;
  {
    ArenaScope inner;
    inner_first = arena.allocate(64, 8);
    for (int i = 0; i < 100; ++i) arena.allocate(100'000, 8);  // forces new blocks inside the scope
  }
  EXPECT_EQ(*kept, 42u);
  // The inner scope's memory is handed out again.
  EXPECT_EQ(arena.allocate(64, 8), inner_first);
}

TEST(Arena, ReusedAcrossCallsAfterABigOne) {
  for (int call = 0; call < 3; ++call) {
    ArenaScope scope;
    ArenaVector v;
    const uint64_t n = call == 0 ? 200'000 : 1'000;
    for (uint64_t i = 0; i < n; ++i) v.push_back(i * 3);
    for (uint64_t i = 0; i < n; i += 101) ASSERT_EQ(v[i], i * 3);
  }
}

#ifdef ARENA_TEST_ASAN
// What the arena promises ASan builds: a view kept past its scope points at
// poisoned memory, so reading it is reported.
TEST(Arena, ReleasedMemoryIsPoisonedUnderAsan) {
  char* p = nullptr;
  {
    ArenaScope scope;
    p = static_cast<char*>(Arena::current().allocate(32, 8));
    EXPECT_FALSE(__asan_address_is_poisoned(p));
  }
  EXPECT_TRUE(__asan_address_is_poisoned(p));
}
#endif

}  // namespace
}  // namespace toolwire::dialects
