// The executors of the routes' server tools: one tools::Executor per
// registry, shared by every request that uses it, so that its exclusive
// tools (shell, write, edit) run alone across requests too. A registry an
// MCP server's list_changed replaced keeps its executor until shutdown: a
// request that took it may still be running its calls.
#pragma once

#include <cstddef>
#include <memory>
#include <mutex>
#include <unordered_map>

#include "toolwire/tools/executor.h"
#include "toolwire/tools/registry.h"

namespace toolwire::gateway::routes {

class ToolExecutors {
 public:
  explicit ToolExecutors(size_t workers) : workers_(workers) {}
  // The registry's executor, made on first use (`workers` threads).
  tools::Executor& get(const std::shared_ptr<const tools::Registry>& registry);
  // Waits for the running handlers and ends the executors (at shutdown,
  // after every request is gone; their calls were cancelled with them).
  void join();

 private:
  struct Entry {
    std::shared_ptr<const tools::Registry> registry;  // outlives its executor
    std::unique_ptr<tools::Executor> executor;
  };
  std::mutex mu_;
  size_t workers_;
  std::unordered_map<const tools::Registry*, Entry> executors_;
};

}  // namespace toolwire::gateway::routes
