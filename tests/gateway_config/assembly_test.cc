// How the builder assembles tools: the offline demo's to-do tools come only
// from what the caller lends (the gateway links no SQLite), and routes whose
// tools sections make the same registry share one.
#include <gtest/gtest.h>

#include "toolwire/gateway/config.h"
#include "toolwire/gateway/routing.h"
#include "toolwire/transport/http_client.h"

namespace toolwire::gateway {
namespace {

tools::ToolSpec stub_tool(std::string name) {
  tools::ToolSpec s;
  s.name = std::move(name);
  s.description = "a stand-in";
  s.handler = tools::SyncHandler(
      [](const nlohmann::json&, tools::ToolContext&) { return tools::ToolOutput::text("ok"); });
  return s;
}

TEST(Assembly, DemoTodoToolsComeFromTheLentDemo) {
  RouteToolsConfig c;
  c.mode = ToolMode::server;
  c.builtins.clear();
  c.demo_todo = true;
  c.data_dir = "/some/dir";
  std::string seen_dir;
  OfflineDemo demo;
  demo.todo_tools = [&seen_dir](const std::string& dir) -> Result<std::vector<tools::ToolSpec>> {
    seen_dir = dir;
    return std::vector<tools::ToolSpec>{stub_tool("add_todo")};
  };
  auto t = make_route_tools(c, {}, demo);
  ASSERT_TRUE(t) << t.error().to_string();
  ASSERT_TRUE((*t)->registry);
  EXPECT_EQ((*t)->registry->names(), std::vector<std::string>{"add_todo"});
  EXPECT_EQ(seen_dir, "/some/dir");

  auto without = make_route_tools(c);
  ASSERT_FALSE(without);
  EXPECT_NE(without.error().message.find("demo_todo"), std::string::npos)
      << without.error().message;
}

TEST(Assembly, RoutesWithTheSameToolsShareOneRegistry) {
  auto c = load_config_string(R"(upstreams: {s: {profile: scripted}}
mcp_endpoint: {tools: {builtins: [read, grep]}}
routes:
  - {model: a, upstreams: [s], tools: {mode: server, builtins: [read, grep]}}
  - {model: b, upstreams: [s], tools: {mode: mixed, builtins: [grep, read], max_rounds: 2}}
  - {model: c, upstreams: [s], tools: {mode: server, builtins: [read]}}
  - {model: d, upstreams: [s]}
)",
                              "share.yaml");
  ASSERT_TRUE(c) << c.error().message;
  transport::HttpClient http;
  auto built = build_gateway(*c, http, OfflineDemo{.script = R"({"rules": []})", .todo_tools = {}});
  ASSERT_TRUE(built) << built.error().message;
  auto tools_of = [&](const char* model) { return built->router->resolve(model)->front().tools; };
  ASSERT_TRUE(tools_of("a")->registry);
  EXPECT_EQ(tools_of("a")->registry, tools_of("b")->registry);
  EXPECT_EQ(tools_of("a")->registry, built->mcp_tools);
  EXPECT_NE(tools_of("a")->registry, tools_of("c")->registry);
  // Shared registry, each route its own settings.
  EXPECT_EQ(tools_of("b")->mode, ToolMode::mixed);
  EXPECT_EQ(tools_of("b")->max_rounds, 2);
  EXPECT_EQ(tools_of("a")->mode, ToolMode::server);
  EXPECT_FALSE(tools_of("d")->registry);
}

}  // namespace
}  // namespace toolwire::gateway
