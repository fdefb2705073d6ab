// toolwire/gateway/config.h — the gateway's YAML configuration.
//
//   auto cfg = gateway::load_config_file("gateway.yaml");
//   if (!cfg) die(cfg.error().message);   // "gateway.yaml:12:5: routes[0].upstreams[1]: unknown
//   upstream 'backup'"
//
// Every key is checked: an unknown one is an error (a typo must not pass
// silently), and each error names the file, line, column and key path.
// The full annotated example is examples/gateway.yaml; the reference is
// docs/gateway.md ("Configuration").
#pragma once

#include <chrono>
#include <map>
#include <memory>
#include <optional>
#include <string>
#include <utility>
#include <vector>

#include "toolwire/core/loss_policy.h"
#include "toolwire/core/result.h"
#include "toolwire/gateway/auth.h"
#include "toolwire/gateway/gateway.h"
#include "toolwire/gateway/offline_demo.h"
#include "toolwire/tools/builtin.h"
#include "toolwire/transport/http_client.h"

namespace toolwire::mcp {
class Client;
}

namespace toolwire::gateway {

// One MCP server whose tools the gateway offers (`mcp_servers:`): a command it
// spawns (stdio) or the URL of a Streamable HTTP endpoint.
struct McpServerConfig {
  std::string name;
  std::vector<std::string> argv;  // command, then args
  std::vector<std::string> env;   // "KEY=VALUE", added to the gateway's environment
  std::string cwd;
  std::string url;                 // instead of a command
  std::string prefix;              // registry names are <prefix>__<tool>; default: the name
  bool no_prefix = false;          // `prefix: ""`: the server's names as they are
  std::vector<std::string> allow;  // the server's tool names; `*` at the end: any rest
  std::vector<std::string> deny;
  std::chrono::milliseconds timeout{std::chrono::seconds(60)};  // per tools/call
};

struct UpstreamConfig {
  std::string name;
  std::string
      profile;  // openai | anthropic | openai_compatible | scripted | a built-in profile name
  std::string base_url;  // as the provider's SDK takes it (the profile's base_url shows the form)
  std::string api_key_env;  // variable holding the key ("" = the profile's)
  // A text format family (docs/textformats.md): tools rendered into the
  // prompt, calls parsed from the model's text. "" = native tool calling.
  std::string tool_format;
  std::chrono::milliseconds timeout{std::chrono::minutes(10)};
  std::chrono::milliseconds idle_timeout{std::chrono::seconds(60)};
  int max_attempts = 3;
  std::string script;  // scripted only: a script file (provider/scripted.h); "" = the demo's
};

struct RouteTargetConfig {
  std::string upstream;  // a key of `upstreams`
  std::string model;     // the model name sent upstream; "" = the caller's
};

struct RouteToolsConfig {
  ToolMode mode = ToolMode::passthrough;
  std::string workspace = ".";
  std::vector<std::string> builtins{tools::read_only_builtin_tools().begin(),
                                    tools::read_only_builtin_tools().end()};
  std::vector<std::string> shell_allow;  // shell is offered only when listed here
  bool demo_todo = false;                // the offline demo's to-do tools
  std::string data_dir;                  // their SQLite folder
  int max_rounds = 8;
  std::chrono::milliseconds tool_timeout{std::chrono::seconds(30)};
  std::string tool_prefix;  // server tools are named `<prefix><name>` to the model
  // A request with no tools of its own is served in server mode with this
  // route's tools, whatever the mode (a plain chat client on a passthrough route).
  bool builtin_when_client_has_no_tools = false;
  std::vector<std::string> mcp;  // names of `mcp_servers` whose tools join these
};

struct RouteConfig {
  std::string model;  // exact name or glob ('*')
  std::vector<std::string> aliases;
  std::vector<RouteTargetConfig> targets;  // primary, then fallbacks
  RouteToolsConfig tools;
  // How the agent loop reads the model on this route (`turn_protocol:`):
  // conductor sessions use it; the HTTP endpoints' tool rounds do not.
  agent::TurnProtocol turn_protocol = agent::TurnProtocol::native;
  // Its traces keep content (`capture_content: true`; telemetry.h).
  bool capture_content = false;
  // Device tools of conductor sessions on this route, from `conductor:
  // device_tools: {<this route's model>: [...]}`.
  std::vector<DeviceTool> device_tools;
  // `on_loss: warn | error` and `allow_loss: [codes]`: whether a request
  // whose translation would drop or approximate something goes on with a
  // `toolwire-warnings` header (warn) or is refused with a 400 naming each
  // loss, before anything is sent upstream (error).
  LossPolicy on_loss;
};

// `record:` / `replay:` (docs/replay.md): every upstream exchange written to
// a folder, or answered from one without a network.
struct RecordingConfig {
  enum class Mode { off, record, replay };
  Mode mode = Mode::off;
  std::string dir;
  bool pacing = false;  // replay: at the recorded pace (else as fast as the client reads)
};

// `telemetry.otlp:` / --otlp-endpoint (docs/traces.md): traces also sent to
// an OpenTelemetry collector over OTLP/HTTP (protobuf). Off without a URL.
struct OtlpConfig {
  std::string url;  // the full /v1/traces URL (telemetry::otlp_traces_url)
  std::vector<std::pair<std::string, std::string>> headers;
  std::string service_name = "toolwire";
  size_t batch_size = 512;
  size_t queue_limit = 8192;
  std::chrono::milliseconds timeout{10000};
  std::chrono::milliseconds flush_interval{1000};
};

// `telemetry:` (docs/traces.md): each request's and conductor turn's trace
// in SQLite under data_dir, bounded; and/or exported over OTLP.
struct TelemetryConfig {
  // Unset: off for build_gateway's other callers (tests, embedders), on for
  // `toolwire serve` (its default, set by the CLI).
  std::optional<bool> traces;
  std::string data_dir;  // "": $XDG_DATA_HOME/toolwire, else ~/.local/share/toolwire
  size_t max_traces = 10000;
  size_t max_mb = 64;
  OtlpConfig otlp;
};

// `upstream_client:` (and --transport / --upstream-ca-file, which win): the
// HTTP client every HTTP upstream is called with.
struct UpstreamClientConfig {
  // "asio": HTTP/1.1 with pooled keep-alive connections on the server's own
  // threads (the cheapest per request); "curl": libcurl on its own thread,
  // HTTP/2 by ALPN to HTTPS upstreams that offer it (streams multiplexed
  // onto one connection), proxies from the environment.
  std::string transport = "asio";
  std::string ca_file;  // PEM CAs that upstreams' certificates are checked against; "": system's
};

struct GatewayConfig {
  std::string source;  // the file name, for messages
  GatewayOptions options;
  std::vector<KeyConfig> keys;
  std::vector<UpstreamConfig> upstreams;
  std::vector<RouteConfig> routes;
  std::vector<McpServerConfig> mcp_servers;
  // `mcp_endpoint:` (options in options.mcp): the tools /mcp serves. Without
  // the section the endpoint is off.
  bool mcp_endpoint = false;
  RouteToolsConfig mcp_endpoint_tools;
  // Environment variables the config names that are not set now (a warning
  // at --check-config time; an error when the upstream is built).
  std::vector<std::string> missing_env;
  RecordingConfig recording;
  TelemetryConfig telemetry;
  UpstreamClientConfig upstream_client;
};

Result<GatewayConfig> load_config_file(const std::string& path);
Result<GatewayConfig> load_config_string(std::string_view yaml,
                                         const std::string& name = "<config>");

struct McpLiveTools;

// What a config becomes: providers (owned by the router), the router, keys.
struct BuiltGateway {
  std::shared_ptr<ModelRouter> router;
  std::shared_ptr<KeyRing> keys;
  std::vector<std::string> described;                // one line per route, for the start-up log
  std::shared_ptr<const tools::Registry> mcp_tools;  // for /mcp; null: not configured
  // /mcp's tools as they change (list_changed of its MCP servers): give each
  // new registry to Gateway::set_mcp_tools. Null when they cannot change.
  std::shared_ptr<LiveRegistry> mcp_tools_live;
  std::vector<std::shared_ptr<mcp::Client>> mcp_clients;  // connected at build time
  // Keeps routes' and /mcp's tools in step with their MCP servers' lists.
  std::shared_ptr<McpLiveTools> mcp_live;
  // With `record:` / `replay:`, the transport the HTTP upstreams call (it
  // wraps or replaces the one given to build_gateway): keep it, as the
  // providers, until the gateway has stopped.
  std::shared_ptr<transport::HttpTransport> recording;
  // Where traces go (Gateway::set_traces); null with `telemetry: {traces: false}`.
  std::shared_ptr<telemetry::TraceStore> traces;
  // Why traces are off although asked for (their folder could not be
  // opened): a warning for the start-up log; the gateway serves without.
  std::string traces_warning;
  // Where traces are exported (Gateway::set_otlp); null without an OTLP URL.
  std::shared_ptr<telemetry::OtlpExporter> otlp;
};
// `demo`: the offline demo's script and to-do tools, lent by the caller.
Result<BuiltGateway> build_gateway(const GatewayConfig& config, transport::HttpTransport& transport,
                                   const OfflineDemo& demo = {});
// The tools of each connected MCP server, by its name in `mcp_servers`.
using McpToolSets = std::map<std::string, std::shared_ptr<const tools::Registry>>;

// A route's server tools (built-ins in its workspace, the demo to-do list
// from `demo`, the tools of the MCP servers it names, taken from `mcp`).
Result<std::shared_ptr<RouteTools>> make_route_tools(const RouteToolsConfig& config,
                                                     const McpToolSets& mcp = {},
                                                     const OfflineDemo& demo = {});

// Spawns (or reaches) one MCP server, runs the handshake, lists its tools and
// registers the allowed ones. The client stays alive with the registry's handlers.
// `on_tools_changed` runs (on the client's reader thread; it must not block)
// after the server announced notifications/tools/list_changed and the client
// re-listed its tools.
Result<std::shared_ptr<const tools::Registry>> connect_mcp_server(
    const McpServerConfig& config, std::shared_ptr<mcp::Client>& client,
    std::function<void()> on_tools_changed = {});
// The allowed tools of a connected server's last listing, as a new registry
// (no request: the client's cached list).
Result<std::shared_ptr<const tools::Registry>> mcp_server_tools(
    const McpServerConfig& config, const std::shared_ptr<mcp::Client>& client,
    std::vector<std::string>* skipped = nullptr);

}  // namespace toolwire::gateway
