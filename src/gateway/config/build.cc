// GatewayConfig → providers, router, keys, server tools.
#include <algorithm>
#include <cstdio>
#include <cstdlib>
#include <mutex>
#include <set>

#include "gateway/replay/transport.h"
#include "toolwire/gateway/config.h"
#include "toolwire/gateway/routing.h"
#include "toolwire/telemetry/otlp_exporter.h"
#include "toolwire/telemetry/trace_store.h"
#include "toolwire/textprovider/upstream.h"
#include "toolwire/tools/builtin.h"
#include "toolwire/tools/names.h"

namespace toolwire::gateway {
namespace {

Result<std::unique_ptr<provider::Provider>> make_upstream(const UpstreamConfig& u,
                                                          transport::HttpTransport& t,
                                                          const OfflineDemo& demo, bool replaying) {
  textprovider::UpstreamSpec s;
  s.provider.profile = u.profile;
  s.provider.name = u.name;
  s.provider.base_url = u.base_url;
  s.provider.api_key_env = u.api_key_env;
  s.provider.deadline = u.timeout;
  s.provider.idle_timeout = u.idle_timeout;
  s.provider.retry.max_attempts = u.max_attempts;
  s.tool_format = u.tool_format;
  s.script_file = u.script;
  s.default_script = demo.script;
  s.key_optional = replaying;  // a replay calls no one: CI needs no key
  return textprovider::make_upstream(s, &t);
}

// Where traces live without `telemetry.data_dir`: the XDG data folder, as
// the demo's to-do list.
std::string default_data_dir() {
  if (const char* x = std::getenv("XDG_DATA_HOME"); x && *x) return std::string(x) + "/toolwire";
  if (const char* h = std::getenv("HOME"); h && *h)
    return std::string(h) + "/.local/share/toolwire";
  return ".";
}

// The trace store `telemetry:` asks for; a folder that cannot be opened
// turns traces off with a warning, never the gateway.
void open_traces(const TelemetryConfig& t, BuiltGateway& out) {
  if (!t.traces.value_or(false)) return;
  const std::string dir = t.data_dir.empty() ? default_data_dir() : t.data_dir;
  auto store = telemetry::TraceStore::open(
      {.path = dir + "/traces.db", .max_traces = t.max_traces, .max_bytes = t.max_mb << 20});
  if (store)
    out.traces = std::move(*store);
  else
    out.traces_warning = store.error().message + " (traces are off)";
}

// The OTLP exporter `telemetry.otlp` asks for (its sender thread starts
// now; nothing is sent before the first trace).
void open_otlp(const OtlpConfig& o, BuiltGateway& out) {
  if (o.url.empty()) return;
  out.otlp = telemetry::OtlpExporter::start({.url = o.url,
                                             .headers = o.headers,
                                             .service_name = o.service_name,
                                             .batch_size = o.batch_size,
                                             .flush_interval = o.flush_interval,
                                             .queue_limit = o.queue_limit,
                                             .timeout = o.timeout});
}

}  // namespace

namespace {

// A route's own tools (built-ins, demo), built once; the MCP servers' tools
// are added at each compose().
struct RouteToolsRecipe {
  RouteToolsConfig config;
  std::vector<tools::ToolSpec> own;
};

Result<RouteToolsRecipe> make_recipe(const RouteToolsConfig& c, const OfflineDemo& demo) {
  RouteToolsRecipe r;
  r.config = c;
  if (c.mode == ToolMode::passthrough && !c.builtin_when_client_has_no_tools) return r;
  tools::BuiltinOptions b;
  b.workspace = c.workspace;
  b.enabled = std::set<std::string>(c.builtins.begin(), c.builtins.end());
  b.shell_allow = c.shell_allow;
  if (!b.enabled.empty()) {
    auto specs = tools::builtin_tool_specs(b);
    if (!specs) return std::move(specs).error();
    for (auto& spec : *specs) r.own.push_back(std::move(spec));
  }
  if (c.demo_todo) {
    if (!demo.todo_tools)
      return make_error(ErrorCode::failed_precondition,
                        "demo_todo: the offline demo's tools are not available here");
    auto todo = demo.todo_tools(c.data_dir);
    if (!todo) return std::move(todo).error();
    for (auto& spec : *todo) r.own.push_back(std::move(spec));
  }
  return r;
}

// Built into a scratch registry first, then added under the route's prefix:
// the model sees `gw_read`, the registry dispatches it to `read`'s handler.
Result<std::shared_ptr<const tools::Registry>> compose(const RouteToolsRecipe& r,
                                                       const McpToolSets& mcp) {
  tools::Registry scratch;
  for (const auto& spec : r.own) TW_TRY(scratch.add(spec));
  // MCP servers' tools keep their handlers (bound to the shared client).
  for (const auto& name : r.config.mcp) {
    auto it = mcp.find(name);
    if (it == mcp.end())
      return make_error(ErrorCode::not_found, "no connected MCP server '" + name + "'");
    for (const auto& tool : it->second->tools()) TW_TRY(scratch.add(tool->spec()));
  }
  auto reg = std::make_shared<tools::Registry>();
  for (const auto& tool : scratch.tools()) {
    tools::ToolSpec spec = tool->spec();
    spec.name = r.config.tool_prefix + spec.name;
    TW_TRY(reg->add(std::move(spec)));
  }
  return std::shared_ptr<const tools::Registry>(std::move(reg));
}

std::shared_ptr<RouteTools> route_tools_of(const RouteToolsConfig& c) {
  auto t = std::make_shared<RouteTools>();
  t->mode = c.mode;
  t->max_rounds = c.max_rounds;
  t->tool_timeout = c.tool_timeout;
  t->builtin_when_client_has_no_tools = c.builtin_when_client_has_no_tools;
  return t;
}

}  // namespace

// Routes' and /mcp's tools kept in step with their MCP servers: a server's
// list_changed (on its client's reader thread) re-reads that server's tools
// from the client's new listing and re-composes every registry that uses it.
struct McpLiveTools {
  std::mutex mu;  // one rebuild at a time
  std::map<std::string, McpServerConfig> configs;
  std::map<std::string, std::shared_ptr<mcp::Client>> clients;
  McpToolSets sets;
  struct User {
    RouteToolsRecipe recipe;
    std::shared_ptr<LiveRegistry> live;
  };
  std::vector<User> users;

