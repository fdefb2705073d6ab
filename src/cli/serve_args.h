// `toolwire serve`'s flags, and the gateway configuration they describe.
#pragma once

#include <optional>
#include <string>
#include <vector>

#include "toolwire/core/result.h"
#include "toolwire/gateway/config.h"

namespace toolwire::cli {

struct ServeArgs {
  std::string listen = "127.0.0.1:8080";
  bool listen_given = false;
  std::string upstream;  // openai | anthropic | openai_compatible=URL | KIND=URL | scripted
  std::string key_env;
  std::string upstream_model;
  int threads = 0;
  bool quiet = false;
  std::string config;
  std::string check_config;
  bool hash_key = false;
  std::string transport;         // asio | curl; "": the file's upstream_client (default asio)
  std::string upstream_ca_file;  // PEM CAs for HTTPS upstreams; "": the file's, else the system's
  std::string tools;  // passthrough | server | mixed; default: server offline, else passthrough
  std::string workspace = ".";
  std::string data_dir;  // the demo to-do list's folder
  int max_rounds = 8;
  int tool_timeout_ms = 30000;
  int keepalive_ms = 15000;
  int upstream_idle_ms = 300000;
  int drain_ms = 10000;
  size_t max_connections = 0;             // 0: the file's, else derived from ulimit -n
  std::optional<size_t> max_per_address;  // unset: the file's (default 2,048)
  long max_queued_bytes = 0;              // 0: the file's or the default (Limits)
  int write_timeout_ms = 0;               // 0: the file's or the default (Limits)
  int conductor_grace_ms = 60000;
  bool conductor_grace_given = false;
  bool conductor_ui_calls = false;
  std::vector<std::string> conductor_origins;
  std::vector<std::string> mcp_origins;
  bool no_mcp = false;
  std::string on_loss;   // warn | error: every route's; "" = the file's (default warn)
  std::string tls_cert;  // PEM certificate chain; with tls_key: HTTPS
  std::string tls_key;
  std::string record;  // a folder: every upstream exchange written there
  std::string replay;  // a folder: answers from there, no network
  bool replay_pacing = false;
  bool no_traces = false;
  std::string redis;                      // redis://HOST:PORT[/DB]: shared state across replicas
  std::string otlp_endpoint;              // export traces over OTLP/HTTP there
  std::vector<std::string> otlp_headers;  // "name=value", repeatable
};

// The configuration the flags describe, for gateway::build_gateway: the file
// of --config with the flags that win over it (--listen, --quiet, the
// conductor, /mcp and connection flags), or one built from the flags alone
// (--upstream or the offline default, --tools and the server tools' flags).
// An error is a usage error (exit status 2); its message is ready to print.
Result<gateway::GatewayConfig> serve_config(const ServeArgs& args);

}  // namespace toolwire::cli
