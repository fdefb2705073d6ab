// `toolwire serve`: the flags (or --config with the flags that win over it)
// become one gateway::GatewayConfig (serve_config.cc), which the gateway's
// builder turns into the router; the CLI lends it the offline demo. Stops on
// SIGTERM / SIGINT; SIGHUP reloads the TLS certificate. All serving logic
// lives in the server library.
#include <pthread.h>
#include <signal.h>

#include <cstdio>
#include <iostream>

#include "cli/commands.h"
#include "cli/offline_demo.h"
#include "cli/serve_args.h"
#include "toolwire/dialects/dialect.h"
#include "toolwire/gateway/config.h"
#include "toolwire/gateway/gateway.h"
#include "toolwire/gateway/routing.h"
#include "toolwire/mcp/client.h"
#include "toolwire/transport/asio_client.h"

namespace toolwire::cli {
namespace {

int usage_error(const std::string& msg) {
  std::fprintf(stderr, "toolwire serve: %s\n", msg.c_str());
  return kExitUsage;
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
  if (!cfg) return usage_error(cfg.error().message);
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
  auto config = serve_config(a);
  if (!config) return usage_error(config.error().message);
  const gateway::GatewayOptions& opt = config->options;

  // Signals are taken by sigwait() below, never by a worker thread: block
  // them before any thread (transport, gateway) starts.
  sigset_t sigs;
  sigemptyset(&sigs);
  sigaddset(&sigs, SIGTERM);
  sigaddset(&sigs, SIGINT);
  sigaddset(&sigs, SIGHUP);
  pthread_sigmask(SIG_BLOCK, &sigs, nullptr);
  signal(SIGPIPE, SIG_IGN);

  gateway::Gateway gw(opt);
  // Upstream calls run on the gateway's own threads (asio), or on libcurl's
  // loop thread when HTTP/2 or a proxy from the environment is needed.
  std::unique_ptr<transport::HttpTransport> client;
  if (config->upstream_client.transport == "curl")
    client = std::make_unique<transport::HttpClient>(
        transport::HttpClientOptions{.ca_file = config->upstream_client.ca_file});
  else
    // The gateway's workers each run their own io_context on one thread:
    // the client's calls need no strand of their own there.
    client = std::make_unique<transport::AsioHttpClient>(
        gw.io_context(), transport::AsioClientOptions{.ca_file = config->upstream_client.ca_file,
                                                      .one_thread_contexts = true});
  for (const auto& v : config->missing_env)
    std::fprintf(stderr, "toolwire serve: warning: environment variable %s is not set\n",
                 v.c_str());
  auto built = gateway::build_gateway(*config, *client, offline_demo());
  if (!built) {
    std::fprintf(stderr, "toolwire serve: %s\n", built.error().message.c_str());
    return kExitFailure;
  }
  gw.set_router(built->router);
  gw.set_keys(built->keys);
  gw.set_traces(built->traces);
  gw.set_otlp(built->otlp);
  if (!built->traces_warning.empty())
    std::fprintf(stderr, "toolwire serve: warning: %s\n", built->traces_warning.c_str());
  std::vector<std::string> described = built->described;
  if (built->mcp_tools) {
    gw.set_mcp_tools(built->mcp_tools);
    // /mcp's MCP servers changed their tools: its sessions get the new ones
    // (and notifications/tools/list_changed on their GET stream).
    if (built->mcp_tools_live)
      built->mcp_tools_live->subscribe(
          [&gw](std::shared_ptr<const tools::Registry> r) { gw.set_mcp_tools(std::move(r)); });
    described.push_back("/mcp -> " + std::to_string(built->mcp_tools->size()) +
                        " tools (MCP, Streamable HTTP)");
  }
  if (auto s = gw.start(); !s) {
    std::fprintf(stderr, "toolwire serve: %s\n", s.error().to_string().c_str());
    return kExitFailure;
  }
  std::string shown = opt.host.find(':') != std::string::npos ? "[" + opt.host + "]" : opt.host;
  std::printf("toolwire serve: listening on %s://%s:%u\n", gw.tls() ? "https" : "http",
              shown.c_str(), gw.port());
  std::fflush(stdout);
  if (!a.quiet)
    for (const auto& d : described) std::fprintf(stderr, "toolwire serve: route %s\n", d.c_str());

  int sig = 0;
  while (sigwait(&sigs, &sig) == 0 && sig == SIGHUP) {
    // New connections get the files' certificate; open ones keep theirs.
    if (!gw.tls()) {
      std::fprintf(stderr, "toolwire serve: SIGHUP: no TLS configured, nothing to reload\n");
    } else if (auto s = gw.reload_tls(); !s) {
      std::fprintf(stderr, "toolwire serve: SIGHUP: %s (the previous certificate stays in use)\n",
                   s.error().message.c_str());
    } else {
      std::fprintf(stderr, "toolwire serve: SIGHUP: reloaded the TLS certificate from %s\n",
                   opt.tls.cert_file.c_str());
    }
  }
  if (!a.quiet)
    std::fprintf(stderr, "toolwire serve: %s, draining\n", sig == SIGTERM ? "SIGTERM" : "SIGINT");
  gw.stop();
  gw.wait();
  for (auto& c : built->mcp_clients) c->close();
  return 0;
}

}  // namespace

void add_serve_command(CLI::App& app) {
  auto a = std::make_shared<ServeArgs>();
  auto* cmd = app.add_subcommand("serve", "Run the gateway: the endpoints of every dialect (" +
                                              dialects::dialect_names(nullptr, ", ") +
                                              ") over any upstream");
  cmd->add_option("--listen", a->listen, "HOST:PORT to listen on (port 0: any free port)")
      ->each([a](const std::string&) { a->listen_given = true; });
  cmd->add_option("--config", a->config, "gateway configuration (YAML; see examples/gateway.yaml)");
  cmd->add_option("--check-config", a->check_config,
                  "validate a configuration file and exit (0: valid)");
  cmd->add_flag("--hash-key", a->hash_key,
                "read a gateway key on standard input, print its sha256: line");
  cmd->add_option(
      "--upstream", a->upstream,
      dialects::dialect_names([](const dialects::Dialect& d) { return d.has_codec(); }) +
          " (each [=BASE_URL]) | openai_compatible=BASE_URL | scripted: route every model there "
          "(default: the offline scripted model, plus openai / anthropic for gpt-* / claude-* "
          "when OPENAI_API_KEY / ANTHROPIC_API_KEY are set)");
  cmd->add_option("--upstream-key-env", a->key_env,
                  "environment variable holding the upstream's API key");
  cmd->add_option("--upstream-model", a->upstream_model,
                  "model name sent upstream (default: the client's, unchanged: an OpenAI "
                  "client's gpt-* name reaches an Anthropic upstream as it is)");
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
  cmd->add_option("--tls-cert", a->tls_cert,
                  "serve HTTPS (TLS 1.2+) with this PEM certificate chain (reloaded on SIGHUP)");
  cmd->add_option("--tls-key", a->tls_key, "the PEM private key of --tls-cert");
  cmd->add_flag("--no-mcp", a->no_mcp, "do not serve the server tools on /mcp");
  cmd->add_option("--redis", a->redis,
                  "redis://HOST:PORT[/DB]: share the keys' limits and the response store with "
                  "the other replicas using this Redis (docs/deploy.md; also redis.url in "
                  "--config)");
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
  cmd->add_option("--on-loss", a->on_loss,
                  "a request whose translation would drop or approximate something: warn (go "
                  "on, toolwire-warnings header; default) or error (a 400 naming each loss, "
                  "nothing sent upstream); with --config, for every route")
      ->check(CLI::IsMember({"warn", "error"}));
  cmd->add_option("--transport", a->transport,
                  "upstream HTTP client: asio (HTTP/1.1 on the server's threads, default) or curl "
                  "(HTTP/2 by ALPN to HTTPS upstreams, proxies from the environment); also "
                  "upstream_client.transport in --config")
      ->check(CLI::IsMember({"asio", "curl"}));
  cmd->add_option("--upstream-ca-file", a->upstream_ca_file,
                  "PEM file of the CAs that HTTPS upstreams' certificates are checked against "
                  "(default: the system's; also upstream_client.ca_file in --config)");
  cmd->add_option("--record", a->record,
                  "write every upstream exchange into this folder (docs/replay.md)");
  cmd->add_option("--replay", a->replay,
                  "answer from the exchanges recorded in this folder, with no network "
                  "(docs/replay.md)");
  cmd->add_flag("--replay-pacing", a->replay_pacing,
                "with --replay: send the answers at the recorded pace");
  cmd->add_option("--otlp-endpoint", a->otlp_endpoint,
                  "export traces to an OpenTelemetry collector over OTLP/HTTP (protobuf): its "
                  "URL, e.g. http://127.0.0.1:4318 (/v1/traces is added when the path is "
                  "missing)");
  cmd->add_option("--otlp-header", a->otlp_headers,
                  "NAME=VALUE header sent to the collector (repeat; e.g. its auth)");
  cmd->add_flag("--no-traces", a->no_traces,
                "keep no traces (default: each request's in SQLite under --data-dir, "
                "GET /v1/traces)");
  cmd->callback([a] { std::exit(run_serve(*a)); });
}

}  // namespace toolwire::cli
