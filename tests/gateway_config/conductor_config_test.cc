// `conductor:` in the gateway YAML: every key loads, device tools land on
// their route (dotted names kept, wire names checked), and each mistake names
// file:line:column and its key path.
#include <gtest/gtest.h>

#include <nlohmann/json.hpp>

#include "toolwire/gateway/config.h"
#include "toolwire/transport/http_client.h"

namespace toolwire::gateway {
namespace {

// The scripted upstreams' rules (the CLI lends the demo's).
const OfflineDemo kScript{.script = R"({"rules": []})", .todo_tools = {}};

const char* kConductor = R"(upstreams:
  s: {profile: scripted}
routes:
  - model: "*"
    upstreams: [s]
  - model: assistant
    aliases: [voice]
    upstreams: [s]
    tools: {mode: server, builtins: [list]}
conductor:
  enabled: true
  model: voice
  allowed_origins: ["https://app.example"]
  max_frame_bytes: 65536
  frames_per_second: 20
  frame_burst: 40
  flood_close_after: 10
  key_frames_per_second: 0.5
  key_frame_burst: 3
  resume_grace_ms: 1500
  replay_events: 64
  replay_bytes: 32768
  max_queued_turns: 2
  max_sessions: 500
  tool_timeout_ms: 750
  max_tool_rounds: 3
  history_turns: 5
  ui_calls: true
  device_tools:
    voice:
      - name: agent.photo
        description: Take a photo
        parameters:
          type: object
          properties:
            camera: {enum: [front, back]}
            count: {type: integer, minimum: 1, maximum: 5}
            label: {type: string, default: "42"}
            zoom: {type: number, minimum: 0.5, maximum: 1e1, default: 0x10}
            mode: {enum: [inf, True, ~, -3]}
          required: [camera]
      - name: agent.battery
      - name: get_time
        parameters: '{"type":"object","properties":{}}'
)";

TEST(ConductorConfig, LoadsEveryKey) {
  auto c = load_config_string(kConductor, "c.yaml");
  ASSERT_TRUE(c) << c.error().message;
  const ConductorOptions& o = c->options.conductor;
  EXPECT_TRUE(o.enabled);
  EXPECT_EQ(o.default_model, "voice");
  EXPECT_EQ(o.allowed_origins, std::vector<std::string>{"https://app.example"});
  EXPECT_EQ(o.max_frame_bytes, 65536u);
  EXPECT_EQ(o.frames_per_second, 20);
  EXPECT_EQ(o.frame_burst, 40);
  EXPECT_EQ(o.flood_close_after, 10);
  EXPECT_EQ(o.key_frames_per_second, 0.5);
  EXPECT_EQ(o.key_frame_burst, 3);
  EXPECT_EQ(o.resume_grace.count(), 1500);
  EXPECT_EQ(o.replay_events, 64u);
  EXPECT_EQ(o.replay_bytes, 32768u);
  EXPECT_EQ(o.max_queued_turns, 2u);
  EXPECT_EQ(o.max_sessions, 500u);
  EXPECT_EQ(o.tool_timeout.count(), 750);
  EXPECT_EQ(o.max_tool_rounds, 3);
  EXPECT_EQ(o.history_turns, 5u);
  EXPECT_TRUE(o.ui_calls);
  EXPECT_TRUE(c->routes[0].device_tools.empty());
  const auto& dt = c->routes[1].device_tools;
  ASSERT_EQ(dt.size(), 3u);
  EXPECT_EQ(dt[0].name, "agent.photo");
  EXPECT_EQ(dt[0].description, "Take a photo");
  // YAML → JSON keeps types: integers are numbers, a quoted "42" a string.
  auto p = nlohmann::json::parse(dt[0].parameters);
  EXPECT_EQ(p["properties"]["count"]["maximum"], 5);
  EXPECT_EQ(p["properties"]["label"]["default"], "42");
  EXPECT_EQ(p["properties"]["zoom"]["minimum"], 0.5);
  EXPECT_EQ(p["properties"]["zoom"]["maximum"], 10.0);
  EXPECT_EQ(p["properties"]["zoom"]["default"], "0x10");  // not a YAML 1.2 number
  EXPECT_EQ(p["properties"]["mode"]["enum"], nlohmann::json::parse(R"(["inf", true, null, -3])"));
  EXPECT_EQ(p["properties"]["camera"]["enum"], nlohmann::json({"front", "back"}));
  EXPECT_EQ(p["required"], nlohmann::json({"camera"}));
  EXPECT_EQ(dt[1].name, "agent.battery");
  EXPECT_EQ(nlohmann::json::parse(dt[1].parameters), nlohmann::json({{"type", "object"}}));
  EXPECT_EQ(nlohmann::json::parse(dt[2].parameters)["properties"], nlohmann::json::object());
}

TEST(ConductorConfig, DefaultsWithoutTheSection) {
  auto c = load_config_string(
      "upstreams: {s: {profile: scripted}}\nroutes: [{model: x, "
      "upstreams: [s]}]\n");
  ASSERT_TRUE(c) << c.error().message;
  ConductorOptions d;
  EXPECT_EQ(c->options.conductor.enabled, d.enabled);
  EXPECT_EQ(c->options.conductor.default_model, "");
  EXPECT_EQ(c->options.conductor.resume_grace, d.resume_grace);
  EXPECT_EQ(c->options.conductor.key_frames_per_second, 0);
}

// The route's RouteTools carry the device tools to the conductor.
TEST(ConductorConfig, BuildPutsDeviceToolsOnTheRoute) {
  auto c = load_config_string(kConductor, "c.yaml");
  ASSERT_TRUE(c) << c.error().message;
  transport::HttpClient http;
  auto built = build_gateway(*c, http, kScript);
  ASSERT_TRUE(built) << built.error().message;
  auto t = built->router->resolve("voice");
  ASSERT_TRUE(t);
  ASSERT_TRUE(t->front().tools);
  ASSERT_EQ(t->front().tools->device_tools.size(), 3u);
  EXPECT_EQ(t->front().tools->device_tools[0].name, "agent.photo");
  auto other = built->router->resolve("anything");
  ASSERT_TRUE(other);
  EXPECT_TRUE(!other->front().tools || other->front().tools->device_tools.empty());
}

// build_gateway checks again against the built registry (which also holds
// MCP servers' tools, unknown when the file is read).
TEST(ConductorConfig, BuildRefusesADeviceToolNamedLikeAServerTool) {
  auto c = load_config_string(R"(upstreams: {s: {profile: scripted}}
routes:
  - {model: a, upstreams: [s], tools: {mode: server, builtins: [list]}}
)",
                              "c.yaml");
  ASSERT_TRUE(c) << c.error().message;
  c->routes[0].device_tools.push_back({.name = "list"});
  transport::HttpClient http;
  auto built = build_gateway(*c, http, kScript);
  ASSERT_FALSE(built);
  EXPECT_NE(built.error().message.find("c.yaml: conductor.device_tools.a[0]: 'list' is also a "
                                       "server tool"),
            std::string::npos)
      << built.error().message;
}

