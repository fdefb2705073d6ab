#include "gateway/routes/tool_executors.h"

#include <algorithm>

namespace toolwire::gateway::routes {

tools::Executor& ToolExecutors::get(const std::shared_ptr<const tools::Registry>& registry) {
  std::lock_guard lock(mu_);
  Entry& e = executors_[registry.get()];
  if (!e.executor) {
    e.registry = registry;
    e.executor = std::make_unique<tools::Executor>(
        *registry, tools::ExecutorOptions{.max_concurrency = std::max<size_t>(1, workers_)});
  }
  return *e.executor;
}

void ToolExecutors::join() {
  std::unordered_map<const tools::Registry*, Entry> all;
  {
    std::lock_guard lock(mu_);
    all.swap(executors_);
  }
  all.clear();  // each executor's destructor joins its workers
}

}  // namespace toolwire::gateway::routes
