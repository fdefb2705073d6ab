// `conductor:` in the gateway YAML → ConductorOptions and the routes' device
// tools (docs/conductor.md, "Configuration"). Read after `routes:`, which
// its `model` and `device_tools` keys refer to.
#include "gateway/config/conductor_section.h"

#include <cctype>
#include <cerrno>
#include <nlohmann/json.hpp>

#include "toolwire/core/json_depth.h"
#include "toolwire/gateway/routing.h"
#include "toolwire/tools/names.h"
#include "toolwire/tools/schema.h"

namespace toolwire::gateway::config_yaml {
namespace {

using json = nlohmann::json;

// A plain scalar that YAML 1.2's core schema reads as a number: digits with
// an optional sign, fraction and exponent (not hex, inf or nan).
bool is_number(const std::string& s) {
  size_t i = s[0] == '-' || s[0] == '+' ? 1 : 0, digits = 0;
  while (i < s.size() && std::isdigit(static_cast<unsigned char>(s[i]))) ++i, ++digits;
  if (i < s.size() && s[i] == '.')
    for (++i; i < s.size() && std::isdigit(static_cast<unsigned char>(s[i]));) ++i, ++digits;
  if (digits == 0) return false;
  if (i < s.size() && (s[i] == 'e' || s[i] == 'E')) {
    ++i;
    if (i < s.size() && (s[i] == '-' || s[i] == '+')) ++i;
    size_t exp = 0;
    while (i < s.size() && std::isdigit(static_cast<unsigned char>(s[i]))) ++i, ++exp;
    if (exp == 0) return false;
  }
  return i == s.size();
}

// YAML carries no types for plain scalars: true/false, null and numbers are
// read as such (the core schema); quoted scalars stay strings.
Result<json> to_json(const Reader& r, const YAML::Node& n, const std::string& path) {
  switch (n.Type()) {
    case YAML::NodeType::Null:
      return json(nullptr);
    case YAML::NodeType::Scalar: {
      const std::string& s = n.Scalar();
      if (n.Tag() == "!") return json(s);  // quoted
      if (s == "true" || s == "True" || s == "TRUE") return json(true);
      if (s == "false" || s == "False" || s == "FALSE") return json(false);
      if (s == "null" || s == "Null" || s == "NULL" || s == "~") return json(nullptr);
      if (s.empty() || !is_number(s)) return json(s);
      if (s.find_first_of(".eE") == std::string::npos) {
        char* end = nullptr;
        errno = 0;
        long long i = std::strtoll(s.c_str(), &end, 10);
        if (errno == 0) return json(i);
      }
      return json(std::strtod(s.c_str(), nullptr));
    }
    case YAML::NodeType::Sequence: {
      json a = json::array();
      for (size_t i = 0; i < n.size(); ++i) {
        auto v = to_json(r, n[i], path + "[" + std::to_string(i) + "]");
        if (!v) return v;
        a.push_back(std::move(*v));
      }
      return a;
    }
    case YAML::NodeType::Map: {
      json o = json::object();
      for (const auto& kv : n) {
        std::string k = kv.first.as<std::string>();
        auto v = to_json(r, kv.second, path + "." + k);
        if (!v) return v;
        o[k] = std::move(*v);
      }
      return o;
    }
    default:
      return r.error(n, path, "expected a JSON value");
  }
}

// One route's list: [{name, description, parameters}].
Status read_device_tools(const Reader& r, const YAML::Node& n, const std::string& p,
                         std::vector<DeviceTool>& out) {
  if (!n.IsSequence()) return r.error(n, p, "expected a list of tools");
  std::vector<std::string> wire;
  for (size_t i = 0; i < n.size(); ++i) {
    std::string tp = p + "[" + std::to_string(i) + "]";
    const YAML::Node& t = n[i];
    TW_TRY(r.keys(t, tp, {"name", "description", "parameters"}));
    DeviceTool d;
    TW_TRY(r.str(t, tp, "name", d.name));
    if (d.name.empty()) return r.error(t, tp + ".name", "required");
    if (Status ok = tools::check_tool_name(d.name); !ok)
      return r.error(t["name"], tp + ".name", ok.error().message);
    std::string w = tools::to_wire_name(d.name);
    if (std::find(wire.begin(), wire.end(), w) != wire.end())
      return r.error(t["name"], tp + ".name",
                     "'" + d.name + "' is sent upstream as '" + w +
                         "', like a tool listed before it on this route");
    wire.push_back(std::move(w));
    TW_TRY(r.str(t, tp, "description", d.description));
    if (YAML::Node s = t["parameters"]) {
      if (s.IsScalar() && json_deeper_than(s.Scalar()))
        return r.error(s, tp + ".parameters", json_too_deep_message());
      auto schema = s.IsScalar() && s.Tag() == "!"
                        ? Result<json>(parse_json_bounded<json>(s.Scalar()))
                        : to_json(r, s, tp + ".parameters");
      if (!schema) return std::move(schema).error();
      if (schema->is_discarded() || !schema->is_object())
        return r.error(s, tp + ".parameters", "expected a JSON Schema object");
      if (auto c = tools::CompiledSchema::compile(*schema); !c)
        return r.error(s, tp + ".parameters", "not a valid JSON Schema: " + c.error().to_string());
      d.parameters = schema->dump();
    }
    out.push_back(std::move(d));
  }
  return Status::Ok();
}

bool route_serves(const RouteConfig& rc, std::string_view model) {
  if (rc.model == model) return true;
  for (const auto& a : rc.aliases)
    if (a == model) return true;
  return rc.model.find('*') != std::string::npos && glob_match(rc.model, model);
}

}  // namespace

Status read_conductor(const Reader& r, const YAML::Node& n, GatewayConfig& c) {
  const std::string p = "conductor";
  TW_TRY(r.keys(
      n, p,
      {"enabled", "model", "allowed_origins", "max_frame_bytes", "frames_per_second", "frame_burst",
       "flood_close_after", "key_frames_per_second", "key_frame_burst", "resume_grace_ms",
       "replay_events", "replay_bytes", "max_queued_turns", "max_sessions", "tool_timeout_ms",
       "max_tool_rounds", "history_turns", "ui_calls", "device_tools"}));
  ConductorOptions& o = c.options.conductor;
  TW_TRY(r.boolean(n, p, "enabled", o.enabled));
  TW_TRY(r.str(n, p, "model", o.default_model));
  if (n["model"]) {
    bool routed = std::any_of(c.routes.begin(), c.routes.end(), [&](const RouteConfig& rc) {
      return route_serves(rc, o.default_model);
    });
    if (!routed)
      return r.error(n["model"], p + ".model",
                     "no route serves model '" + o.default_model + "' (see routes:)");
  }
  TW_TRY(r.strings(n, p, "allowed_origins", o.allowed_origins));
  TW_TRY(r.integer_as(n, p, "max_frame_bytes", 1024, 64L << 20, o.max_frame_bytes));
  TW_TRY(r.number(n, p, "frames_per_second", 0.001, 1e6, o.frames_per_second));
  TW_TRY(r.number(n, p, "frame_burst", 1, 1e6, o.frame_burst));
  TW_TRY(r.integer_as(n, p, "flood_close_after", 1, 1'000'000, o.flood_close_after));
  TW_TRY(r.number(n, p, "key_frames_per_second", 0, 1e7, o.key_frames_per_second));
  TW_TRY(r.number(n, p, "key_frame_burst", 0, 1e7, o.key_frame_burst));
  if (n["key_frame_burst"] && o.key_frames_per_second == 0 && o.key_frame_burst > 0)
    return r.error(n["key_frame_burst"], p + ".key_frame_burst",
                   "goes with key_frames_per_second (0: no per-key limit)");
  TW_TRY(r.millis(n, p, "resume_grace_ms", 0, 86'400'000, o.resume_grace));
  TW_TRY(r.integer_as(n, p, "replay_events", 0, 1'000'000, o.replay_events));
  TW_TRY(r.integer_as(n, p, "replay_bytes", 0, 1L << 30, o.replay_bytes));
  TW_TRY(r.integer_as(n, p, "max_queued_turns", 0, 1000, o.max_queued_turns));
  TW_TRY(r.integer_as(n, p, "max_sessions", 1, 10'000'000, o.max_sessions));
  TW_TRY(r.millis(n, p, "tool_timeout_ms", 1, 3'600'000, o.tool_timeout));
  TW_TRY(r.integer_as(n, p, "max_tool_rounds", 1, 100, o.max_tool_rounds));
  TW_TRY(r.integer_as(n, p, "history_turns", 0, 10'000, o.history_turns));
  TW_TRY(r.boolean(n, p, "ui_calls", o.ui_calls));

  // device_tools: {<a route's model or alias, as written>: [tools]}
  if (YAML::Node dt = n["device_tools"]) {
    if (!dt.IsMap())
      return r.error(dt, p + ".device_tools", "expected a mapping of route model → tools");
    for (const auto& kv : dt) {
      std::string route = kv.first.as<std::string>();
      std::string rp = p + ".device_tools." + route;
      auto it = std::find_if(c.routes.begin(), c.routes.end(), [&](const RouteConfig& rc) {
        return rc.model == route ||
               std::find(rc.aliases.begin(), rc.aliases.end(), route) != rc.aliases.end();
      });
      if (it == c.routes.end())
        return r.error(
            kv.first, rp,
            "no route has model or alias '" + route + "' (keys name a route of routes:)");
      if (!it->device_tools.empty())
        return r.error(kv.first, rp, "route '" + it->model + "' has device tools listed already");
      TW_TRY(read_device_tools(r, kv.second, rp, it->device_tools));
      // The route's server tools known now (built-ins, the demo's); an MCP
      // server's names are checked when the gateway is built.
      const RouteToolsConfig& t = it->tools;
      if (t.mode == ToolMode::passthrough && !t.builtin_when_client_has_no_tools) continue;
      std::vector<std::string> server = t.builtins;
      if (t.demo_todo) server.insert(server.end(), {"add_todo", "list_todos", "complete_todo"});
      for (size_t i = 0; i < it->device_tools.size(); ++i)
        for (const auto& name : server)
          if (tools::to_wire_name(it->device_tools[i].name) == t.tool_prefix + name)
            return r.error(kv.second[i]["name"], rp + "[" + std::to_string(i) + "].name",
                           "'" + it->device_tools[i].name + "' is also a server tool of route '" +
                               it->model + "'");
    }
  }
  return Status::Ok();
}

}  // namespace toolwire::gateway::config_yaml
