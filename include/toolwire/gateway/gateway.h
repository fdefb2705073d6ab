// toolwire/gateway/gateway.h — the gateway server behind `toolwire serve`.
//
// An HTTP/1.1 server on Boost.Beast/Asio with endpoints of every dialect
// in the dialect list (toolwire/dialects/dialect.h) in front of
// any provider. A request is decoded once from the
// caller's dialect into the IR, routed by model to a provider (which encodes
// the upstream's dialect), and the answer — whole or as a stream, event by
// event — is encoded back into the caller's dialect. Errors come back in the
// caller's dialect with the right HTTP status.
//
//   gateway::GatewayOptions opt;
//   opt.port = 0;                                       // any free port
//   gateway::Gateway gw(opt, router);                    // router: model -> provider
//   if (auto s = gw.start(); !s) die(s.error());
//   std::printf("listening on %u\n", gw.port());
//   gw.wait();                                          // until stop() (e.g. on SIGTERM)
//
// Threads: one worker per thread (GatewayOptions::threads, default one per
// core), each with its own io_context and acceptor on the shared port
// (SO_REUSEPORT); a connection's work runs on its worker's thread alone. A
// request waiting on an upstream holds memory, never a thread.
#pragma once

#include <chrono>
#include <cstdint>
#include <functional>
#include <memory>
#include <mutex>
#include <string>
#include <string_view>
#include <vector>

#include "toolwire/agent/options.h"
#include "toolwire/core/loss_policy.h"
#include "toolwire/core/result.h"
#include "toolwire/provider/provider.h"
#include "toolwire/tools/registry.h"

namespace toolwire::telemetry {
class TraceStore;
class OtlpExporter;
}  // namespace toolwire::telemetry

namespace toolwire::gateway {

// Checked before any work is done on a request.
struct Limits {
  size_t max_header_bytes = 16 * 1024;      // request line + headers → 431
  size_t max_body_bytes = 8 * 1024 * 1024;  // → 413
  size_t max_messages = 10'000;             // → 400
  size_t max_tools = 512;                   // → 400
  // Further connections are closed at accept. 0: derived from the process's
  // descriptor limit (RLIMIT_NOFILE, raised to its hard limit at start), at
  // most 10,000, leaving room for each connection's upstream socket.
  size_t max_connections = 0;
  // Connections one client address may hold (so one host cannot take every
  // slot); further ones are closed at accept. 0: no per-address limit.
  size_t max_connections_per_address = 2'048;
  size_t max_pipelined = 16;  // requests queued behind the one being answered
  std::chrono::milliseconds header_timeout{std::chrono::seconds(10)};  // whole header → 408
  std::chrono::milliseconds body_timeout{std::chrono::seconds(60)};    // whole body → 408
  std::chrono::milliseconds keepalive_idle{std::chrono::seconds(75)};  // between requests
  // Output queued for one client and not yet taken by its socket: above
  // this the upstream behind its stream is no longer read (flow control),
  // and reading resumes once the queue is down to half of it.
  size_t max_queued_bytes = 256 * 1024;
  // A client whose socket takes none of the pending output for this long
  // (it does not read) is cut: connection closed, upstream call cancelled,
  // toolwire_slow_clients_cut_total counted.
  std::chrono::milliseconds write_timeout{std::chrono::seconds(30)};
};

// Who runs the tools of a route.
//   passthrough: the client's tools go upstream; calls return to the client.
//   server: the gateway runs the loop with its own tools (the registry) and
//           answers with the final text; a client that sends tools is refused.
//   mixed: both; server calls run in the gateway, client calls return to the
//          client (see docs/gateway.md for how the history stays complete).
enum class ToolMode { passthrough, server, mixed };

// Server tools that may change while serving (an MCP server's
// notifications/tools/list_changed): a request takes the current registry
// once and keeps it for its whole life. Every registry published stays alive
// as long as this object (conductor sessions and executors hold references).
class LiveRegistry {
 public:
  explicit LiveRegistry(std::shared_ptr<const tools::Registry> r) : current_(std::move(r)) {}
  std::shared_ptr<const tools::Registry> get() const {
    std::lock_guard lock(mu_);
    return current_;
  }
  // Makes `r` current, then runs the subscribers (on this thread).
  void publish(std::shared_ptr<const tools::Registry> r);
  void subscribe(std::function<void(std::shared_ptr<const tools::Registry>)> fn);
  uint64_t generation() const {
    std::lock_guard lock(mu_);
    return retired_.size();
  }

