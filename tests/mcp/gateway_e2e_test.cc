// End to end: a plain chat client (POST /v1/chat/completions, no tools of its
// own) on a server-mode route whose tools come from MCP servers — the npm
// server-everything over stdio, and `toolwire mcp serve` — gets an answer the
// scripted model wrote from the MCP tool's result. And `mcp_servers:` /
// `mcp_endpoint:` from YAML through build_gateway().
#include <gtest/gtest.h>
#include <sys/wait.h>
#include <unistd.h>

#include <cstdlib>
#include <filesystem>
#include <fstream>
#include <nlohmann/json.hpp>

#include "raw_client.h"
#include "toolwire/gateway/config.h"
#include "toolwire/gateway/gateway.h"
#include "toolwire/gateway/routing.h"
#include "toolwire/mcp/client.h"
#include "toolwire/provider/scripted.h"
#include "toolwire/transport/http_client.h"

namespace toolwire::gateway {
namespace {

using nlohmann::json;
using testing::Ms;
using namespace std::chrono_literals;
namespace fs = std::filesystem;

std::string everything_main() {
  return std::string(TOOLWIRE_SOURCE_DIR) +
         "/tests/npm/node_modules/@modelcontextprotocol/server-everything/dist/index.js";
}

// A server-mode gateway whose route tools are `tools`, in front of `script`.
struct ChatRig {
  ChatRig(std::shared_ptr<RouteTools> tools, const std::string& script_json) {
    auto script = provider::parse_script(script_json);
    EXPECT_TRUE(script.ok()) << script.error().to_string();
    auto router = std::make_shared<PatternRouter>();
    auto* p = router->own(std::make_unique<provider::ScriptedProvider>(std::move(*script)));
    router->add_route({.pattern = "*", .aliases = {}, .targets = {{p, "", "scripted", tools}}});
    GatewayOptions o;
    o.host = "127.0.0.1";
    o.port = 0;
    o.threads = 2;
    o.log = [](std::string_view) {};
    gw = std::make_unique<Gateway>(o, router);
    EXPECT_TRUE(gw->start().ok());
  }
  ~ChatRig() {
    gw->stop();
    gw->wait();
  }
  json chat(const std::string& user) {
    json body = {{"model", "any"}, {"messages", {{{"role", "user"}, {"content", user}}}}};
    testing::RawClient c(gw->port());
    EXPECT_TRUE(c.send(testing::http_post("/v1/chat/completions", body.dump())));
    auto r = c.read_response(Ms(30000));
    EXPECT_TRUE(r.has_value());
    if (!r) return {};
    EXPECT_EQ(r->status, 200) << r->body;
    return json::parse(r->body, nullptr, false);
  }
  std::unique_ptr<Gateway> gw;
};

std::string answer_text(const json& j) {
  if (!j.is_object() || !j.contains("choices")) return "";
  return j["choices"][0]["message"]["content"].get<std::string>();
}

TEST(McpGatewayE2E, ServerModeRouteUsesNpmServerTool) {
  ASSERT_TRUE(fs::exists(everything_main())) << "run scripts/setup.sh (npm test peers)";
  McpServerConfig mc;
  mc.name = "ev";
  mc.argv = {"node", everything_main(), "stdio"};
  mc.allow = {"echo", "get-sum", "add"};
  mc.timeout = 30s;
  std::shared_ptr<mcp::Client> client;
  auto reg = connect_mcp_server(mc, client);
  ASSERT_TRUE(reg.ok()) << reg.error().to_string();
  ASSERT_NE((*reg)->find("ev__echo"), nullptr);
  EXPECT_EQ((*reg)->find("ev__printEnv"), nullptr);  // not allowed

  RouteToolsConfig rc;
  rc.mode = ToolMode::server;
  rc.builtins = {};
  rc.mcp = {"ev"};
  auto tools = make_route_tools(rc, {{"ev", *reg}});
  ASSERT_TRUE(tools.ok()) << tools.error().to_string();
  ChatRig rig(*tools, R"js({"rules":[
      {"user_pattern":"^echo (.+)$","calls":[{"name":"ev__echo","arguments":{"message":"$1"}}]},
      {"after_tool":"ev__echo","reply":"The MCP server said: {{result}}"}]})js");
  std::string text = answer_text(rig.chat("echo hello from the gateway"));
  EXPECT_EQ(text, "The MCP server said: Echo: hello from the gateway");
  client->close();
}

