// arena.h — a per-thread bump arena for the borrowed IR (borrowed_ir.h).
// Private to the codecs.
//
// translate_request() builds an IR that never leaves the call, so its lists
// need not be freed one by one: they are carved from one reused block and
// dropped all at once when the call ends. After the first call on a thread,
// a request no bigger than the largest one seen needs no malloc at all.
//
//   {
//     ArenaScope scope;                    // everything allocated below...
//     Borrowed::Vector<int> v; v.push_back(1);
//   }                                      // ...is released here
//
// Scopes nest (an inner scope releases only what it allocated). Under ASan,
// released memory is poisoned, so a view that outlives its scope is reported.
#pragma once

#include <cstddef>
#include <memory>
#include <string_view>
#include <type_traits>
#include <vector>

namespace toolwire::dialects {

class Arena {
 public:
  Arena() = default;
  Arena(const Arena&) = delete;
  Arena& operator=(const Arena&) = delete;
  ~Arena();

  void* allocate(size_t bytes, size_t align) {
    size_t at = (used_ + align - 1) & ~(align - 1);
    if (at + bytes > size_) [[unlikely]]
      return allocate_slow(bytes, align);
    used_ = at + bytes;
    void* p = block_ + at;
    unpoison(p, bytes);
    return p;
  }

  // A copy of `text` in the arena.
  std::string_view copy(std::string_view text);

  struct Mark {
    size_t used;
    size_t blocks;
  };
  Mark mark() const { return {used_, retired_.size()}; }
  // Frees everything allocated since `m`. At the outermost level the blocks
  // used are merged into one, kept for the next call (up to kKeepMax bytes).
  void release(Mark m, bool outermost);

  static Arena& current();  // this thread's arena

 private:
  static constexpr size_t kFirstBlock = 64 * 1024;
  static constexpr size_t kKeepMax = 8 * 1024 * 1024;

  void* allocate_slow(size_t bytes, size_t align);
  static void unpoison(void* p, size_t n);
  static void poison(void* p, size_t n);

  struct Retired {
    char* block;
    size_t size;
    size_t used;
  };
  char* block_ = nullptr;
  size_t size_ = 0;
  size_t used_ = 0;
  std::vector<Retired> retired_;  // blocks filled before the current one, oldest first
  size_t high_water_ = 0;         // bytes the largest outermost scope took
};

class ArenaScope {
 public:
  ArenaScope() : arena_(Arena::current()), mark_(arena_.mark()), outermost_(depth_++ == 0) {}
  ~ArenaScope() {
    --depth_;
    arena_.release(mark_, outermost_);
  }
  ArenaScope(const ArenaScope&) = delete;
  ArenaScope& operator=(const ArenaScope&) = delete;

 private:
  static thread_local int depth_;
  Arena& arena_;
  Arena::Mark mark_;
  bool outermost_;
};

// A stateless allocator over this thread's arena; deallocation is a no-op.
template <class T>
struct ArenaAllocator {
  // Blocks come from operator new, so offsets are aligned up to its default.
  static_assert(alignof(T) <= __STDCPP_DEFAULT_NEW_ALIGNMENT__,
                "over-aligned types need an aligned arena block");
  using value_type = T;
  using is_always_equal = std::true_type;
  ArenaAllocator() noexcept = default;
  template <class U>
  ArenaAllocator(const ArenaAllocator<U>&) noexcept {}
  T* allocate(size_t n) {
    return static_cast<T*>(Arena::current().allocate(n * sizeof(T), alignof(T)));
  }
  void deallocate(T*, size_t) noexcept {}
  friend bool operator==(ArenaAllocator, ArenaAllocator) noexcept { return true; }
};

}  // namespace toolwire::dialects
