// Which allocator the executable runs on, for `toolwire --version`.
//
// The libraries leave the allocator to whoever links them; the executable
// links mimalloc where it was built with it (TOOLWIRE_MALLOC, src/cli/
// CMakeLists.txt). The gateway makes about 136 small allocations per request,
// and mimalloc's per-thread free lists serve them in about a third of glibc
// malloc's instructions (docs/benchmarks.md). Asking for its version here also
// keeps the library among the executable's needed ones under --as-needed.
#include "cli/commands.h"

#if defined(TOOLWIRE_WITH_MIMALLOC)
#include <mimalloc.h>
#endif

namespace toolwire::cli {

std::string allocator_name() {
#if defined(TOOLWIRE_WITH_MIMALLOC)
  const int v = mi_version();  // 209: 2.0.9
  return "mimalloc " + std::to_string(v / 100) + "." + std::to_string(v / 10 % 10) + "." +
         std::to_string(v % 10);
#else
  return "system malloc";
#endif
}

}  // namespace toolwire::cli