TEST(McpGatewayE2E, ServerModeRouteUsesToolwireMcpServe) {
  fs::path dir = fs::temp_directory_path() / ("tw_mcp_gw_" + std::to_string(getpid()));
  fs::create_directories(dir);
  std::ofstream(dir / "plan.txt") << "step one: ship the gateway\n";
  McpServerConfig mc;
  mc.name = "files";
  mc.argv = {TOOLWIRE_BINARY, "mcp", "serve", "--workspace", dir.string()};
  mc.allow = {"read"};
  std::shared_ptr<mcp::Client> client;
  auto reg = connect_mcp_server(mc, client);
  ASSERT_TRUE(reg.ok()) << reg.error().to_string();
  ASSERT_EQ((*reg)->size(), 1u);
  RouteToolsConfig rc;
  rc.mode = ToolMode::server;
  rc.builtins = {};
  rc.mcp = {"files"};
  auto tools = make_route_tools(rc, {{"files", *reg}});
  ASSERT_TRUE(tools.ok()) << tools.error().to_string();
  ChatRig rig(*tools, R"js({"rules":[
      {"user_pattern":"read (\\S+)","calls":[{"name":"files__read","arguments":{"path":"$1"}}]},
      {"after_tool":"files__read","reply":"File says: {{result}}"}]})js");
  std::string text = answer_text(rig.chat("please read plan.txt"));
  EXPECT_NE(text.find("File says:"), std::string::npos) << text;
  EXPECT_NE(text.find("step one: ship the gateway"), std::string::npos) << text;
  client->close();
  fs::remove_all(dir);
}

TEST(McpGatewayConfig, YamlServersRoutesAndEndpoint) {
  std::string yaml = std::string(R"(
listen: 127.0.0.1:0
mcp_servers:
  files:
    command: )") + TOOLWIRE_BINARY +
                     R"(
    args: [mcp, serve, --workspace, .]
    env: {TW_TEST: "1"}
    prefix: f
    allow: [read, list, "g*"]
    deny: [grep]
    timeout_ms: 5000
mcp_endpoint:
  allowed_origins: [https://app.example]
  max_sessions: 7
  tools: {builtins: [], mcp: [files]}
upstreams:
  local: {profile: scripted}
routes:
  - model: "*"
    upstreams: [local]
    tools: {mode: server, builtins: [read], tool_prefix: gw_, mcp: [files]}
)";
  auto cfg = load_config_string(yaml, "t.yaml");
  ASSERT_TRUE(cfg.ok()) << cfg.error().message;
  ASSERT_EQ(cfg->mcp_servers.size(), 1u);
  const McpServerConfig& m = cfg->mcp_servers[0];
  EXPECT_EQ(m.argv.size(), 5u);
  EXPECT_EQ(m.env, std::vector<std::string>{"TW_TEST=1"});
  EXPECT_EQ(m.prefix, "f");
  EXPECT_EQ(m.timeout, 5000ms);
  EXPECT_TRUE(cfg->mcp_endpoint);
  EXPECT_EQ(cfg->options.mcp.max_sessions, 7u);
  EXPECT_EQ(cfg->options.mcp.allowed_origins, std::vector<std::string>{"https://app.example"});

  transport::HttpClient http;
  auto built =
      build_gateway(*cfg, http, OfflineDemo{.script = R"({"rules": []})", .todo_tools = {}});
  ASSERT_TRUE(built.ok()) << built.error().message;
  ASSERT_TRUE(built->mcp_tools);
  std::vector<std::string> names;
  for (const auto& t : built->mcp_tools->tools()) names.push_back(t->name());
  EXPECT_EQ(names, (std::vector<std::string>{"f__read", "f__list", "f__glob"}));
  auto targets = built->router->resolve("m");
  ASSERT_TRUE(targets.ok());
  const auto& route_reg = *(*targets)[0].tools->registry;
  EXPECT_NE(route_reg.find("gw_read"), nullptr);
  EXPECT_NE(route_reg.find("gw_f__list"), nullptr);
  ir::ToolResultPart r = route_reg.dispatch({"c1", "gw_f__list", R"({"path":"."})"});
  EXPECT_FALSE(r.is_error);
  for (auto& c : built->mcp_clients) c->close();
}

