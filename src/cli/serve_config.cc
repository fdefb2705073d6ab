// `toolwire serve`'s flags → gateway::GatewayConfig, the struct the YAML
// loader produces, so both go through one builder (gateway/config/build.cc).
#include <cstdlib>
#include <fstream>
#include <iterator>

#include "cli/serve_args.h"
#include "toolwire/dialects/dialect.h"
#include "toolwire/redis/url.h"
#include "toolwire/telemetry/otlp_exporter.h"
#include "toolwire/textprovider/upstream.h"
#include "toolwire/transport/http_types.h"

namespace toolwire::cli {
namespace {

Error usage(std::string message) {
  return make_error(ErrorCode::invalid_argument, std::move(message));
}

// --listen HOST:PORT ([::1]:PORT for IPv6).
Status parse_listen(const std::string& listen, gateway::GatewayOptions& o) {
  auto colon = listen.rfind(':');
  if (colon == std::string::npos)
    return usage("--listen: expected HOST:PORT, got '" + listen + "'");
  std::string host = listen.substr(0, colon);
  if (host.size() > 1 && host.front() == '[') host = host.substr(1, host.size() - 2);
  char* end = nullptr;
  long port = std::strtol(listen.c_str() + colon + 1, &end, 10);
  if (*end != '\0' || port < 0 || port > 65535)
    return usage("--listen: bad port in '" + listen + "'");
  o.host = host;
  o.port = static_cast<uint16_t>(port);
  return Status::Ok();
}

// The flags that win over a file's settings, and apply alone too.
void apply_overrides(const ServeArgs& a, gateway::GatewayOptions& o) {
  if (a.quiet) o.log_requests = false;
  if (a.conductor_grace_given)
    o.conductor.resume_grace = std::chrono::milliseconds(a.conductor_grace_ms);
  if (a.conductor_ui_calls) o.conductor.ui_calls = true;
  if (!a.conductor_origins.empty()) o.conductor.allowed_origins = a.conductor_origins;
  if (!a.mcp_origins.empty()) o.mcp.allowed_origins = a.mcp_origins;
  if (a.no_mcp) o.mcp.enabled = false;
  if (a.max_connections > 0) o.limits.max_connections = a.max_connections;
  if (a.max_per_address) o.limits.max_connections_per_address = *a.max_per_address;
  if (a.max_queued_bytes > 0) o.limits.max_queued_bytes = static_cast<size_t>(a.max_queued_bytes);
  if (a.write_timeout_ms > 0)
    o.limits.write_timeout = std::chrono::milliseconds(a.write_timeout_ms);
  if (!a.tls_cert.empty()) o.tls.cert_file = a.tls_cert;
  if (!a.tls_key.empty()) o.tls.key_file = a.tls_key;
}

// --record / --replay / --replay-pacing, over the file's record: / replay:.
Status apply_recording(const ServeArgs& a, gateway::RecordingConfig& r) {
  using Mode = gateway::RecordingConfig::Mode;
  if (!a.record.empty() && !a.replay.empty())
    return usage("--record and --replay exclude each other (record once, then replay)");
  if (!a.record.empty()) r = {.mode = Mode::record, .dir = a.record};
  if (!a.replay.empty()) r = {.mode = Mode::replay, .dir = a.replay};
  if (a.replay_pacing) {
    if (r.mode != Mode::replay) return usage("--replay-pacing goes with --replay DIR");
    r.pacing = true;
  }
  return Status::Ok();
}

// --otlp-endpoint / --otlp-header, over the file's telemetry.otlp: the
// flag's URL wins; a flag's header replaces the file's of that name.
Status apply_otlp(const ServeArgs& a, gateway::OtlpConfig& o) {
  if (!a.otlp_endpoint.empty()) {
    auto url = telemetry::otlp_traces_url(a.otlp_endpoint);
    if (!url) return usage("--otlp-endpoint: " + url.error().message);
    o.url = *url;
  }
  if (!a.otlp_headers.empty() && o.url.empty())
    return usage("--otlp-header needs --otlp-endpoint (or telemetry.otlp in the file)");
  for (const auto& h : a.otlp_headers) {
    const size_t eq = h.find('=');
    if (eq == std::string::npos)
      return usage("--otlp-header: expected NAME=VALUE, got a name only");
    std::string name = h.substr(0, eq), value = h.substr(eq + 1);
    if (auto why = telemetry::otlp_header_problem(name, value); !why.empty())
      return usage("--otlp-header: " + why);
    std::erase_if(o.headers, [&](const auto& kv) { return transport::iequals(kv.first, name); });
    o.headers.emplace_back(std::move(name), std::move(value));
  }
  return Status::Ok();
}

// "openai", "anthropic=http://h:p", "openai_compatible=http://h:p/v1",
// "scripted": the upstream, named by its kind.
Result<gateway::UpstreamConfig> upstream_of(const ServeArgs& a) {
  gateway::UpstreamConfig u;
  std::string kind = a.upstream;
  if (auto eq = kind.find('='); eq != std::string::npos) {
    u.base_url = kind.substr(eq + 1);
    kind = kind.substr(0, eq);
  }
  u.name = u.profile = kind;
  u.api_key_env = a.key_env;
  if (kind == textprovider::kScriptedProfile) return u;
  // A dialect's name or alias picks its official profile (profile.h).
  const dialects::Dialect* dialect = dialects::find_dialect(kind);
  if (kind != "openai_compatible" && (!dialect || !dialect->has_codec()))
    return usage("--upstream: unknown kind '" + kind + "' (" +
                 dialects::dialect_names(
                     +[](const dialects::Dialect& d) { return d.has_codec(); }, ", ") +
                 ", openai_compatible=BASE_URL, scripted)");
  if (kind == "openai_compatible" && u.base_url.empty())
    return usage(
        "--upstream openai_compatible needs a base URL: openai_compatible=http://HOST:PORT/v1");
  return u;
}

Result<gateway::GatewayConfig> from_flags(const ServeArgs& a) {
  gateway::GatewayConfig c;
  c.source = "command line";
  gateway::GatewayOptions& o = c.options;
  o.threads = a.threads;
  o.stream_keepalive = std::chrono::milliseconds(a.keepalive_ms);
  o.upstream_content_idle = std::chrono::milliseconds(a.upstream_idle_ms);
  o.drain_deadline = std::chrono::milliseconds(a.drain_ms);
  o.log_requests = !a.quiet;

  gateway::RouteToolsConfig tools;
  std::string mode = !a.tools.empty() ? a.tools : a.upstream.empty() ? "server" : "passthrough";
  tools.mode = mode == "server"  ? gateway::ToolMode::server
               : mode == "mixed" ? gateway::ToolMode::mixed
                                 : gateway::ToolMode::passthrough;
  tools.workspace = a.workspace;
  tools.demo_todo = true;
  tools.data_dir = a.data_dir;
  tools.max_rounds = a.max_rounds;
  tools.tool_timeout = std::chrono::milliseconds(a.tool_timeout_ms);
  auto route = [&](std::string pattern, const std::string& upstream, std::string model = {}) {
    gateway::RouteConfig r;
    r.model = std::move(pattern);
    r.targets.push_back({upstream, std::move(model)});
    r.tools = tools;
    c.routes.push_back(std::move(r));
  };

  if (!a.upstream.empty()) {
    auto u = upstream_of(a);
    if (!u) return std::move(u).error();
    route("*", u->name, a.upstream_model);
    c.upstreams.push_back(std::move(*u));
  } else {
    // Offline on the scripted model; real providers for their model
    // families when their keys are in the environment.
    c.upstreams.push_back(
        {.name = "scripted", .profile = std::string(textprovider::kScriptedProfile)});
    route("*", "scripted");
    auto add_env = [&](const char* env, const char* profile,
                       std::initializer_list<const char*> globs) {
      const char* v = std::getenv(env);
      if (!v || !*v) return;
      c.upstreams.push_back({.name = profile, .profile = profile});
      for (const char* g : globs) route(g, profile);
    };
    add_env("OPENAI_API_KEY", "openai", {"gpt-*", "o1*", "o3*", "o4*", "chatgpt-*"});
    add_env("ANTHROPIC_API_KEY", "anthropic", {"claude-*"});
  }
  // /mcp serves the routes' server tools, and only when the routes run them:
  // a passthrough gateway exposes no tools of its own, on /mcp neither.
  c.mcp_endpoint = o.mcp.enabled && !a.no_mcp && tools.mode != gateway::ToolMode::passthrough;
  c.mcp_endpoint_tools = tools;
  c.mcp_endpoint_tools.mode = gateway::ToolMode::server;
  return c;
}

}  // namespace

Result<gateway::GatewayConfig> serve_config(const ServeArgs& a) {
  gateway::GatewayConfig c;
  if (!a.config.empty()) {
    auto file = gateway::load_config_file(a.config);
    if (!file) return usage(file.error().message);
    c = std::move(*file);
  } else {
    auto flags = from_flags(a);
    if (!flags) return flags;
    c = std::move(*flags);
  }
  // The file's listen address, unless --listen is on the command line.
  gateway::GatewayOptions listen;
  TW_TRY(parse_listen(a.listen, listen));
  if (a.config.empty() || a.listen_given) {
    c.options.host = listen.host;
    c.options.port = listen.port;
  }
  apply_overrides(a, c.options);
  if (auto mode = parse_loss_mode(a.on_loss))
    for (auto& r : c.routes) r.on_loss.mode = *mode;
  const gateway::TlsOptions& tls = c.options.tls;
  if (tls.cert_file.empty() != tls.key_file.empty())
    return usage(tls.cert_file.empty() ? "--tls-key needs --tls-cert (or tls.cert in the file)"
                                       : "--tls-cert needs --tls-key (or tls.key in the file)");
  TW_TRY(apply_recording(a, c.recording));
  // Traces are on by default for `serve` (the file may say otherwise), in
  // --data-dir when given.
  if (a.no_traces) c.telemetry.traces = false;
  if (!c.telemetry.traces.has_value()) c.telemetry.traces = true;
  if (!a.data_dir.empty()) c.telemetry.data_dir = a.data_dir;
  // --redis wins over the file's redis.url (the section's other settings stay).
  if (!a.redis.empty()) {
    if (auto url = redis::parse_url(a.redis); !url) return usage("--redis: " + url.error().message);
    c.options.shared.redis_url = a.redis;
  }
  TW_TRY(apply_otlp(a, c.telemetry.otlp));
  // --transport / --upstream-ca-file win over the file's upstream_client.
  if (!a.transport.empty()) c.upstream_client.transport = a.transport;
  if (!a.upstream_ca_file.empty()) c.upstream_client.ca_file = a.upstream_ca_file;
  if (const std::string& ca = c.upstream_client.ca_file; !ca.empty()) {
    // Checked here: both clients would only fail each HTTPS call later.
    std::ifstream in(ca);
    std::string pem((std::istreambuf_iterator<char>(in)), std::istreambuf_iterator<char>());
    if (!in.good() && !in.eof()) return usage("upstream CA file " + ca + ": cannot read it");
    if (pem.find("-----BEGIN CERTIFICATE-----") == std::string::npos)
      return usage("upstream CA file " + ca + ": no PEM certificate in it");
  }
  return c;
}

}  // namespace toolwire::cli
