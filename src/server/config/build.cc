// GatewayConfig → providers, router, keys, server tools.
#include "toolwire/demo/demo.h"
#include "toolwire/provider/factory.h"
#include "toolwire/provider/scripted.h"
#include "toolwire/server/config.h"
#include "toolwire/server/routing.h"
#include "toolwire/tools/builtin.h"
#include "toolwire/tools/names.h"

namespace toolwire::server {
namespace {

Result<std::unique_ptr<provider::Provider>> make_upstream(const UpstreamConfig& u,
                                                          transport::HttpTransport& t) {
  if (u.profile == "scripted") {
    auto script = provider::parse_script(demo::demo_script_json());
    if (!script) return std::move(script).error();
    return std::unique_ptr<provider::Provider>(
        std::make_unique<provider::ScriptedProvider>(std::move(*script)));
  }
  provider::ProviderConfig cfg;
  cfg.profile = u.profile;
  cfg.base_url = u.base_url;
  cfg.api_key_env = u.api_key_env;
  cfg.deadline = u.timeout;
  cfg.idle_timeout = u.idle_timeout;
  cfg.retry.max_attempts = u.max_attempts;
  auto profile = provider::resolve_profile(cfg);
  if (!profile) return std::move(profile).error();
  // A server of one's own (base URL given, no key variable named) may need no key.
  if (!u.base_url.empty() && u.api_key_env.empty()) profile->api_key_required = false;
  return provider::make_http_provider(std::move(*profile), cfg, t);
}

}  // namespace

Result<std::shared_ptr<RouteTools>> make_route_tools(const RouteToolsConfig& c,
                                                     const McpToolSets& mcp) {
  auto t = std::make_shared<RouteTools>();
  t->mode = c.mode;
  t->max_rounds = c.max_rounds;
  t->tool_timeout = c.tool_timeout;
  t->builtin_when_client_has_no_tools = c.builtin_when_client_has_no_tools;
  if (c.mode == ToolMode::passthrough && !c.builtin_when_client_has_no_tools) return t;
  // Built into a scratch registry first, then added under the route's prefix:
  // the model sees `gw_read`, the registry dispatches it to `read`'s handler.
  tools::Registry scratch;
  tools::BuiltinOptions b;
  b.workspace = c.workspace;
  b.enabled = std::set<std::string>(c.builtins.begin(), c.builtins.end());
  b.shell_allow = c.shell_allow;
  if (!b.enabled.empty()) {
    auto specs = tools::builtin_tool_specs(b);
    if (!specs) return std::move(specs).error();
    for (auto& spec : *specs) TW_TRY(scratch.add(std::move(spec)));
  }
  if (c.demo_todo) {
    std::string dir = c.data_dir.empty() ? demo::default_data_dir() : c.data_dir;
    auto store = demo::TodoStore::open(dir + "/todo.sqlite3");
    if (!store) return std::move(store).error();
    TW_TRY(demo::register_todo_tools(scratch, *store));
  }
  // MCP servers' tools keep their handlers (bound to the shared client).
  for (const auto& name : c.mcp) {
    auto it = mcp.find(name);
    if (it == mcp.end())
      return make_error(ErrorCode::not_found, "no connected MCP server '" + name + "'");
    for (const auto& tool : it->second->tools()) TW_TRY(scratch.add(tool->spec()));
  }
  auto reg = std::make_shared<tools::Registry>();
  for (const auto& tool : scratch.tools()) {
    tools::ToolSpec spec = tool->spec();
    spec.name = c.tool_prefix + spec.name;
    TW_TRY(reg->add(std::move(spec)));
  }
  t->registry = std::move(reg);
  return t;
}

Result<BuiltGateway> build_gateway(const GatewayConfig& config,
                                   transport::HttpTransport& transport) {
  BuiltGateway out;
  auto router = std::make_shared<PatternRouter>();
  std::map<std::string, provider::Provider*> providers;
  for (const auto& u : config.upstreams) {
    auto p = make_upstream(u, transport);
    if (!p) {
      Error e = p.error();
      e.message = config.source + ": upstreams." + u.name + ": " + e.message;
      return e;
    }
    providers[u.name] = router->own(std::move(*p));
  }
  McpToolSets mcp;
  for (const auto& m : config.mcp_servers) {
    std::shared_ptr<mcp::Client> client;
    auto reg = connect_mcp_server(m, client);
    if (!reg) {
      Error e = reg.error();
      e.message = config.source + ": mcp_servers." + m.name + ": " + e.message;
      return e;
    }
    out.mcp_clients.push_back(std::move(client));
    mcp[m.name] = *reg;
    out.described.push_back("mcp server " + m.name + ": " + std::to_string((*reg)->size()) +
                            " tools");
  }
  if (config.mcp_endpoint) {
    RouteToolsConfig tc = config.mcp_endpoint_tools;
    tc.mode = ToolMode::server;
    auto tools = make_route_tools(tc, mcp);
    if (!tools) {
      Error e = tools.error();
      e.message = config.source + ": mcp_endpoint.tools: " + e.message;
      return e;
    }
    out.mcp_tools = (*tools)->registry;
  }
  for (size_t i = 0; i < config.routes.size(); ++i) {
    const RouteConfig& rc = config.routes[i];
    auto tools = make_route_tools(rc.tools, mcp);
    if (!tools) {
      Error e = tools.error();
      e.message = config.source + ": routes[" + std::to_string(i) + "].tools: " + e.message;
      return e;
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
      r.targets.push_back({providers.at(t.upstream), t.model, t.upstream, rt});
      line += " " + t.upstream + (t.model.empty() ? "" : "(" + t.model + ")");
    }
    static const char* modes[] = {"passthrough", "server", "mixed"};
    line += std::string(" [tools: ") + modes[static_cast<int>(rc.tools.mode)] + "]";
    out.described.push_back(std::move(line));
    router->add_route(std::move(r));
  }
  out.router = router;
  out.keys = std::make_shared<KeyRing>();
  for (const auto& k : config.keys) TW_TRY(out.keys->add(k));
  return out;
}

}  // namespace toolwire::server
