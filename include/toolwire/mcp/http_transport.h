// toolwire/mcp/http_transport.h — the Streamable HTTP transport (client side).
//
// Each frame is POSTed to the server's MCP endpoint with
// `Accept: application/json, text/event-stream`. The answer is either one
// JSON message (application/json), an SSE stream whose `data` fields are
// messages (text/event-stream; server requests and notifications may come
// before the response), or 202 Accepted for notifications and responses.
// The `Mcp-Session-Id` the server assigns at initialize is sent on every later
// request, and `MCP-Protocol-Version` once a version is agreed. A request that
// fails at the HTTP level is answered locally with a JSON-RPC error for its
// id, so the caller sees the status; 404 on a session ends the connection
// (on_exit: the session expired). shutdown() DELETEs the session.
//
// Not done: the optional GET stream for server-initiated messages outside a
// request, and resuming a cut SSE stream with Last-Event-ID.
#pragma once

#include <condition_variable>
#include <memory>
#include <mutex>
#include <string>
#include <thread>

#include "toolwire/mcp/transport.h"
#include "toolwire/transport/http_client.h"

namespace toolwire::mcp {

struct HttpServerParams {
  std::string url;                 // the MCP endpoint, e.g. http://127.0.0.1:3001/mcp
  transport::HttpHeaders headers;  // extra headers (Authorization ...); never logged
  std::chrono::milliseconds connect_timeout{10000};
  size_t max_message_bytes = 16u << 20;
};

class HttpTransport final : public Transport {
 public:
  static Result<std::unique_ptr<HttpTransport>> start(const HttpServerParams& params,
                                                      TransportCallbacks callbacks);
  ~HttpTransport() override;

  Status send(std::string_view frame) override;
  void wake() override;
  void shutdown() override;
  bool alive() const override;
  void set_protocol_version(std::string v) override;

  std::string session_id() const;

 private:
  HttpTransport() = default;
  void timer_loop();
  void fail_request(const std::string& id_json, const std::string& why);
  void end(std::string reason);

  HttpServerParams params_;
  TransportCallbacks cb_;
  std::unique_ptr<transport::HttpClient> http_;
  mutable std::mutex mu_;
  std::condition_variable cv_;
  bool stopping_ = false;
  bool alive_ = true;
  bool woken_ = false;
  std::string session_id_;
  std::string protocol_version_;
  std::thread timer_;
};

}  // namespace toolwire::mcp
