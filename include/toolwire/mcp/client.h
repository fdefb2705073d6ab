// toolwire/mcp/client.h — a client session with one MCP server over stdio.
//
//   mcp::ClientOptions o;
//   o.name = "fs";
//   o.server.argv = {"npx", "-y", "some-mcp-server", "/srv/data"};
//   auto c = mcp::Client::create(o);
//   if (Status st = c->connect(); !st) die(st.error());     // spawn + initialize
//   auto tools = c->list_tools();                            // every page
//   auto r = c->call_tool("read_file", {{"path", "a.txt"}}); // Result<CallResult>
//
// connect() spawns the server and runs the handshake: `initialize` asking for
// the newest version we speak (2025-11-25), accepting any version in
// `protocol_versions` the server answers with (else the session fails, as the
// spec says), then `notifications/initialized`.
//
// Requests may be issued from any thread; responses are matched by id, in
// any order. Each request has a deadline; when it passes (or the caller's
// token is cancelled) the request fails and the server gets
// `notifications/cancelled` for it. Server-to-client requests are answered
// (`ping`; anything else: method not found); `notifications/tools/list_changed`
// re-lists the tools in the background and then calls on_tools_changed.
//
// The same over Streamable HTTP: set `http.url` instead of `server`
// (http_transport.h).
//
// A crash fails every pending request with `unavailable` naming how the server
// ended and the tail of its stderr. The next request restarts it (spawn +
// handshake), waiting out a backoff that doubles with each crash in a row
// (restart_backoff .. restart_backoff_max) and resets after a request succeeds.
#pragma once

#include <chrono>
#include <condition_variable>
#include <cstdint>
#include <functional>
#include <map>
#include <memory>
#include <mutex>
#include <optional>
#include <string>
#include <vector>

#include <nlohmann/json.hpp>

#include "toolwire/core/result.h"
#include "toolwire/mcp/http_transport.h"
#include "toolwire/mcp/jsonrpc.h"
#include "toolwire/mcp/stdio_transport.h"
#include "toolwire/tools/tool.h"

namespace toolwire::mcp {

// Protocol versions toolwire speaks, newest first.
const std::vector<std::string>& supported_protocol_versions();

struct ClientOptions {
  std::string name = "mcp";  // for messages: "MCP server 'fs'"
  StdioServerParams server;
  // Streamable HTTP instead of stdio when `http.url` is set (`server` is then unused).
  HttpServerParams http;
  std::vector<std::string> protocol_versions = supported_protocol_versions();
  std::chrono::milliseconds request_timeout{60000};
  std::chrono::milliseconds init_timeout{30000};
  std::chrono::milliseconds restart_backoff{250};
  std::chrono::milliseconds restart_backoff_max{10000};
  // Called (on the reader thread) after a list_changed re-list finished.
  std::function<void()> on_tools_changed;
  // notifications/message and the server's stderr lines.
  std::function<void(const std::string& line)> on_log;
  // Every frame sent ("send") and received ("recv"), for tracing and tests.
  std::function<void(std::string_view direction, std::string_view frame)> on_wire;
};

struct ServerInfo {
  std::string protocol_version;
  nlohmann::json server_info;  // {name, version, ...}
  nlohmann::json capabilities;
  std::string instructions;
};

// One tool as the server lists it.
struct McpTool {
  std::string name;
  std::string title;
  std::string description;
  nlohmann::json input_schema;
  std::optional<nlohmann::json> output_schema;
  nlohmann::json annotations;
};

// A tools/call result as received.
struct CallResult {
  nlohmann::json content = nlohmann::json::array();
  std::optional<nlohmann::json> structured_content;
  bool is_error = false;
  nlohmann::json raw;
};

struct RequestOptions {
  std::optional<std::chrono::milliseconds> timeout;  // else the client's default
  std::optional<tools::CancellationToken> cancel;    // cancel → notifications/cancelled
  // notifications/progress params for this request (a progressToken is sent).
  std::function<void(const nlohmann::json& params)> on_progress;
};

using ResponseCallback = std::function<void(Result<nlohmann::json>)>;

class Client : public std::enable_shared_from_this<Client> {
 public:
  static std::shared_ptr<Client> create(ClientOptions options);
  ~Client();
  Client(const Client&) = delete;
  Client& operator=(const Client&) = delete;

