// Shared helpers for the MCP tests: a client whose every sent frame is
// checked against the MCP schema, and a bounded wait.
#pragma once

#include <gtest/gtest.h>

#include <chrono>
#include <condition_variable>
#include <functional>
#include <memory>
#include <mutex>
#include <string>
#include <vector>

#include "schema_check.h"
#include "toolwire/mcp/client.h"

namespace toolwire::testing {

// Collects schema violations of what the client sends, and log lines.
struct WireLog {
  McpSchema schema;
  std::mutex mu;
  std::vector<std::string> violations;
  std::vector<std::string> logs;
  size_t sent = 0;

  void attach(mcp::ClientOptions& o) {
    o.on_wire = [this](std::string_view dir, std::string_view frame) {
      if (dir != "send") return;
      auto j = nlohmann::json::parse(frame, nullptr, false);
      std::string e = j.is_discarded() ? "not JSON" : schema.check_client_message(j);
      std::lock_guard<std::mutex> lock(mu);
      ++sent;
      if (!e.empty()) violations.push_back(e + " in " + std::string(frame));
    };
    o.on_log = [this](const std::string& line) {
      std::lock_guard<std::mutex> lock(mu);
      logs.push_back(line);
    };
  }
  void expect_clean() {
    std::lock_guard<std::mutex> lock(mu);
    EXPECT_GT(sent, 0u);
    for (const auto& v : violations) ADD_FAILURE() << v;
  }
  bool logged(const std::string& needle) {
    std::lock_guard<std::mutex> lock(mu);
    for (const auto& l : logs)
      if (l.find(needle) != std::string::npos) return true;
    return false;
  }
};

// Waits (bounded) until `pred` holds, re-checking when `notify()` is called.
class Waiter {
 public:
  void notify() {
    std::lock_guard<std::mutex> lock(mu_);
    ++events_;
    cv_.notify_all();
  }
  bool wait(const std::function<bool()>& pred,
            std::chrono::seconds limit = std::chrono::seconds(20)) {
    std::unique_lock<std::mutex> lock(mu_);
    return cv_.wait_for(lock, limit, [&] {
      lock.unlock();
      bool ok = pred();
      lock.lock();
      return ok;
    });
  }

 private:
  std::mutex mu_;
  std::condition_variable cv_;
  int events_ = 0;
};

inline std::string all_text(const nlohmann::json& content) {
  std::string s;
  for (const auto& b : content)
    if (b.value("type", "") == "text") s += b.value("text", "") + "\n";
  return s;
}

}  // namespace toolwire::testing
