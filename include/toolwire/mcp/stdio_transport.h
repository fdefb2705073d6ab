// toolwire/mcp/stdio_transport.h — an MCP server as a child process speaking
// newline-delimited JSON-RPC on its stdin/stdout.
//
// start() spawns the server in its own process group (posix_spawnp: argv[0]
// is looked up in PATH; `env` entries add to or override the inherited
// environment) and starts one reader thread that polls its stdout and stderr.
// Each complete stdout line goes to on_line; stderr is kept as a bounded tail
// (for error messages) and handed to on_stderr line by line. When stdout
// closes, on_exit runs once with a description ("exited with status 1",
// "killed by signal 9"). Callbacks run on the reader thread and must not
// block on this transport.
//
// shutdown() is the clean stop the MCP spec asks for: close the server's
// stdin, wait up to `grace` for it to exit, SIGTERM its group, wait `grace`
// again, then SIGKILL. The destructor calls it.
//
// The reader thread also serves as the owner's timer: before each poll it
// asks next_deadline() and calls on_tick() whenever it wakes, so a client
// needs no thread of its own for request deadlines.
#pragma once

#include <sys/types.h>

#include <atomic>
#include <chrono>
#include <functional>
#include <memory>
#include <mutex>
#include <string>
#include <string_view>
#include <thread>
#include <vector>

#include "toolwire/core/result.h"
#include "toolwire/mcp/transport.h"

namespace toolwire::mcp {

struct StdioServerParams {
  std::vector<std::string> argv;  // argv[0]: a name looked up in PATH, or a path
  std::vector<std::string> env;   // "KEY=VALUE": added to / overriding the inherited environment
  std::string cwd;                // empty: ours
  size_t max_message_bytes = 16u << 20;   // longer stdout lines are dropped (on_oversized)
  std::chrono::milliseconds grace{2000};  // close stdin → SIGTERM → SIGKILL
};

using StdioCallbacks = TransportCallbacks;

class StdioTransport final : public Transport {
 public:
  static Result<std::unique_ptr<StdioTransport>> start(const StdioServerParams& params,
                                                       StdioCallbacks callbacks);
  ~StdioTransport() override;
  StdioTransport(const StdioTransport&) = delete;
  StdioTransport& operator=(const StdioTransport&) = delete;

  // Writes one frame and a newline. Thread-safe; fails once the server is gone.
  Status send(std::string_view frame) override;
  // Wakes the reader so it asks next_deadline() again.
  void wake() override;
  // Close stdin, SIGTERM, SIGKILL (see the top). Idempotent; joins the reader.
  void shutdown() override;
  // SIGKILLs the group at once (tests, and a server that must not linger).
  void kill_now();

  bool alive() const override { return alive_.load(); }
  pid_t pid() const override { return pid_; }
  std::string stderr_tail() const override;
  // The exit description once the reader saw stdout close, else empty.
  std::string exit_reason() const;

 private:
  StdioTransport() = default;
  void reader_loop();
  std::string reap(std::chrono::milliseconds wait);

  StdioServerParams params_;
  StdioCallbacks cb_;
  pid_t pid_ = -1;
  int stdin_fd_ = -1, stdout_fd_ = -1, stderr_fd_ = -1, pidfd_ = -1;
  int wake_r_ = -1, wake_w_ = -1;
  std::atomic<bool> alive_{false};
  std::atomic<bool> stopping_{false};
  mutable std::mutex mu_;  // stdin writes, stderr tail, exit reason, reaping
  bool reaped_ = false;
  std::string exit_reason_;
  std::string stderr_tail_;
  std::thread reader_;
};

// Splits a command line into words: spaces separate, single and double quotes
// group, backslash escapes outside single quotes. No expansion of any kind.
Result<std::vector<std::string>> split_command(std::string_view line);

}  // namespace toolwire::mcp
