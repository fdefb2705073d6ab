// toolwire/mcp/server.h — a tools::Registry served over MCP (transport-agnostic).
//
//   mcp::Server server(registry, {}, [&](std::string frame) { write_line(frame); });
//   reader: for each frame → server.handle_frame(frame);  EOF → server.shutdown();
//
// Methods: initialize (version negotiation: the client's version when toolwire
// speaks it, else the newest toolwire speaks), ping, tools/list (pages of
// `page_size`, opaque cursors), tools/call, notifications/cancelled,
// notifications/initialized. Anything else that is a request gets -32601.
// tools/call runs on a tools::Executor: arguments are validated against the
// tool's schema and a bad argument, a failing tool or a timeout is an
// `isError` result; an unknown tool or malformed params are JSON-RPC errors
// (-32602). A call the client cancels gets no answer (the spec's SHOULD).
// Malformed frames get -32700 / -32600 and the connection stays; batches are
// refused with one -32600 (no protocol version toolwire speaks allows them).
//
// The writer is called with one frame at a time from the reader's thread or an
// executor thread, never concurrently (the server serialises it).
#pragma once

#include <chrono>
#include <condition_variable>
#include <functional>
#include <map>
#include <memory>
#include <mutex>
#include <string>
#include <string_view>

#include "toolwire/mcp/jsonrpc.h"
#include "toolwire/tools/executor.h"
#include "toolwire/tools/registry.h"

namespace toolwire::mcp {

struct ServerOptions {
  std::string name = "toolwire";
  std::string version = "0";
  std::string instructions;
  size_t page_size = 100;  // tools per tools/list page
  size_t max_concurrency = 4;
  std::chrono::milliseconds tool_timeout{60000};
  // An executor shared by many servers (one per HTTP session on the gateway);
  // it must run `registry`. Null: the server starts one of its own
  // (max_concurrency workers).
  std::shared_ptr<tools::Executor> executor;
};

class Server {
 public:
  using Writer = std::function<void(std::string frame)>;
  Server(const tools::Registry& registry, ServerOptions options, Writer writer);
  ~Server();
  Server(const Server&) = delete;
  Server& operator=(const Server&) = delete;

  void handle_frame(std::string_view frame);
  // One message already parsed (a transport that frames and checks itself).
  void handle_message(const Message& m) { handle(m); }
  // The transport dropped a frame over its size cap: answer -32600, id null.
  void handle_oversized(size_t limit);
  // Cancels running calls (no answers for them) and waits until none of
  // their callbacks runs any more (an own executor: also for the handlers).
  void shutdown();

  std::string protocol_version() const;
  size_t running_calls() const;

 private:
  void handle(const Message& m);
  void reply(const Message& m);
  Message initialize(const Message& m);
  Message list_tools(const Message& m);
  void call_tool(const Message& m);

  const tools::Registry& registry_;
  ServerOptions opts_;
  Writer writer_;
  std::mutex write_mu_;
  mutable std::mutex mu_;
  std::string version_;
  bool shutting_down_ = false;
  struct Running {
    tools::CallHandle handle;
    bool cancelled = false;
  };
  std::map<std::string, std::shared_ptr<Running>> running_;  // by request id (JSON text)
  size_t outstanding_ = 0;  // submitted calls whose on_done has not returned
  std::condition_variable idle_cv_;
  std::shared_ptr<tools::Executor> executor_;
  bool own_executor_ = false;
};

}  // namespace toolwire::mcp