 private:
  mutable std::mutex mu_;
  std::shared_ptr<const tools::Registry> current_;
  std::vector<std::shared_ptr<const tools::Registry>> retired_;
  std::vector<std::function<void(std::shared_ptr<const tools::Registry>)>> subscribers_;
};

// A tool that runs on a conductor device, configured on a route (`conductor:
// device_tools:` in the YAML): every conductor session on the route offers it
// besides the tools its session.start declares (docs/conductor.md).
struct DeviceTool {
  std::string name;  // as the device knows it; dots allowed (agent.photo → agent__photo upstream)
  std::string description;
  std::string parameters = R"({"type":"object"})";  // JSON Schema, as JSON text
};

struct RouteTools {
  ToolMode mode = ToolMode::passthrough;
  std::shared_ptr<const tools::Registry> registry;  // the server tools (at build time)
  std::shared_ptr<LiveRegistry> live;               // set when they may change (MCP servers)
  // The server tools now: a request takes them once.
  std::shared_ptr<const tools::Registry> current() const { return live ? live->get() : registry; }
  int max_rounds = 8;  // model calls per client request
  std::chrono::milliseconds tool_timeout{std::chrono::seconds(30)};  // per server call
  // A request without tools runs the server loop with `registry` (any mode).
  bool builtin_when_client_has_no_tools = false;
  std::vector<DeviceTool> device_tools;  // conductor sessions on this route
};

// One upstream a model is routed to.
struct RouteTarget {
  provider::Provider* provider = nullptr;   // owned by the router
  std::string upstream_model;               // empty: the caller's model name
  std::string name;                         // for logs and metrics ("upstream-a", "mock")
  std::shared_ptr<const RouteTools> tools;  // null: passthrough
  // The agent loop's turn protocol for this route (the conductor's sessions).
  agent::TurnProtocol turn_protocol = agent::TurnProtocol::native;
  LossPolicy on_loss;  // the route's `on_loss` (core/loss_policy.h)
  // Traces of this route keep content: tool arguments and results, the
  // model's text (redacted). Off: only names, ids, counts and times.
  bool capture_content = false;
};

// Model name → ordered upstream targets (primary, then fallbacks tried on a
// retryable error before any byte reached the client).
class ModelRouter {
 public:
  virtual ~ModelRouter() = default;
  // not_found when no route matches.
  virtual Result<std::vector<RouteTarget>> resolve(std::string_view model) const = 0;
  // Names listed by GET /v1/models.
  virtual std::vector<std::string> model_names() const = 0;
};

// The WebSocket conductor, GET /v1/conductor (docs/conductor.md): a device
// keeps one connection open; its sessions run the agent loop here and send
// the device's own tools to it as `tool.call` events.
struct ConductorOptions {
  bool enabled = true;
  // The model of a session.start that names none ("": "default"); routed
  // like any model name.
  std::string default_model;
  // Origins a browser may open it from (exact). Empty: local origins only
  // (http(s)://localhost, 127.0.0.1, [::1], any port). A request without
  // Origin (not a browser) is always let through.
  std::vector<std::string> allowed_origins;
  size_t max_frame_bytes = 1024 * 1024;  // a bigger frame closes with 1009
  // Token bucket per session (per connection until session.start; a resume
  // keeps the session's): excess frames get `error` rate_limited; a flood
  // that goes on (flood_close_after refused frames) closes with 1008.
  double frames_per_second = 50;
  double frame_burst = 100;
  int flood_close_after = 50;
  // One more bucket shared by every connection of one gateway key (0: none).
  double key_frames_per_second = 0;
  double key_frame_burst = 0;  // 0: key_frames_per_second
  std::chrono::milliseconds resume_grace{std::chrono::seconds(60)};
  size_t replay_events = 256;  // per session, also capped at replay_bytes
  size_t replay_bytes = 256 * 1024;
  size_t max_queued_turns = 4;  // transcript.final queued behind a running turn
  size_t max_sessions = 100'000;
  // Defaults a session.start may override (options.*).
  int max_tool_rounds = 8;
  std::chrono::milliseconds tool_timeout{std::chrono::seconds(30)};
  size_t history_turns = 20;
  // After each final answer, also send the UI calls some devices expect
  // (convo.appendMessage, convo.setState, tts.speak); fire-and-forget.
  bool ui_calls = false;
};

// POST/DELETE /mcp: the gateway's tools over MCP's Streamable HTTP transport
// (docs/mcp.md, "On the gateway"). The tools are given with
// Gateway::set_mcp_tools(); the endpoint answers 404 without them.
struct McpEndpointOptions {
  bool enabled = true;
  // Origins a browser may call from (exact, e.g. "https://app.example.com").
  // Empty: only local origins (http(s)://localhost, 127.0.0.1, [::1], any
  // port). A request without Origin (not a browser) is always let through.
  std::vector<std::string> allowed_origins;
  size_t max_sessions = 1000;
  std::chrono::milliseconds session_idle{std::chrono::minutes(30)};  // then it may be evicted
  size_t page_size = 100;                                            // tools per tools/list page
  std::chrono::milliseconds tool_timeout{std::chrono::seconds(60)};
};

// `previous_response_id` (a dialect whose Ingress::response_store is set):
// the gateway keeps each completed answer at that endpoint (unless the request said `store:
// false`), least recently used evicted first. max_responses 0: off, and a request naming a previous
// response is refused.
struct ResponseStoreOptions {
  size_t max_responses = 1000;
  size_t max_bytes = 64 * 1024 * 1024;  // estimated from the text held
};

// TLS at the edge (`tls:` in the YAML, --tls-cert / --tls-key): PEM files,
// read at start and again on Gateway::reload_tls() (SIGHUP). TLS 1.2 and
// newer only. The handshake must finish within Limits::header_timeout.
struct TlsOptions {
  std::string cert_file;  // the certificate chain, leaf first
  std::string key_file;   // its private key (unencrypted)
  bool enabled() const { return !cert_file.empty(); }
};

// `--redis` / `redis:` (docs/deploy.md): what the replicas behind one
// balancer share through Redis — the keys' requests_per_minute and
// max_concurrent_streams, and the response store. Empty url: all of it in
// process, as without replicas.
struct SharedStateOptions {
  std::string redis_url;                   // redis://HOST:PORT[/DB]
  std::string prefix = "toolwire:";        // of every Redis key (several gateways on one Redis)
  std::chrono::milliseconds timeout{250};  // per Redis command (then: a failure)
  // Redis unreachable or late: a key's limits fall back to this replica's
  // own counters (counted in toolwire_shared_state_fallback_total, logged);
  // false: the request is refused with 503.
  bool limits_fail_open = true;
  // A stream slot is a lease renewed while its stream is open: a replica
  // that dies holds its slots at most this long.
  std::chrono::milliseconds stream_lease{std::chrono::seconds(30)};
  // A conductor session is owned by one replica through a lease it renews
  // every lease/3: another replica takes a session over (docs/deploy.md) once
  // its owner hands it over or has been silent this long.
  std::chrono::milliseconds conductor_lease{std::chrono::seconds(10)};
  std::chrono::seconds response_ttl{std::chrono::hours(24)};  // stored answers and their items
  size_t max_response_bytes = 4 * 1024 * 1024;  // a bigger one is not stored (counted)
};

struct GatewayOptions {
  std::string host = "127.0.0.1";
  uint16_t port = 8080;  // 0: any free port (see Gateway::port())
  int threads = 0;       // 0: one per core
  Limits limits;
  // Threads that run server tools' handlers (blocking code never runs on the
  // server's own threads).
  int tool_threads = 4;
  // While a stream has nothing to send, the dialect's keep-alive
  // (Ingress::stream_keepalive) goes out this often.
  std::chrono::milliseconds stream_keepalive{std::chrono::seconds(15)};
  // An upstream stream that carries no content (text, thinking, tool call)
  // for this long — heartbeats do not count — is cut, and the caller gets an
  // error in its dialect.
  std::chrono::milliseconds upstream_content_idle{std::chrono::seconds(300)};
  // On stop(): open streams get this long to finish before they are cut.
  std::chrono::milliseconds drain_deadline{std::chrono::seconds(10)};
  // Notices, and one line per request when log_requests; default: stderr.
  // Never carries a key.
  std::function<void(std::string_view)> log;
  bool log_requests = true;
  ConductorOptions conductor;
  McpEndpointOptions mcp;
  ResponseStoreOptions response_store;
  TlsOptions tls;  // off unless cert_file is set
  SharedStateOptions shared;
};

}  // namespace toolwire::gateway

