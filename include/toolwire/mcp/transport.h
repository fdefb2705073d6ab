// toolwire/mcp/transport.h — what the client needs from a transport: send a
// frame, deliver received frames and the end of the connection through
// TransportCallbacks, and drive the client's deadlines (next_deadline /
// on_tick) from its own thread. Implementations: StdioTransport (a child
// process) and HttpTransport (Streamable HTTP).
#pragma once

#include <sys/types.h>

#include <chrono>
#include <functional>
#include <string>
#include <string_view>

#include "toolwire/core/result.h"

namespace toolwire::mcp {

using Clock = std::chrono::steady_clock;

struct TransportCallbacks {
  std::function<void(std::string_view line)> on_line;  // one JSON-RPC frame
  std::function<void()> on_oversized;
  std::function<void(std::string_view line)> on_stderr;
  std::function<void(std::string reason)> on_exit;
  std::function<Clock::time_point()> next_deadline;  // max(): none
  std::function<void()> on_tick;
};

class Transport {
 public:
  virtual ~Transport() = default;
  // Sends one frame. Thread-safe; fails once the connection is gone.
  virtual Status send(std::string_view frame) = 0;
  // Makes the transport ask next_deadline() again.
  virtual void wake() = 0;
  // Ends the connection cleanly. Idempotent; joins the transport's threads.
  virtual void shutdown() = 0;
  virtual bool alive() const = 0;
  // The server process (stdio) or -1.
  virtual pid_t pid() const { return -1; }
  // The end of the server's stderr (stdio), for error messages.
  virtual std::string stderr_tail() const { return {}; }
  // The version agreed at initialize (HTTP sends it as MCP-Protocol-Version).
  virtual void set_protocol_version(std::string) {}
  // The session is initialized: a transport may open its server-to-client
  // channel now (HTTP: the GET stream).
  virtual void start_listening() {}
};

}  // namespace toolwire::mcp