  // Spawns the server and runs the handshake (idempotent while connected).
  Status connect();
  // Clean shutdown of the server (close stdin, SIGTERM, SIGKILL after grace).
  void close();

  // Blocking request; the result object or the error (a JSON-RPC error
  // becomes an Error whose message carries the code and message).
  Result<nlohmann::json> request(const std::string& method, nlohmann::json params,
                                 const RequestOptions& opts = {});
  // Asynchronous form: `done` runs exactly once, on the reader thread or the
  // caller's (never blocking there is the caller's duty).
  void request_async(const std::string& method, nlohmann::json params, const RequestOptions& opts,
                     ResponseCallback done);
  Status notify(const std::string& method, nlohmann::json params = nullptr);

  Status ping(std::optional<std::chrono::milliseconds> timeout = std::nullopt);
  // Every page of tools/list; also the client's cached list afterwards.
  Result<std::vector<McpTool>> list_tools();
  Result<CallResult> call_tool(const std::string& name, const nlohmann::json& arguments,
                               const RequestOptions& opts = {});
  void call_tool_async(const std::string& name, const nlohmann::json& arguments,
                       const RequestOptions& opts, std::function<void(Result<CallResult>)> done);

  const std::string& name() const { return opts_.name; }
  ServerInfo server_info() const;
  // The last listed tools, and a counter bumped at every re-list.
  std::vector<McpTool> tools() const;
  uint64_t tools_generation() const;
  // Times the server was started (1 after the first connect).
  int starts() const;
  // The running server's pid (-1 when none), for tests.
  pid_t pid() const;

 private:
  struct Pending {
    ResponseCallback done;
    Clock::time_point deadline;
    std::string method;
    std::optional<tools::CancellationToken> cancel;
    uint64_t cancel_hook = 0;
    std::function<void(const nlohmann::json&)> on_progress;
    std::string progress_token;
    uint64_t incarnation = 0;
  };

  explicit Client(ClientOptions options);
  Status ensure_started(Clock::time_point deadline);
  Status start_locked(Clock::time_point deadline);
  void on_line(std::string_view line);
  void on_exit(uint64_t incarnation, std::string reason);
  void on_tick();
  Clock::time_point next_deadline();
  void handle(Message m);
  void settle(int64_t id, Result<nlohmann::json> r, bool send_cancel, const std::string& reason);
  Status send(const Message& m);
  void refresh_tools_async();
  void start_request(int64_t id, const std::string& method, nlohmann::json params,
                     const RequestOptions& opts, ResponseCallback done);
  std::string who() const { return "MCP server '" + opts_.name + "'"; }

  ClientOptions opts_;
  std::mutex start_mu_;  // one (re)start at a time
  mutable std::mutex mu_;
  std::shared_ptr<Transport> transport_;
  uint64_t incarnation_ = 0;  // bumped per start; callbacks of an older server are ignored
  bool initialized_ = false;
  bool closed_ = false;
  int starts_ = 0;
  int crashes_in_row_ = 0;
  Clock::time_point last_crash_{};
  std::string last_exit_;
  ServerInfo info_;
  int64_t next_id_ = 1;
  std::map<int64_t, Pending> pending_;
  std::vector<McpTool> tools_;
  uint64_t tools_generation_ = 0;
  bool refreshing_ = false, refresh_again_ = false;
};

// Parses one entry of a tools/list page.
Result<McpTool> parse_tool(const nlohmann::json& t);

}  // namespace toolwire::mcp
