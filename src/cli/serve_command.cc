// `toolwire serve`: wires the gateway (src/gateway) to upstreams chosen by
// flags, and stops it on SIGTERM / SIGINT. All serving logic lives in the
// server library; this file only parses flags and builds the router.
#include <pthread.h>
#include <signal.h>

#include <cstdio>
#include <cstdlib>
#include <iostream>
#include <optional>

#include "cli/commands.h"
#include "toolwire/demo/demo.h"
#include "toolwire/dialects/dialect.h"
#include "toolwire/gateway/config.h"
#include "toolwire/gateway/gateway.h"
#include "toolwire/gateway/routing.h"
#include "toolwire/mcp/client.h"
#include "toolwire/provider/factory.h"
#include "toolwire/provider/scripted.h"
#include "toolwire/tools/builtin.h"
#include "toolwire/transport/asio_client.h"

namespace toolwire::cli {
namespace {

struct ServeArgs {
  std::string listen = "127.0.0.1:8080";
  std::string upstream;  // openai | anthropic | openai_compatible=URL | KIND=URL | scripted
  std::string key_env;
  std::string upstream_model;
  int threads = 0;
  bool quiet = false;
  std::string config;
  std::string check_config;
  bool hash_key = false;
  bool listen_given = false;
  std::string transport = "asio";
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
};

int usage_error(const std::string& msg) {
  std::fprintf(stderr, "toolwire serve: %s\n", msg.c_str());
  return 2;
}

// "openai", "anthropic=http://h:p", "openai_compatible=http://h:p/v1".
Result<std::unique_ptr<provider::Provider>> make_upstream(const ServeArgs& a,
                                                          transport::HttpTransport& client,
                                                          std::string& name) {
  std::string kind = a.upstream, base;
  if (auto eq = kind.find('='); eq != std::string::npos) {
    base = kind.substr(eq + 1);
    kind = kind.substr(0, eq);
  }
  name = kind;
  if (kind == "scripted") {
    auto script = provider::parse_script(demo::demo_script_json());
    if (!script) return std::move(script).error();
    return std::unique_ptr<provider::Provider>(
        std::make_unique<provider::ScriptedProvider>(std::move(*script)));
  }
  // A dialect's name or alias picks its official profile (profile.h).
  const dialects::Dialect* dialect = dialects::find_dialect(kind);
  if (kind != "openai_compatible" && (!dialect || !dialect->has_codec()))
    return make_error(ErrorCode::invalid_argument,
                      "--upstream: unknown kind '" + kind + "' (" +
                          dialects::dialect_names(
                              +[](const dialects::Dialect& d) { return d.has_codec(); }, ", ") +
                          ", openai_compatible=BASE_URL, scripted)");
  if (kind == "openai_compatible" && base.empty())
    return make_error(
        ErrorCode::invalid_argument,
        "--upstream openai_compatible needs a base URL: openai_compatible=http://HOST:PORT/v1");
  provider::ProviderConfig cfg;
  cfg.profile = kind;
  cfg.base_url = base;
  cfg.api_key_env = a.key_env;
  auto profile = provider::resolve_profile(cfg);
  if (!profile) return std::move(profile).error();
  // A server of one's own (a base URL given) may need no key; the official
  // endpoint does.
  if (!base.empty()) profile->api_key_required = false;
  return provider::make_http_provider(std::move(*profile), cfg, client);
}

Result<std::shared_ptr<gateway::RouteTools>> server_tools(const ServeArgs& a,
                                                          gateway::ToolMode mode) {
  gateway::RouteToolsConfig c;
  c.mode = mode;
  c.workspace = a.workspace;
  c.demo_todo = true;
  c.data_dir = a.data_dir;
  c.max_rounds = a.max_rounds;
  c.tool_timeout = std::chrono::milliseconds(a.tool_timeout_ms);
  return gateway::make_route_tools(c);
}

int hash_key() {
  std::string key;
  std::getline(std::cin, key);
  while (!key.empty() && (key.back() == '\r' || key.back() == ' ')) key.pop_back();
  if (key.empty()) return usage_error("--hash-key: give the key on standard input");
  std::printf("sha256:%s\n", gateway::sha256_hex(key).c_str());
  return 0;
}

int check_config(const std::string& path) {
  auto cfg = gateway::load_config_file(path);
  if (!cfg) {
    std::fprintf(stderr, "toolwire serve: %s\n", cfg.error().message.c_str());
    return 2;
  }
  for (const auto& v : cfg->missing_env)
    std::fprintf(stderr, "toolwire serve: warning: %s: environment variable %s is not set\n",
                 path.c_str(), v.c_str());
  std::printf("%s: ok (%zu upstreams, %zu routes, %zu keys)\n", path.c_str(), cfg->upstreams.size(),
              cfg->routes.size(), cfg->keys.size());
  return 0;
}

int run_serve(const ServeArgs& a) {
  if (a.hash_key) return hash_key();
  if (!a.check_config.empty()) return check_config(a.check_config);
  std::optional<gateway::GatewayConfig> config;
  if (!a.config.empty()) {
    auto c = gateway::load_config_file(a.config);
    if (!c) {
      std::fprintf(stderr, "toolwire serve: %s\n", c.error().message.c_str());
      return 2;
    }
    config = std::move(*c);
  }
  gateway::GatewayOptions opt;
  auto colon = a.listen.rfind(':');
  if (colon == std::string::npos)
    return usage_error("--listen: expected HOST:PORT, got '" + a.listen + "'");
  opt.host = a.listen.substr(0, colon);
  if (opt.host.size() > 1 && opt.host.front() == '[')
    opt.host = opt.host.substr(1, opt.host.size() - 2);
  char* end = nullptr;
  long port = std::strtol(a.listen.c_str() + colon + 1, &end, 10);
  if (*end != '\0' || port < 0 || port > 65535)
    return usage_error("--listen: bad port in '" + a.listen + "'");
  opt.port = static_cast<uint16_t>(port);
  opt.threads = a.threads;
  opt.stream_keepalive = std::chrono::milliseconds(a.keepalive_ms);
  opt.upstream_content_idle = std::chrono::milliseconds(a.upstream_idle_ms);
  opt.drain_deadline = std::chrono::milliseconds(a.drain_ms);
  opt.log_requests = !a.quiet;
  if (config) {
    // The file's settings; --listen on the command line still wins.
    std::string host = opt.host;
    uint16_t port = opt.port;
    opt = config->options;
    if (a.listen_given) {
      opt.host = host;
      opt.port = port;
    }
    if (a.quiet) opt.log_requests = false;
  }
  // The conductor flags, when given, win over the file's conductor: section.
  if (a.conductor_grace_given)
    opt.conductor.resume_grace = std::chrono::milliseconds(a.conductor_grace_ms);
  if (a.conductor_ui_calls) opt.conductor.ui_calls = true;
  if (!a.conductor_origins.empty()) opt.conductor.allowed_origins = a.conductor_origins;
  if (!a.mcp_origins.empty()) opt.mcp.allowed_origins = a.mcp_origins;
  if (a.no_mcp) opt.mcp.enabled = false;
  if (a.max_connections > 0) opt.limits.max_connections = a.max_connections;
  if (a.max_per_address) opt.limits.max_connections_per_address = *a.max_per_address;
  // Flow-control limits: the flags, when given, win over the file's limits.
  if (a.max_queued_bytes > 0) opt.limits.max_queued_bytes = static_cast<size_t>(a.max_queued_bytes);
  if (a.write_timeout_ms > 0)
    opt.limits.write_timeout = std::chrono::milliseconds(a.write_timeout_ms);

  // Signals are taken by sigwait() below, never by a worker thread: block
  // them before any thread (transport, gateway) starts.
  sigset_t sigs;
  sigemptyset(&sigs);
  sigaddset(&sigs, SIGTERM);
  sigaddset(&sigs, SIGINT);
  pthread_sigmask(SIG_BLOCK, &sigs, nullptr);
  signal(SIGPIPE, SIG_IGN);

  gateway::Gateway gw(opt);
  // Upstream calls run on the gateway's own threads (asio), or on libcurl's
  // loop thread when HTTP/2 or a proxy from the environment is needed.
  std::unique_ptr<transport::HttpTransport> transport_holder;
  if (a.transport == "curl")
    transport_holder = std::make_unique<transport::HttpClient>();
  else
    transport_holder = std::make_unique<transport::AsioHttpClient>(gw.io_context());
  transport::HttpTransport& client = *transport_holder;
  auto router = std::make_shared<gateway::PatternRouter>();
  std::vector<std::string> described;
  std::string mode_name = !a.tools.empty()     ? a.tools
                          : a.upstream.empty() ? "server"
                                               : "passthrough";
  gateway::ToolMode mode = mode_name == "server"  ? gateway::ToolMode::server
                           : mode_name == "mixed" ? gateway::ToolMode::mixed
                                                  : gateway::ToolMode::passthrough;
  std::shared_ptr<const gateway::RouteTools> rt;
  if (!config) {
    auto route_tools = server_tools(a, mode);
    if (!route_tools) {
      std::fprintf(stderr, "toolwire serve: server tools: %s\n",
                   route_tools.error().to_string().c_str());
      return 1;
    }
    rt = *route_tools;
  }
  std::shared_ptr<gateway::KeyRing> keys;
  std::shared_ptr<const tools::Registry> mcp_tools;
  std::vector<std::shared_ptr<mcp::Client>> mcp_clients;  // closed when serve returns
  std::shared_ptr<gateway::McpLiveTools> mcp_live;        // MCP servers' list_changed → tools
  std::shared_ptr<gateway::LiveRegistry> mcp_tools_live;
  // Without a config, /mcp serves the routes' server tools, and only when the
  // routes run them (server or mixed mode, the offline default): a
  // passthrough gateway exposes no tools of its own, on /mcp neither.
  if (!config && opt.mcp.enabled && rt && rt->registry) mcp_tools = rt->registry;
  if (config) {
    for (const auto& v : config->missing_env)
      std::fprintf(stderr, "toolwire serve: warning: environment variable %s is not set\n",
                   v.c_str());
    auto built = gateway::build_gateway(*config, client);
    if (!built) {
      std::fprintf(stderr, "toolwire serve: %s\n", built.error().message.c_str());
      return 1;
    }
    gw.set_router(built->router);
    keys = built->keys;
    described = built->described;
    mcp_tools = built->mcp_tools;
    mcp_clients = built->mcp_clients;
    mcp_live = built->mcp_live;
    mcp_tools_live = built->mcp_tools_live;
  } else if (!a.upstream.empty()) {
    std::string name;
    auto p = make_upstream(a, client, name);
    if (!p) {
      std::fprintf(stderr, "toolwire serve: %s\n", p.error().to_string().c_str());
      return p.error().code == ErrorCode::invalid_argument ? 2 : 1;
    }
    auto* prov = router->own(std::move(*p));
    router->add_route(
        {.pattern = "*", .aliases = {}, .targets = {{prov, a.upstream_model, name, rt}}});
    described.push_back("every model -> " + name + " (tools: " + mode_name + ")");
  } else {
    // Embedded default: offline on the scripted model; real providers for
    // their model families when their keys are in the environment.
    auto script = provider::parse_script(demo::demo_script_json());
    if (!script) return usage_error(script.error().to_string());
    auto* scripted = router->own(std::make_unique<provider::ScriptedProvider>(std::move(*script)));
    router->add_route({.pattern = "*", .aliases = {}, .targets = {{scripted, "", "scripted", rt}}});
    described.push_back("* -> scripted (offline demo model; tools: " + mode_name + ")");
    auto add_env = [&](const char* env, const char* profile, std::vector<std::string> globs) {
      const char* v = std::getenv(env);
      if (!v || !*v) return;
      provider::ProviderConfig cfg;
      cfg.profile = profile;
      auto p = provider::make_provider(cfg, client);
      if (!p) return;
      auto* prov = router->own(std::move(*p));
      for (auto& g : globs) {
        described.push_back(g + " -> " + profile);
        router->add_route({.pattern = g, .aliases = {}, .targets = {{prov, "", profile, rt}}});
      }
    };
    add_env("OPENAI_API_KEY", "openai", {"gpt-*", "o1*", "o3*", "o4*", "chatgpt-*"});
    add_env("ANTHROPIC_API_KEY", "anthropic", {"claude-*"});
  }

  if (!config) gw.set_router(router);
  if (keys) gw.set_keys(keys);
  if (mcp_tools) {
    gw.set_mcp_tools(mcp_tools);
    // /mcp's MCP servers changed their tools: its sessions get the new ones
    // (and notifications/tools/list_changed on their GET stream).
    if (mcp_tools_live)
      mcp_tools_live->subscribe(
          [&gw](std::shared_ptr<const tools::Registry> r) { gw.set_mcp_tools(std::move(r)); });
    described.push_back("/mcp -> " + std::to_string(mcp_tools->size()) +
                        " tools (MCP, Streamable HTTP)");
  }
  if (auto s = gw.start(); !s) {
    std::fprintf(stderr, "toolwire serve: %s\n", s.error().to_string().c_str());
    return 1;
  }
  std::string shown = opt.host.find(':') != std::string::npos ? "[" + opt.host + "]" : opt.host;
  std::printf("toolwire serve: listening on http://%s:%u\n", shown.c_str(), gw.port());
  std::fflush(stdout);
  if (!a.quiet)
    for (const auto& d : described) std::fprintf(stderr, "toolwire serve: route %s\n", d.c_str());

  int sig = 0;
  sigwait(&sigs, &sig);
  if (!a.quiet)
    std::fprintf(stderr, "toolwire serve: %s, draining\n", sig == SIGTERM ? "SIGTERM" : "SIGINT");
  gw.stop();
  gw.wait();
  for (auto& c : mcp_clients) c->close();
  return 0;
}

}  // namespace

void add_serve_command(CLI::App& app) {
  auto a = std::make_shared<ServeArgs>();
  auto* cmd =
      app.add_subcommand("serve",
                         "Run the gateway: OpenAI (Chat, Responses), Anthropic, Gemini and Bedrock "
                         "Converse endpoints over any upstream");
  cmd->add_option("--listen", a->listen, "HOST:PORT to listen on (port 0: any free port)")
      ->each([a](const std::string&) { a->listen_given = true; });
  cmd->add_option("--config", a->config, "gateway configuration (YAML; see examples/gateway.yaml)");
  cmd->add_option("--check-config", a->check_config,
                  "validate a configuration file and exit (0: valid)");
  cmd->add_flag("--hash-key", a->hash_key,
                "read a gateway key on standard input, print its sha256: line");
  cmd->add_option("--upstream", a->upstream,
                  "openai | anthropic | gemini | responses | bedrock (each [=BASE_URL]) | "
                  "openai_compatible=BASE_URL | scripted: route every "
                  "model there (default: the offline scripted model, plus openai / anthropic for "
                  "gpt-* / claude-* when OPENAI_API_KEY / ANTHROPIC_API_KEY are set)");
  cmd->add_option("--upstream-key-env", a->key_env,
                  "environment variable holding the upstream's API key");
  cmd->add_option("--upstream-model", a->upstream_model,
                  "model name sent upstream (default: the client's)");
  cmd->add_option("--threads", a->threads, "server threads (default: one per core)")
      ->check(CLI::Range(0, 1024));
  cmd->add_option("--stream-keepalive-ms", a->keepalive_ms, "keep-alive interval of idle streams")
      ->check(CLI::Range(10, 3600000));
  cmd->add_option("--upstream-idle-ms", a->upstream_idle_ms,
                  "cut a stream whose upstream sends no content for this long")
      ->check(CLI::Range(10, 86400000));
  cmd->add_option("--max-queued-bytes", a->max_queued_bytes,
                  "output queued for one client above which its upstream is not read until "
                  "the client catches up (default 262144)")
      ->check(CLI::Range(16L * 1024, 1L << 30));
  cmd->add_option("--write-timeout-ms", a->write_timeout_ms,
                  "cut a client that takes none of its pending output for this long "
                  "(default 30000)")
      ->check(CLI::Range(10, 3600000));
  cmd->add_option("--drain-ms", a->drain_ms, "on SIGTERM, how long open streams may finish")
      ->check(CLI::Range(0, 3600000));
  cmd->add_flag("--quiet", a->quiet, "no per-request log lines");
  cmd->add_option("--max-connections", a->max_connections,
                  "client connections open at once (default: from the descriptor limit, at "
                  "most 10000)")
      ->check(CLI::Range(1, 1000000));
  cmd->add_option("--max-connections-per-address", a->max_per_address,
                  "client connections one address may hold (default 2048; 0: no limit)")
      ->check(CLI::Range(0, 1000000));
  cmd->add_option("--conductor-grace-ms", a->conductor_grace_ms,
                  "how long a conductor session waits for its device to resume")
      ->check(CLI::Range(0, 86400000))
      ->each([a](const std::string&) { a->conductor_grace_given = true; });
  cmd->add_flag("--conductor-ui-calls", a->conductor_ui_calls,
                "after each final answer, send the conductor's UI calls (convo.*, tts.speak)");
  cmd->add_option(
      "--conductor-origin", a->conductor_origins,
      "an Origin allowed to open GET /v1/conductor (repeat; default: local origins only)");
  cmd->add_option("--mcp-origin", a->mcp_origins,
                  "an Origin allowed to call POST /mcp (repeat; default: local origins only)");
  cmd->add_flag("--no-mcp", a->no_mcp, "do not serve the server tools on /mcp");
  cmd->add_option("--tools", a->tools,
                  "who runs tools: passthrough (the client), server (the gateway: read-only "
                  "built-ins in --workspace and the demo to-do list), mixed (both). Default: "
                  "server on the offline model, passthrough with --upstream")
      ->check(CLI::IsMember({"passthrough", "server", "mixed"}));
  cmd->add_option("--workspace", a->workspace,
                  "folder the server's file tools may read (default: .)");
  cmd->add_option("--data-dir", a->data_dir,
                  "folder of the demo to-do list (default: ~/.local/share/toolwire)");
  cmd->add_option("--max-rounds", a->max_rounds, "model calls per request in server/mixed mode")
      ->check(CLI::Range(1, 100));
  cmd->add_option("--tool-timeout-ms", a->tool_timeout_ms, "per server tool call")
      ->check(CLI::Range(1, 3600000));
  cmd->add_option("--transport", a->transport,
                  "upstream HTTP client: asio (HTTP/1.1 on the server's threads, default) or curl "
                  "(HTTP/2, proxies from the environment)")
      ->check(CLI::IsMember({"asio", "curl"}));
  cmd->callback([a] { std::exit(run_serve(*a)); });
}

}  // namespace toolwire::cli