// Built-in and demo tool names are known when the file is read: the error
// has its line.
TEST(ConductorConfig, DeviceToolClashWithABuiltinNamesTheLine) {
  auto c = load_config_string(R"(upstreams: {s: {profile: scripted}}
routes:
  - {model: a, upstreams: [s], tools: {mode: mixed, builtins: [list], tool_prefix: gw_}}
conductor:
  device_tools:
    a:
      - name: list
      - name: gw_list
)",
                              "c.yaml");
  ASSERT_FALSE(c);
  EXPECT_NE(c.error().message.find("c.yaml:8:15: conductor.device_tools.a[1].name: 'gw_list' is "
                                   "also a server tool of route 'a'"),
            std::string::npos)
      << c.error().message;
}

struct Bad {
  const char* conductor;  // the section, appended to a valid file
  const char* expect;     // a substring of the message
};

class ConductorConfigErrors : public ::testing::TestWithParam<Bad> {};

TEST_P(ConductorConfigErrors, NameFileLineColumnAndKey) {
  std::string yaml = std::string(
                         "upstreams: {s: {profile: scripted}}\n"
                         "routes:\n"
                         "  - {model: \"gpt-*\", upstreams: [s]}\n"
                         "  - {model: voice, aliases: [v], upstreams: [s]}\n") +
                     GetParam().conductor;
  auto c = load_config_string(yaml, "bad.yaml");
  ASSERT_FALSE(c);
  EXPECT_NE(c.error().message.find(GetParam().expect), std::string::npos) << c.error().message;
}

INSTANTIATE_TEST_SUITE_P(
    Table, ConductorConfigErrors,
    ::testing::Values(
        Bad{"conductor: {grace_ms: 5}\n", "bad.yaml:5:13: conductor.grace_ms: unknown key"},
        Bad{"conductor: {enabled: yes}\n",
            "bad.yaml:5:22: conductor.enabled: expected true or false"},
        Bad{"conductor: {model: claude-3}\n",
            "bad.yaml:5:20: conductor.model: no route serves model 'claude-3'"},
        Bad{"conductor: {max_frame_bytes: 10}\n",
            "bad.yaml:5:30: conductor.max_frame_bytes: must be between 1024"},
        Bad{"conductor: {frames_per_second: fast}\n",
            "bad.yaml:5:32: conductor.frames_per_second: expected a number, got 'fast'"},
        Bad{"conductor: {key_frame_burst: 5}\n",
            "conductor.key_frame_burst: goes with key_frames_per_second"},
        Bad{"conductor: {resume_grace_ms: -1}\n", "conductor.resume_grace_ms: must be between"},
        Bad{"conductor: {max_tool_rounds: 0}\n", "conductor.max_tool_rounds: must be between 1"},
        Bad{"conductor: {allowed_origins: https://a}\n",
            "conductor.allowed_origins: expected a list of strings"},
        Bad{"conductor:\n  device_tools:\n    nope: []\n",
            "bad.yaml:7:5: conductor.device_tools.nope: no route has model or alias 'nope'"},
        Bad{"conductor:\n  device_tools:\n    v:\n      - {name: \"agent..photo\"}\n",
            "bad.yaml:8:16: conductor.device_tools.v[0].name: invalid tool name"},
        Bad{"conductor:\n  device_tools:\n    v:\n      - {name: agent.photo}\n"
            "      - {name: agent__photo}\n",
            "bad.yaml:9:16: conductor.device_tools.v[1].name: 'agent__photo' is sent upstream as "
            "'agent__photo', like a tool listed before it"},
        Bad{"conductor:\n  device_tools:\n    v:\n      - {name: t, parameters: {type: objet}}\n",
            "bad.yaml:8:31: conductor.device_tools.v[0].parameters: not a valid JSON Schema"},
        Bad{"conductor:\n  device_tools:\n    v:\n      - {name: t, parameters: [1]}\n",
            "conductor.device_tools.v[0].parameters: expected a JSON Schema object"},
        Bad{"conductor:\n  device_tools:\n    v:\n      - {name: t, params: {}}\n",
            "bad.yaml:8:19: conductor.device_tools.v[0].params: unknown key"},
        Bad{"conductor:\n  device_tools:\n    v: [{name: t}]\n    voice: [{name: u}]\n",
            "conductor.device_tools.voice: route 'voice' has device tools listed already"}));

}  // namespace
}  // namespace toolwire::gateway