  void changed(const std::string& server) {
    std::vector<std::pair<std::shared_ptr<LiveRegistry>, std::shared_ptr<const tools::Registry>>>
        out;
    {
      std::lock_guard lock(mu);
      auto c = clients.find(server);
      if (c == clients.end()) return;  // still connecting: its first listing is taken then
      auto reg = mcp_server_tools(configs.at(server), c->second);
      if (!reg) {
        std::fprintf(stderr, "[mcp %s] tools changed, but: %s\n", server.c_str(),
                     reg.error().message.c_str());
        return;
      }
      sets[server] = *reg;
      for (auto& u : users) {
        const auto& names = u.recipe.config.mcp;
        if (std::find(names.begin(), names.end(), server) == names.end()) continue;
        auto composed = compose(u.recipe, sets);
        if (!composed) {
          std::fprintf(stderr, "[mcp %s] tools changed, but: %s\n", server.c_str(),
                       composed.error().message.c_str());
          continue;
        }
        out.emplace_back(u.live, std::move(*composed));
      }
      std::fprintf(stderr, "[mcp %s] tools changed: %zu now\n", server.c_str(), (*reg)->size());
    }
    for (auto& [live, reg] : out) live->publish(std::move(reg));
  }
};

void LiveRegistry::publish(std::shared_ptr<const tools::Registry> r) {
  std::vector<std::function<void(std::shared_ptr<const tools::Registry>)>> subs;
  {
    std::lock_guard lock(mu_);
    retired_.push_back(std::move(current_));
    current_ = r;
    subs = subscribers_;
  }
  for (auto& fn : subs) fn(r);
}

void LiveRegistry::subscribe(std::function<void(std::shared_ptr<const tools::Registry>)> fn) {
  std::lock_guard lock(mu_);
  subscribers_.push_back(std::move(fn));
}

Result<std::shared_ptr<RouteTools>> make_route_tools(const RouteToolsConfig& c,
                                                     const McpToolSets& mcp,
                                                     const OfflineDemo& demo) {
  auto t = route_tools_of(c);
  if (c.mode == ToolMode::passthrough && !c.builtin_when_client_has_no_tools) return t;
  auto recipe = make_recipe(c, demo);
  if (!recipe) return std::move(recipe).error();
  auto reg = compose(*recipe, mcp);
  if (!reg) return std::move(reg).error();
  t->registry = std::move(*reg);
  return t;
}

namespace {

// Tools sections that make the same registry (same built-ins, workspace,
// to-do list and prefix; no MCP servers, whose lists change) share one: one
// workspace opened, one connection to the to-do database.
using RegistryCache =
    std::vector<std::pair<RouteToolsConfig, std::shared_ptr<const tools::Registry>>>;

bool same_registry(const RouteToolsConfig& a, const RouteToolsConfig& b) {
  auto set = [](const std::vector<std::string>& v) {
    return std::set<std::string>(v.begin(), v.end());
  };
  return a.mcp.empty() && b.mcp.empty() && a.workspace == b.workspace &&
         set(a.builtins) == set(b.builtins) && a.shell_allow == b.shell_allow &&
         a.demo_todo == b.demo_todo && (!a.demo_todo || a.data_dir == b.data_dir) &&
         a.tool_prefix == b.tool_prefix;
}

Result<std::shared_ptr<RouteTools>> tools_for(const RouteToolsConfig& c, const McpToolSets& mcp,
                                              const OfflineDemo& demo, RegistryCache& cache) {
  if (c.mode == ToolMode::passthrough && !c.builtin_when_client_has_no_tools)
    return make_route_tools(c, mcp, demo);
  for (const auto& [config, registry] : cache)
    if (same_registry(config, c)) {
      auto t = route_tools_of(c);
      t->registry = registry;
      return t;
    }
  auto t = make_route_tools(c, mcp, demo);
  if (t && c.mcp.empty()) cache.emplace_back(c, (*t)->registry);
  return t;
}

}  // namespace

Result<BuiltGateway> build_gateway(const GatewayConfig& config, transport::HttpTransport& transport,
                                   const OfflineDemo& demo) {
  BuiltGateway out;
  auto router = std::make_shared<PatternRouter>();
  std::map<std::string, provider::Provider*> providers;
  auto upstream_transport = recording_transport(config.recording, transport);
  if (!upstream_transport) return std::move(upstream_transport).error();
  out.recording = *upstream_transport;
  transport::HttpTransport& http = out.recording ? *out.recording : transport;
  const bool replaying = config.recording.mode == RecordingConfig::Mode::replay;
  for (const auto& u : config.upstreams) {
    auto p = make_upstream(u, http, demo, replaying);
    if (!p) {
      Error e = p.error();
      e.message = config.source + ": upstreams." + u.name + ": " + e.message;
      return e;
    }
    providers[u.name] = router->own(std::move(*p));
  }
  auto live = std::make_shared<McpLiveTools>();
  std::weak_ptr<McpLiveTools> weak_live = live;
  RegistryCache built_registries;
  McpToolSets mcp;
  for (const auto& m : config.mcp_servers) {
    std::shared_ptr<mcp::Client> client;
    auto reg = connect_mcp_server(m, client, [weak_live, name = m.name] {
      if (auto l = weak_live.lock()) l->changed(name);
    });
    if (!reg) {
      Error e = reg.error();
      e.message = config.source + ": mcp_servers." + m.name + ": " + e.message;
      return e;
    }
    {
      std::lock_guard lock(live->mu);
      live->configs[m.name] = m;
      live->clients[m.name] = client;
      live->sets[m.name] = *reg;
    }
    out.mcp_clients.push_back(std::move(client));
    mcp[m.name] = *reg;
    out.described.push_back("mcp server " + m.name + ": " + std::to_string((*reg)->size()) +
                            " tools");
  }
  if (config.mcp_endpoint) {
    RouteToolsConfig tc = config.mcp_endpoint_tools;
    tc.mode = ToolMode::server;
    auto tools = tools_for(tc, mcp, demo, built_registries);
    if (!tools) {
      Error e = tools.error();
      e.message = config.source + ": mcp_endpoint.tools: " + e.message;
      return e;
    }
    out.mcp_tools = (*tools)->registry;
    if (!tc.mcp.empty()) {
      auto recipe = make_recipe(tc, demo);
      if (!recipe) return std::move(recipe).error();
      out.mcp_tools_live = std::make_shared<LiveRegistry>(out.mcp_tools);
      std::lock_guard lock(live->mu);
      live->users.push_back({std::move(*recipe), out.mcp_tools_live});
    }
  }
  for (size_t i = 0; i < config.routes.size(); ++i) {
    const RouteConfig& rc = config.routes[i];
    auto tools = tools_for(rc.tools, mcp, demo, built_registries);
    if (!tools) {
      Error e = tools.error();
      e.message = config.source + ": routes[" + std::to_string(i) + "].tools: " + e.message;
      return e;
    }
    if (!rc.tools.mcp.empty() && (*tools)->registry) {
      auto recipe = make_recipe(rc.tools, demo);
      if (!recipe) return std::move(recipe).error();
      (*tools)->live = std::make_shared<LiveRegistry>((*tools)->registry);
      std::lock_guard lock(live->mu);
      live->users.push_back({std::move(*recipe), (*tools)->live});
    }
    (*tools)->device_tools = rc.device_tools;
    // A device tool may not take a server tool's name (which would run?).
    for (size_t j = 0; j < rc.device_tools.size(); ++j) {
      const std::string wire = tools::to_wire_name(rc.device_tools[j].name);
      if ((*tools)->registry && (*tools)->registry->find(wire))
        return make_error(ErrorCode::invalid_argument, config.source + ": conductor.device_tools." +
                                                           rc.model + "[" + std::to_string(j) +
                                                           "]: '" + rc.device_tools[j].name +
                                                           "' is also a server tool of this route");
    }
    std::shared_ptr<const RouteTools> rt = *tools;
    Route r;
    r.pattern = rc.model;
    r.aliases = rc.aliases;
    std::string line = rc.model + " ->";
    for (const auto& t : rc.targets) {
      r.targets.push_back({providers.at(t.upstream), t.model, t.upstream, rt, rc.turn_protocol,
                           rc.on_loss, rc.capture_content});
      // Without a model of its own the target gets the client's model name
      // unchanged: said at startup, where a wrong name shows first.
      line += " " + t.upstream +
              (t.model.empty() ? " (model: the client's, unchanged)" : "(" + t.model + ")");
    }
    static const char* modes[] = {"passthrough", "server", "mixed"};
    line += std::string(" [tools: ") + modes[static_cast<int>(rc.tools.mode)] + "]";
    if (rc.turn_protocol != agent::TurnProtocol::native)
      line += " [conductor turns: " + std::string(agent::to_string(rc.turn_protocol)) + "]";
    if (rc.on_loss.mode == LossPolicy::Mode::error) line += " [on_loss: error]";
    out.described.push_back(std::move(line));
    router->add_route(std::move(r));
  }
  open_traces(config.telemetry, out);
  open_otlp(config.telemetry.otlp, out);
  out.mcp_live = std::move(live);
  out.router = router;
  out.keys = std::make_shared<KeyRing>();
  for (const auto& k : config.keys) TW_TRY(out.keys->add(k));
  return out;
}

}  // namespace toolwire::gateway
