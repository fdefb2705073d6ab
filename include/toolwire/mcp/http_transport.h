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
// Resuming: an SSE answer that ends (closed by the server, or cut) before the
// response to its request came is resumed with a GET carrying `Last-Event-ID`
// (the last event ID the stream gave) after the stream's `retry` delay
// (else `reconnect_delay`), as often as `max_reconnects` in a row without a
// new event; a stream that gave no event ID cannot be resumed and its request
// fails at once (not at its deadline). Priming events (an ID, empty data) are
// not delivered.
//
// The GET stream: after initialize, start_listening() opens the optional
// server-to-client SSE stream (405: the server has none, nothing more is
// tried); when it ends it is reopened with `Last-Event-ID` after the retry
// delay, and given up after `max_reconnects` openings in a row that brought
// no event.
#pragma once

#include <condition_variable>
#include <functional>
#include <map>
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
  bool listen = true;                               // open the GET stream after initialize
  std::chrono::milliseconds reconnect_delay{1000};  // when the server sent no `retry`
  int max_reconnects = 5;
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
  void start_listening() override;

  std::string session_id() const;

  struct Stream;

 private:
  HttpTransport() = default;
  void timer_loop();
  void fail_request(const std::string& id_json, const std::string& why);
  void end(std::string reason);
  transport::HttpRequest request(std::string method);
  void get(std::shared_ptr<Stream> s);
  void stream_ended(const std::shared_ptr<Stream>& s, const Status& st);
  void reconnect(const std::shared_ptr<Stream>& s, const std::string& why);
  void schedule(Clock::time_point at, std::function<void()> fn);

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
  bool listening_ = false;
  std::multimap<Clock::time_point, std::function<void()>> scheduled_;  // reconnects
  std::thread timer_;
};

}  // namespace toolwire::mcp