// `toolwire mcp serve --config`: the config's mcp_endpoint tools over stdio,
// here the tools of another MCP server (a second `toolwire mcp serve`),
// proxied under the config's prefix and allow-list.
TEST(McpGatewayConfig, McpServeWithConfigProxiesConfiguredServers) {
  fs::path dir = fs::temp_directory_path() / ("tw_mcp_cfg_" + std::to_string(getpid()));
  fs::create_directories(dir);
  std::ofstream(dir / "n.txt") << "proxied line\n";
  std::ofstream(dir / "gw.yaml") << "mcp_servers:\n  inner:\n    command: " << TOOLWIRE_BINARY
                                 << "\n    args: [mcp, serve, --workspace, " << dir.string()
                                 << "]\n    prefix: in\n    allow: [read, list]\n"
                                    "mcp_endpoint:\n  tools: {builtins: [], mcp: [inner]}\n"
                                    "upstreams: {local: {profile: scripted}}\n"
                                    "routes: [{model: m, upstreams: [local]}]\n";
  mcp::ClientOptions o;
  o.name = "outer";
  o.server.argv = {TOOLWIRE_BINARY, "mcp", "serve", "--config", (dir / "gw.yaml").string()};
  o.request_timeout = 20s;
  auto c = mcp::Client::create(o);
  ASSERT_TRUE(c->connect().ok());
  auto tools = c->list_tools();
  ASSERT_TRUE(tools.ok()) << tools.error().to_string();
  std::vector<std::string> names;
  for (const auto& t : *tools) names.push_back(t.name);
  EXPECT_EQ(names, (std::vector<std::string>{"in__read", "in__list"}));
  auto r = c->call_tool("in__read", {{"path", "n.txt"}});
  ASSERT_TRUE(r.ok()) << r.error().to_string();
  EXPECT_FALSE(r->is_error);
  EXPECT_NE(r->content.dump().find("proxied line"), std::string::npos) << r->content.dump();
  c->close();

  // A config without mcp_endpoint: a clear error, exit status 2.
  std::ofstream(dir / "none.yaml") << "upstreams: {local: {profile: scripted}}\n"
                                      "routes: [{model: m, upstreams: [local]}]\n";
  std::string cmd = std::string(TOOLWIRE_BINARY) + " mcp serve --config " +
                    (dir / "none.yaml").string() + " </dev/null 2>" + (dir / "err").string();
  int st = std::system(cmd.c_str());
  EXPECT_EQ(WEXITSTATUS(st), 2);
  std::ifstream err(dir / "err");
  std::string text((std::istreambuf_iterator<char>(err)), {});
  EXPECT_NE(text.find("no mcp_endpoint section"), std::string::npos) << text;
  fs::remove_all(dir);
}

TEST(McpGatewayConfig, YamlErrorsNameTheKey) {
  auto expect_error = [](const std::string& yaml, const std::string& needle) {
    auto cfg = load_config_string(yaml, "t.yaml");
    ASSERT_FALSE(cfg.ok()) << yaml;
    EXPECT_NE(cfg.error().message.find(needle), std::string::npos) << cfg.error().message;
  };
  std::string tail =
      "upstreams: {local: {profile: scripted}}\nroutes: [{model: m, upstreams: [local]}]\n";
  expect_error("mcp_servers: {fs: {args: [x]}}\n" + tail,
               "mcp_servers.fs: give either command (stdio) or url");
  expect_error("mcp_servers: {fs: {command: a, url: http://h/mcp}}\n" + tail,
               "give either command");
  expect_error("mcp_servers: {fs: {url: ftp://h}}\n" + tail, "mcp_servers.fs.url");
  expect_error("mcp_servers: {fs: {command: a, typo: 1}}\n" + tail, "mcp_servers.fs.typo");
  expect_error("mcp_servers: {fs: {command: a, env: {1X: y}}}\n" + tail, "mcp_servers.fs.env.1X");
  expect_error(
      "upstreams: {local: {profile: scripted}}\n"
      "routes: [{model: m, upstreams: [local], tools: {mode: server, mcp: [nope]}}]\n",
      "routes[0].tools.mcp[0]: unknown MCP server 'nope'");
  expect_error("mcp_endpoint: {tools: {mcp: [nope]}}\n" + tail, "mcp_endpoint.tools.mcp[0]");
  expect_error("mcp_endpoint: {max_sessions: 0}\n" + tail, "mcp_endpoint.max_sessions");
}