namespace boost::asio {
class io_context;
}

namespace toolwire::gateway {

class Gateway {
 public:
  Gateway(GatewayOptions options, std::shared_ptr<const ModelRouter> router);
  // The router may also be given later (before start()): providers that run
  // on the gateway's own io_context (transport::AsioHttpClient) are built
  // after the gateway.
  explicit Gateway(GatewayOptions options);
  void set_router(std::shared_ptr<const ModelRouter> router);
  // Gateway keys (auth.h); without any, every caller is served.
  void set_keys(std::shared_ptr<const class KeyRing> keys);
  // Where each request's and conductor turn's trace goes (GET /v1/traces);
  // null: no traces.
  void set_traces(std::shared_ptr<telemetry::TraceStore> store);
  // Where each finished trace is also exported (OTLP/HTTP); null: nowhere.
  // Its counters join GET /metrics.
  void set_otlp(std::shared_ptr<telemetry::OtlpExporter> exporter);
  // The tools served on /mcp; none: /mcp answers 404. Again while serving:
  // open sessions serve the new tools and get notifications/tools/list_changed.
  void set_mcp_tools(std::shared_ptr<const tools::Registry> registry);
  // Worker 0's io_context: what belongs to the gateway as a whole runs there
  // (an AsioHttpClient built on it serves calls of every worker, each on the
  // caller's own).
  boost::asio::io_context& io_context();
  ~Gateway();  // stop() + wait()
  Gateway(const Gateway&) = delete;
  Gateway& operator=(const Gateway&) = delete;

  // Binds and starts the threads. Fails when the address cannot be bound or
  // the TLS files cannot be used.
  Status start();
  // Reads the TLS certificate and key again (SIGHUP): new connections get
  // them, open ones keep theirs. On failure the old ones stay in use.
  // failed_precondition without TLS. Any thread.
  Status reload_tls();
  bool tls() const;
  // The bound port (after start()).
  uint16_t port() const;
  // Stops accepting, lets open exchanges finish within the drain deadline,
  // then closes everything. Any thread, signal-safe wrappers excepted.
  void stop();
  // Blocks until the server has stopped.
  void wait();

  // The Prometheus text of GET /metrics.
  std::string metrics_text() const;

  struct Impl;

 private:
  std::unique_ptr<Impl> impl_;
};

}  // namespace toolwire::gateway
