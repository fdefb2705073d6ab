// YAML → GatewayConfig. yaml-cpp throws; everything here is caught and
// turned into an Error naming file:line:column and the key path.
#include <yaml-cpp/yaml.h>

#include <algorithm>
#include <cctype>
#include <cstdlib>
#include <fstream>
#include <set>
#include <sstream>

#include "gateway/config/conductor_section.h"
#include "gateway/config/reader.h"
#include "gateway/config/redis_section.h"
#include "gateway/config/telemetry_section.h"
#include "toolwire/gateway/config.h"
#include "toolwire/textprovider/text_provider.h"
#include "toolwire/textprovider/upstream.h"
#include "toolwire/tools/builtin.h"

namespace toolwire::gateway {
namespace {

using config_yaml::Reader;

bool valid_env_name(const std::string& s) {
  if (s.empty() || (s[0] >= '0' && s[0] <= '9')) return false;
  for (char c : s)
    if (!(c == '_' || (c >= 'A' && c <= 'Z') || (c >= 'a' && c <= 'z') || (c >= '0' && c <= '9')))
      return false;
  return true;
}

Status read_limits(const Reader& r, const YAML::Node& n, Limits& l) {
  const std::string p = "limits";
  TW_TRY(
      r.keys(n, p,
             {"max_body_bytes", "max_header_bytes", "max_messages", "max_tools", "max_connections",
              "max_connections_per_address", "max_pipelined", "header_timeout_ms",
              "body_timeout_ms", "keepalive_idle_ms", "max_queued_bytes", "write_timeout_ms"}));
  TW_TRY(r.integer_as(n, p, "max_body_bytes", 1024, 1L << 30, l.max_body_bytes));
  TW_TRY(r.integer_as(n, p, "max_header_bytes", 1024, 1L << 20, l.max_header_bytes));
  TW_TRY(r.integer_as(n, p, "max_messages", 1, 1'000'000, l.max_messages));
  TW_TRY(r.integer_as(n, p, "max_tools", 0, 100'000, l.max_tools));
  TW_TRY(r.integer_as(n, p, "max_connections", 1, 1'000'000, l.max_connections));
  TW_TRY(r.integer_as(n, p, "max_connections_per_address", 0, 1'000'000,
                      l.max_connections_per_address));
  TW_TRY(r.integer_as(n, p, "max_pipelined", 1, 1024, l.max_pipelined));
  TW_TRY(r.millis(n, p, "header_timeout_ms", 10, 3'600'000, l.header_timeout));
  TW_TRY(r.millis(n, p, "body_timeout_ms", 10, 3'600'000, l.body_timeout));
  TW_TRY(r.millis(n, p, "keepalive_idle_ms", 10, 86'400'000, l.keepalive_idle));
  TW_TRY(r.integer_as(n, p, "max_queued_bytes", 16 * 1024, 1L << 30, l.max_queued_bytes));
  TW_TRY(r.millis(n, p, "write_timeout_ms", 10, 3'600'000, l.write_timeout));
  return Status::Ok();
}

Status read_tools(const Reader& r, const YAML::Node& n, const std::string& p, RouteToolsConfig& t) {
  TW_TRY(
      r.keys(n, p,
             {"mode", "workspace", "builtins", "shell_allow", "demo_todo", "data_dir", "max_rounds",
              "tool_timeout_ms", "tool_prefix", "builtin_when_client_has_no_tools", "mcp"}));
  std::string mode = "passthrough";
  TW_TRY(r.str(n, p, "mode", mode));
  if (mode == "passthrough")
    t.mode = ToolMode::passthrough;
  else if (mode == "server")
    t.mode = ToolMode::server;
  else if (mode == "mixed")
    t.mode = ToolMode::mixed;
  else
    return r.error(n["mode"], p + ".mode",
                   "expected passthrough, server or mixed, got '" + mode + "'");
  TW_TRY(r.str(n, p, "workspace", t.workspace));
  TW_TRY(r.strings(n, p, "builtins", t.builtins));
  const auto& known = tools::builtin_tool_names();
  for (size_t i = 0; i < t.builtins.size(); ++i)
    if (std::find(known.begin(), known.end(), t.builtins[i]) == known.end())
      return r.error(n["builtins"][i], p + ".builtins[" + std::to_string(i) + "]",
                     "unknown built-in tool '" + t.builtins[i] + "'");
  TW_TRY(r.strings(n, p, "shell_allow", t.shell_allow));
  bool wants_shell = std::find(t.builtins.begin(), t.builtins.end(), "shell") != t.builtins.end();
  if (wants_shell && t.shell_allow.empty())
    return r.error(n["builtins"], p + ".builtins",
                   "shell needs an allow-list (shell_allow: [ls, git, ...])");
  TW_TRY(r.boolean(n, p, "demo_todo", t.demo_todo));
  TW_TRY(r.str(n, p, "data_dir", t.data_dir));
  long rounds = t.max_rounds;
  TW_TRY(r.integer(n, p, "max_rounds", 1, 100, rounds));
  t.max_rounds = static_cast<int>(rounds);
  TW_TRY(r.millis(n, p, "tool_timeout_ms", 1, 3'600'000, t.tool_timeout));
  TW_TRY(r.str(n, p, "tool_prefix", t.tool_prefix));
  auto name_char = [](char ch) {
    return std::isalnum(static_cast<unsigned char>(ch)) || ch == '_' || ch == '-';
  };
  if (t.tool_prefix.size() > 32 ||
      !std::all_of(t.tool_prefix.begin(), t.tool_prefix.end(), name_char))
    return r.error(n["tool_prefix"], p + ".tool_prefix",
                   "expected up to 32 of [a-zA-Z0-9_-], got '" + t.tool_prefix + "'");
  TW_TRY(r.boolean(n, p, "builtin_when_client_has_no_tools", t.builtin_when_client_has_no_tools));
  TW_TRY(r.strings(n, p, "mcp", t.mcp));
  return Status::Ok();
}

// mcp_servers: {NAME: {command, args, env, cwd | url, prefix, allow, deny, timeout_ms}}
Status read_mcp_servers(const Reader& r, const YAML::Node& n, std::vector<McpServerConfig>& out) {
  if (!n.IsMap()) return r.error(n, "mcp_servers", "expected a mapping of name → server");
  for (const auto& kv : n) {
    McpServerConfig m;
    m.name = kv.first.as<std::string>();
    std::string p = "mcp_servers." + m.name;
    const YAML::Node& s = kv.second;
    TW_TRY(r.keys(
        s, p, {"command", "args", "env", "cwd", "url", "prefix", "allow", "deny", "timeout_ms"}));
    auto name_char = [](char ch) {
      return std::isalnum(static_cast<unsigned char>(ch)) || ch == '_' || ch == '-';
    };
    if (m.name.empty() || m.name.size() > 32 ||
        !std::all_of(m.name.begin(), m.name.end(), name_char))
      return r.error(kv.first, p, "a server name is up to 32 of [a-zA-Z0-9_-]");
    std::string command;
    TW_TRY(r.str(s, p, "command", command));
    TW_TRY(r.str(s, p, "url", m.url));
    if (command.empty() == m.url.empty())
      return r.error(s, p, "give either command (stdio) or url (Streamable HTTP)");
    if (!m.url.empty() && !m.url.starts_with("http://") && !m.url.starts_with("https://"))
      return r.error(s["url"], p + ".url", "expected an http:// or https:// URL");
    if (!command.empty()) {
      std::vector<std::string> args;
      TW_TRY(r.strings(s, p, "args", args));
      m.argv.push_back(command);
      m.argv.insert(m.argv.end(), args.begin(), args.end());
    } else if (s["args"]) {
      return r.error(s["args"], p + ".args", "args go with command, not url");
    }
    if (YAML::Node e = s["env"]) {
      if (!e.IsMap()) return r.error(e, p + ".env", "expected a mapping of NAME: value");
      for (const auto& ev : e) {
        std::string k = ev.first.as<std::string>();
        if (!valid_env_name(k)) return r.error(ev.first, p + ".env." + k, "not a variable name");
        if (!ev.second.IsScalar()) return r.error(ev.second, p + ".env." + k, "expected a string");
        m.env.push_back(k + "=" + ev.second.Scalar());
      }
    }
    TW_TRY(r.str(s, p, "cwd", m.cwd));
    if (s["prefix"]) {
      TW_TRY(r.str(s, p, "prefix", m.prefix));
      m.no_prefix = m.prefix.empty();
      if (m.prefix.size() > 32 || !std::all_of(m.prefix.begin(), m.prefix.end(), name_char))
        return r.error(s["prefix"], p + ".prefix", "expected up to 32 of [a-zA-Z0-9_-]");
    }
    TW_TRY(r.strings(s, p, "allow", m.allow));
    TW_TRY(r.strings(s, p, "deny", m.deny));
    TW_TRY(r.millis(s, p, "timeout_ms", 1, 86'400'000, m.timeout));
    out.push_back(std::move(m));
  }
  return Status::Ok();
}

// mcp_endpoint: {enabled, allowed_origins, max_sessions, session_idle_ms, page_size,
// tool_timeout_ms, tools: {workspace, builtins, ..., mcp: [NAME]}}
Status read_mcp_endpoint(const Reader& r, const YAML::Node& n, GatewayConfig& c) {
  const std::string p = "mcp_endpoint";
  TW_TRY(r.keys(n, p,
                {"enabled", "allowed_origins", "max_sessions", "session_idle_ms", "page_size",
                 "tool_timeout_ms", "tools"}));
  McpEndpointOptions& o = c.options.mcp;
  TW_TRY(r.boolean(n, p, "enabled", o.enabled));
  TW_TRY(r.strings(n, p, "allowed_origins", o.allowed_origins));
  TW_TRY(r.integer_as(n, p, "max_sessions", 1, 1'000'000, o.max_sessions));
  TW_TRY(r.millis(n, p, "session_idle_ms", 1000, 86'400'000, o.session_idle));
  TW_TRY(r.integer_as(n, p, "page_size", 1, 10'000, o.page_size));
  TW_TRY(r.millis(n, p, "tool_timeout_ms", 1, 3'600'000, o.tool_timeout));
  c.mcp_endpoint = o.enabled;
  c.mcp_endpoint_tools.mode = ToolMode::server;
  if (n["tools"]) TW_TRY(read_tools(r, n["tools"], p + ".tools", c.mcp_endpoint_tools));
  c.mcp_endpoint_tools.mode = ToolMode::server;
  return Status::Ok();
}

// Every `mcp: [NAME]` of a tools section names a server of mcp_servers.
Status check_mcp_names(const Reader& r, const YAML::Node& tools, const std::string& p,
                       const RouteToolsConfig& t, const std::vector<McpServerConfig>& servers) {
  for (size_t i = 0; i < t.mcp.size(); ++i) {
    bool known = std::any_of(servers.begin(), servers.end(),
                             [&](const McpServerConfig& m) { return m.name == t.mcp[i]; });
    if (!known)
      return r.error(tools["mcp"][i], p + ".mcp[" + std::to_string(i) + "]",
                     "unknown MCP server '" + t.mcp[i] + "' (not in mcp_servers)");
  }
  return Status::Ok();
}

// `record: {dir}` or `replay: {dir, pacing}` (docs/replay.md).
Status read_recording(const Reader& r, const YAML::Node& root, RecordingConfig& out) {
  if (root["record"] && root["replay"])
    return r.error(root["replay"], "replay", "record and replay exclude each other");
  for (const char* key : {"record", "replay"}) {
    YAML::Node n = root[key];
    if (!n) continue;
    const bool replay = std::string_view(key) == "replay";
    TW_TRY(replay ? r.keys(n, key, {"dir", "pacing"}) : r.keys(n, key, {"dir"}));
    out.mode = replay ? RecordingConfig::Mode::replay : RecordingConfig::Mode::record;
    TW_TRY(r.str(n, key, "dir", out.dir));
    if (out.dir.empty()) return r.error(n, std::string(key) + ".dir", "required (a folder)");
    if (replay) TW_TRY(r.boolean(n, key, "pacing", out.pacing));
  }
  return Status::Ok();
}

Result<GatewayConfig> read(const Reader& r, const YAML::Node& root) {
  GatewayConfig c;
  c.source = r.file;
  if (!root || root.IsNull()) return r.error(root, "$", "the file is empty");
  TW_TRY(r.keys(root, "",
                {"listen",
                 "threads",
                 "tool_threads",
                 "limits",
                 "stream_keepalive_ms",
                 "upstream_idle_ms",
                 "drain_ms",
                 "log_requests",
                 "keys",
                 "upstreams",
                 "routes",
                 "mcp_servers",
                 "mcp_endpoint",
                 "conductor",
                 "response_store",
                 "tls",
                 "record",
                 "replay",
                 "telemetry",
                 "redis",
                 "upstream_client"}));
  GatewayOptions& o = c.options;
  std::string listen = "127.0.0.1:8080";
  TW_TRY(r.str(root, "", "listen", listen));
  auto colon = listen.rfind(':');
  char* end = nullptr;
  long port = colon == std::string::npos ? -1 : std::strtol(listen.c_str() + colon + 1, &end, 10);
  if (colon == std::string::npos || *end != '\0' || port < 0 || port > 65535)
    return r.error(root["listen"], "listen", "expected HOST:PORT, got '" + listen + "'");
  o.host = listen.substr(0, colon);
  if (o.host.size() > 1 && o.host.front() == '[') o.host = o.host.substr(1, o.host.size() - 2);
  o.port = static_cast<uint16_t>(port);
  TW_TRY(r.integer_as(root, "", "threads", 0, 1024, o.threads));
  TW_TRY(r.integer_as(root, "", "tool_threads", 1, 1024, o.tool_threads));
  if (root["limits"]) TW_TRY(read_limits(r, root["limits"], o.limits));
  TW_TRY(r.millis(root, "", "stream_keepalive_ms", 10, 3'600'000, o.stream_keepalive));
  TW_TRY(r.millis(root, "", "upstream_idle_ms", 10, 86'400'000, o.upstream_content_idle));
  TW_TRY(r.millis(root, "", "drain_ms", 0, 3'600'000, o.drain_deadline));
  TW_TRY(r.boolean(root, "", "log_requests", o.log_requests));
  if (YAML::Node t = root["tls"]) {
    TW_TRY(r.keys(t, "tls", {"cert", "key"}));
    TW_TRY(r.str(t, "tls", "cert", o.tls.cert_file));
    TW_TRY(r.str(t, "tls", "key", o.tls.key_file));
    if (o.tls.cert_file.empty() || o.tls.key_file.empty())
      return r.error(t, "tls", "needs both cert and key (PEM files)");
  }
  if (YAML::Node rs = root["response_store"]) {
    TW_TRY(r.keys(rs, "response_store", {"max_responses", "max_mb"}));
    TW_TRY(r.integer_as(rs, "response_store", "max_responses", 0, 10'000'000,
                        o.response_store.max_responses));
    size_t mb = o.response_store.max_bytes >> 20;
    TW_TRY(r.integer_as(rs, "response_store", "max_mb", 1, 1 << 20, mb));
    o.response_store.max_bytes = mb << 20;
  }

  if (YAML::Node rd = root["redis"]) TW_TRY(config_yaml::read_redis(r, rd, o.shared));
  if (YAML::Node uc = root["upstream_client"]) {
    TW_TRY(r.keys(uc, "upstream_client", {"transport", "ca_file"}));
    TW_TRY(r.str(uc, "upstream_client", "transport", c.upstream_client.transport));
    if (c.upstream_client.transport != "asio" && c.upstream_client.transport != "curl")
      return r.error(uc["transport"], "upstream_client.transport",
                     "expected asio or curl, got '" + c.upstream_client.transport + "'");
    TW_TRY(r.str(uc, "upstream_client", "ca_file", c.upstream_client.ca_file));
  }

  if (YAML::Node ks = root["keys"]) {
    if (!ks.IsSequence()) return r.error(ks, "keys", "expected a list");
    for (size_t i = 0; i < ks.size(); ++i) {
      std::string p = "keys[" + std::to_string(i) + "]";
      const YAML::Node& k = ks[i];
      TW_TRY(r.keys(
          k, p,
          {"name", "sha256", "models", "requests_per_minute", "max_concurrent_streams", "admin"}));
      KeyConfig kc;
      TW_TRY(r.str(k, p, "name", kc.name));
      TW_TRY(r.str(k, p, "sha256", kc.sha256_hex));
      if (kc.sha256_hex.empty())
        return r.error(k, p + ".sha256", "required (toolwire serve --hash-key makes one)");
      KeyRing probe;
      if (auto s = probe.add(kc); !s) return r.error(k["sha256"], p + ".sha256", s.error().message);
      TW_TRY(r.strings(k, p, "models", kc.models));
      TW_TRY(r.integer_as(k, p, "requests_per_minute", 0, 1'000'000, kc.requests_per_minute));
      TW_TRY(r.integer_as(k, p, "max_concurrent_streams", 0, 1'000'000, kc.max_concurrent_streams));
      TW_TRY(r.boolean(k, p, "admin", kc.admin));
      if (kc.name.empty()) kc.name = "key" + std::to_string(i);
      c.keys.push_back(std::move(kc));
    }
  }

  YAML::Node ups = root["upstreams"];
  if (!ups) return r.error(root, "upstreams", "required: at least one upstream");
  if (!ups.IsMap()) return r.error(ups, "upstreams", "expected a mapping of name → upstream");
  for (const auto& kv : ups) {
    UpstreamConfig u;
    u.name = kv.first.as<std::string>();
    std::string p = "upstreams." + u.name;
    const YAML::Node& n = kv.second;
    TW_TRY(r.keys(n, p,
                  {"profile", "base_url", "api_key_env", "tool_format", "timeout_ms",
                   "idle_timeout_ms", "max_attempts", "script"}));
    TW_TRY(r.str(n, p, "profile", u.profile));
    if (u.profile.empty())
      return r.error(
          n, p + ".profile",
          "required (" + textprovider::upstream_profile_names() + ", or another profile)");
    TW_TRY(r.str(n, p, "base_url", u.base_url));
    if (!u.base_url.empty()) {
      if (!u.base_url.starts_with("http://") && !u.base_url.starts_with("https://"))
        return r.error(n["base_url"], p + ".base_url", "expected an http:// or https:// URL");
      if (u.base_url.find('@') != std::string::npos)
        return r.error(n["base_url"], p + ".base_url",
                       "credentials in a URL are not accepted (use api_key_env)");
    }
    TW_TRY(r.str(n, p, "tool_format", u.tool_format));
    if (auto bad = textprovider::check_upstream(u.profile, u.base_url, u.tool_format)) {
      const YAML::Node& at = n[std::string(bad->field)] ? n[std::string(bad->field)] : n;
      return r.error(at, p + "." + std::string(bad->field), bad->message);
    }
    if (!u.tool_format.empty())
      if (Status s = textprovider::check_family(u.tool_format); !s)
        return r.error(n["tool_format"], p + ".tool_format", s.error().message);
    TW_TRY(r.str(n, p, "script", u.script));
    if (!u.script.empty() && u.profile != "scripted")
      return r.error(n["script"], p + ".script", "only a scripted upstream takes a script");
    TW_TRY(r.str(n, p, "api_key_env", u.api_key_env));
    if (!u.api_key_env.empty()) {
      if (!valid_env_name(u.api_key_env))
        return r.error(n["api_key_env"], p + ".api_key_env", "not an environment variable name");
      if (!std::getenv(u.api_key_env.c_str())) c.missing_env.push_back(u.api_key_env);
    }
    TW_TRY(r.millis(n, p, "timeout_ms", 1, 86'400'000, u.timeout));
    TW_TRY(r.millis(n, p, "idle_timeout_ms", 1, 86'400'000, u.idle_timeout));
    TW_TRY(r.integer_as(n, p, "max_attempts", 1, 10, u.max_attempts));
    c.upstreams.push_back(std::move(u));
  }

  if (root["mcp_servers"]) TW_TRY(read_mcp_servers(r, root["mcp_servers"], c.mcp_servers));
  if (root["mcp_endpoint"]) {
    TW_TRY(read_mcp_endpoint(r, root["mcp_endpoint"], c));
    if (root["mcp_endpoint"]["tools"])
      TW_TRY(check_mcp_names(r, root["mcp_endpoint"]["tools"], "mcp_endpoint.tools",
                             c.mcp_endpoint_tools, c.mcp_servers));
  }

  YAML::Node routes = root["routes"];
  if (!routes) return r.error(root, "routes", "required: at least one route");
  if (!routes.IsSequence()) return r.error(routes, "routes", "expected a list");
  for (size_t i = 0; i < routes.size(); ++i) {
    std::string p = "routes[" + std::to_string(i) + "]";
    const YAML::Node& n = routes[i];
    TW_TRY(r.keys(n, p,
                  {"model", "aliases", "upstreams", "tools", "turn_protocol", "on_loss",
                   "allow_loss", "capture_content"}));
    RouteConfig rc;
    TW_TRY(r.str(n, p, "model", rc.model));
    TW_TRY(r.boolean(n, p, "capture_content", rc.capture_content));
    if (n["on_loss"]) {
      std::string mode;
      TW_TRY(r.str(n, p, "on_loss", mode));
      auto m = parse_loss_mode(mode);
      if (!m) return r.error(n["on_loss"], p + ".on_loss", "expected warn or error");
      rc.on_loss.mode = *m;
    }
    TW_TRY(r.strings(n, p, "allow_loss", rc.on_loss.allow));
    if (n["turn_protocol"]) {
      std::string tp;
      TW_TRY(r.str(n, p, "turn_protocol", tp));
      auto proto = agent::parse_turn_protocol(tp);
      if (!proto) return r.error(n["turn_protocol"], p + ".turn_protocol", proto.error().message);
      rc.turn_protocol = *proto;
    }
    if (rc.model.empty())
      return r.error(n, p + ".model", "required (a model name or a glob such as gpt-*)");
    TW_TRY(r.strings(n, p, "aliases", rc.aliases));
    YAML::Node ts = n["upstreams"];
    if (!ts || !ts.IsSequence() || ts.size() == 0)
      return r.error(ts ? ts : n, p + ".upstreams",
                     "required: a list of upstream names (primary first)");
    for (size_t j = 0; j < ts.size(); ++j) {
      std::string tp = p + ".upstreams[" + std::to_string(j) + "]";
      RouteTargetConfig t;
      if (ts[j].IsScalar()) {
        t.upstream = ts[j].Scalar();
      } else {
        TW_TRY(r.keys(ts[j], tp, {"upstream", "model"}));
        TW_TRY(r.str(ts[j], tp, "upstream", t.upstream));
        TW_TRY(r.str(ts[j], tp, "model", t.model));
      }
      bool known = std::any_of(c.upstreams.begin(), c.upstreams.end(),
                               [&](const UpstreamConfig& u) { return u.name == t.upstream; });
      if (!known) return r.error(ts[j], tp, "unknown upstream '" + t.upstream + "'");
      rc.targets.push_back(std::move(t));
    }
    if (n["tools"]) {
      TW_TRY(read_tools(r, n["tools"], p + ".tools", rc.tools));
      TW_TRY(check_mcp_names(r, n["tools"], p + ".tools", rc.tools, c.mcp_servers));
    }
    c.routes.push_back(std::move(rc));
  }
  if (root["conductor"]) TW_TRY(config_yaml::read_conductor(r, root["conductor"], c));
  TW_TRY(read_recording(r, root, c.recording));
  if (YAML::Node t = root["telemetry"]) TW_TRY(config_yaml::read_telemetry(r, t, c.telemetry));
  return c;
}

}  // namespace

Result<GatewayConfig> load_config_string(std::string_view yaml, const std::string& name) {
  Reader r{name};
  try {
    YAML::Node root = YAML::Load(std::string(yaml));
    return read(r, root);
  } catch (const YAML::Exception& e) {
    std::string where = name;
    if (e.mark.line >= 0)
      where += ":" + std::to_string(e.mark.line + 1) + ":" + std::to_string(e.mark.column + 1);
    return make_error(ErrorCode::invalid_argument, where + ": " + e.msg);
  }
}

Result<GatewayConfig> load_config_file(const std::string& path) {
  std::ifstream in(path, std::ios::binary);
  if (!in) return make_error(ErrorCode::not_found, path + ": cannot open the file");
  std::ostringstream ss;
  ss << in.rdbuf();
  return load_config_string(ss.str(), path);
}

}  // namespace toolwire::gateway