// An MCP server adds a tool and sends notifications/tools/list_changed: the
// gateway re-reads its tools and the route that uses it, and /mcp, get new
// registries. A plain chat client's next request is served with the new tool;
// an MCP client of /mcp hears list_changed on its GET stream and lists it.
TEST(McpGatewayConfig, ListChangedReachesRoutesAndMcpEndpoint) {
  std::string yaml = std::string(R"(
mcp_servers:
  fk:
    command: python3
    args: [)") + TOOLWIRE_SOURCE_DIR +
                     R"(/tests/mcp/fake_server.py]
    allow: [add_tool, extra, media]
mcp_endpoint:
  tools: {builtins: [], mcp: [fk]}
upstreams:
  local: {profile: scripted}
routes:
  - model: "*"
    upstreams: [local]
    tools: {mode: server, builtins: [], mcp: [fk]}
)";
  auto cfg = load_config_string(yaml, "t.yaml");
  ASSERT_TRUE(cfg.ok()) << cfg.error().message;
  // The route's model: the offline script would not call these tools.
  auto script = provider::parse_script(R"js({"rules":[
      {"user_pattern":"^add$","calls":[{"name":"fk__add_tool","arguments":{}}]},
      {"after_tool":"fk__add_tool","reply":"add: {{result}}"},
      {"user_pattern":"^extra$","calls":[{"name":"fk__extra","arguments":{}}]},
      {"after_tool":"fk__extra","reply":"extra: {{result}}"}]})js");
  ASSERT_TRUE(script.ok());
  transport::HttpClient http;
  auto built =
      build_gateway(*cfg, http, OfflineDemo{.script = R"({"rules": []})", .todo_tools = {}});
  ASSERT_TRUE(built.ok()) << built.error().message;
  auto targets = built->router->resolve("m");
  ASSERT_TRUE(targets.ok());
  auto route_tools = std::make_shared<RouteTools>(*(*targets)[0].tools);
  ASSERT_TRUE(route_tools->live);
  EXPECT_EQ(route_tools->current()->find("fk__extra"), nullptr);
  std::mutex mu;
  std::condition_variable cv;
  int published = 0;
  route_tools->live->subscribe([&](std::shared_ptr<const tools::Registry>) {
    std::lock_guard lock(mu);
    ++published;
    cv.notify_all();
  });

  auto router = std::make_shared<PatternRouter>();
  auto* p = router->own(std::make_unique<provider::ScriptedProvider>(std::move(*script)));
  router->add_route({.pattern = "*", .aliases = {}, .targets = {{p, "", "scripted", route_tools}}});
  GatewayOptions o;
  o.host = "127.0.0.1";
  o.port = 0;
  o.threads = 2;
  o.log = [](std::string_view) {};
  Gateway gw(o, router);
  gw.set_mcp_tools(built->mcp_tools);
  ASSERT_TRUE(built->mcp_tools_live);
  built->mcp_tools_live->subscribe(
      [&gw](std::shared_ptr<const tools::Registry> r) { gw.set_mcp_tools(std::move(r)); });
  ASSERT_TRUE(gw.start().ok());

  // An MCP client of /mcp, connected before the change.
  std::mutex cmu;
  std::condition_variable ccv;
  mcp::ClientOptions co;
  co.http.url = "http://127.0.0.1:" + std::to_string(gw.port()) + "/mcp";
  co.on_tools_changed = [&] {
    std::lock_guard lock(cmu);
    ccv.notify_all();
  };
  auto mc = mcp::Client::create(co);
  ASSERT_TRUE(mc->connect().ok());
  auto before = mc->list_tools();
  ASSERT_TRUE(before.ok());
  EXPECT_EQ(before->size(), 2u);  // add_tool, media

  auto chat = [&](const std::string& user) {
    json body = {{"model", "m"}, {"messages", {{{"role", "user"}, {"content", user}}}}};
    testing::RawClient c(gw.port());
    EXPECT_TRUE(c.send(testing::http_post("/v1/chat/completions", body.dump())));
    auto r = c.read_response(Ms(30000));
    EXPECT_TRUE(r.has_value());
    if (!r) return std::string();
    EXPECT_EQ(r->status, 200) << r->body;
    return answer_text(json::parse(r->body, nullptr, false));
  };
  EXPECT_EQ(chat("add"), "add: added");
  {
    std::unique_lock lock(mu);
    ASSERT_TRUE(cv.wait_for(lock, 20s, [&] { return published >= 1; }));
  }
  EXPECT_NE(route_tools->current()->find("fk__extra"), nullptr);
  // The next request sees the new tool.
  EXPECT_EQ(chat("extra"), "extra: extra here");
  // /mcp: list_changed on the GET stream, then the new list.
  {
    std::unique_lock lock(cmu);
    ASSERT_TRUE(ccv.wait_for(lock, 20s, [&] {
      for (const auto& t : mc->tools())
        if (t.name == "fk__extra") return true;
      return false;
    }));
  }
  auto extra = mc->call_tool("fk__extra", json::object());
  ASSERT_TRUE(extra.ok()) << extra.error().to_string();
  EXPECT_NE(extra->content.dump().find("extra here"), std::string::npos);
  mc->close();
  gw.stop();
  gw.wait();
  for (auto& c : built->mcp_clients) c->close();
}

}  // namespace
}  // namespace toolwire::gateway
