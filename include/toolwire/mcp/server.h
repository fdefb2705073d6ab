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
// Malformed frames get -32700 / -32600 and the connection stays. Batches are
// taken only in a session that negotiated 2025-03-26 (later versions removed
// them; else one -32600): each entry is handled, and the answers go out as
// one array once every request of the batch is answered (requests in their
// order, then the errors for invalid entries; a cancelled request gets an
// error entry so the batch completes).
//
// Notifications the server sends on its own (notify()): progress of a call,
// tools/list_changed. A transport that routes frames per request (HTTP) can
// tell them apart with related_request().
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
  // Announce tools.listChanged (the server's tools may change: replace_tools()).
  bool list_changed = false;
  std::chrono::milliseconds tool_timeout{60000};
  // An executor shared by many servers (one per HTTP session on the gateway);
  // it must run `registry`. Null: the server starts one of its own
  // (max_concurrency workers).
  std::shared_ptr<tools::Executor> executor;
};

class Server {
 public:
  using Writer = std::function<void(std::string frame)>;
  // For frames that belong to one request (its progress notifications): the
  // request's id as JSON text. Unset: they go to the Writer.
  using RelatedWriter = std::function<void(std::string frame, const std::string& request_id)>;
  Server(const tools::Registry& registry, ServerOptions options, Writer writer);
  void set_related_writer(RelatedWriter w) { related_writer_ = std::move(w); }
  // Serves another registry from now on (its tools changed), run by
  // `executor`; calls already running finish on the old ones, which the
  // caller keeps alive. Clients are told with notifications/tools/list_changed.
  void replace_tools(const tools::Registry& registry, std::shared_ptr<tools::Executor> executor);
  ~Server();
  Server(const Server&) = delete;
  Server& operator=(const Server&) = delete;

  void handle_frame(std::string_view frame);
  // One message already parsed (a transport that frames and checks itself).
  void handle_message(const Message& m) { handle(m); }
  // Whether a session may send batches now (negotiated 2025-03-26).
  bool batches_allowed() const;
  // Sends a notification (e.g. notifications/tools/list_changed) through the writer.
  void notify(const std::string& method, nlohmann::json params = nullptr);
  // The transport dropped a frame over its size cap: answer -32600, id null.
  void handle_oversized(size_t limit);
  // Cancels running calls (no answers for them) and waits until none of
  // their callbacks runs any more (an own executor: also for the handlers).
  void shutdown();

  std::string protocol_version() const;
  // A session initialized elsewhere (another gateway replica): serves as if
  // it had answered initialize with `version`.
  void restore(std::string version);
  size_t running_calls() const;

 private:
  void handle(const Message& m);
  void reply(const Message& m);
  void write(std::string frame);
  struct Batch;
  std::map<std::string, std::shared_ptr<Batch>> batch_of_;  // request id (JSON text) → batch
  Message initialize(const Message& m);
  Message list_tools(const Message& m);
  void call_tool(const Message& m);

  const tools::Registry* registry_;
  ServerOptions opts_;
  Writer writer_;
  RelatedWriter related_writer_;
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
  // Progress reports of running calls reach the server through this, cleared
  // at shutdown (they run on other threads: an MCP client's reader).
  struct Alive {
    std::mutex mu;
    Server* server = nullptr;
  };
  std::shared_ptr<Alive> alive_;
};

}  // namespace toolwire::mcp
