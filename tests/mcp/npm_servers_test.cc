// toolwire's MCP client against the real reference servers from npm
// (@modelcontextprotocol/server-everything and server-filesystem, in
// tests/npm/node_modules), over stdio. Every frame toolwire sends is checked
// against the MCP 2025-11-25 schema.
#include <gtest/gtest.h>

#include <condition_variable>
#include <filesystem>
#include <fstream>

#include "mcp_test_util.h"
#include "toolwire/mcp/content.h"
#include "toolwire/mcp/tool_bridge.h"
#include "toolwire/tools/executor.h"

namespace toolwire::mcp {
namespace {

using nlohmann::json;
using namespace std::chrono_literals;
namespace fs = std::filesystem;

std::string package_main(const std::string& pkg) {
  return std::string(TOOLWIRE_SOURCE_DIR) + "/tests/npm/node_modules/@modelcontextprotocol/" + pkg +
         "/dist/index.js";
}

std::string agent_text(const ir::ToolResultPart& r) {
  std::string s;
  for (const auto& p : r.content)
    if (auto* t = std::get_if<ir::TextPart>(&p)) s += t->text + "\n";
  return s;
}

ClientOptions node_server(testing::WireLog& log, const std::string& name,
                          std::vector<std::string> args) {
  ClientOptions o;
  o.name = name;
  o.server.argv = {"node"};
  for (auto& a : args) o.server.argv.push_back(std::move(a));
  o.request_timeout = 30s;
  log.attach(o);
  return o;
}

TEST(McpEverything, ToolsContentTypesStructuredProgress) {
  ASSERT_TRUE(fs::exists(package_main("server-everything")))
      << "run scripts/setup.sh (npm test peers)";
  testing::WireLog log;
  testing::Waiter w;
  auto o = node_server(log, "every", {package_main("server-everything"), "stdio"});
  o.on_tools_changed = [&w] { w.notify(); };
  auto c = Client::create(o);
  ASSERT_TRUE(c->connect().ok());
  EXPECT_EQ(c->server_info().protocol_version, "2025-11-25");

  auto tools = c->list_tools();
  ASSERT_TRUE(tools.ok()) << tools.error().message;
  std::set<std::string> names;
  for (const auto& t : *tools) names.insert(t.name);
  for (const char* want : {"echo", "get-sum", "get-tiny-image", "get-structured-content",
                           "get-resource-reference", "trigger-long-running-operation"})
    EXPECT_TRUE(names.count(want)) << want;

  tools::Registry reg;
  ServerTools st(c, {.prefix = "ev", .deny = {"trigger-*", "toggle-*", "simulate-*"}});
  auto rep = st.sync(reg);
  ASSERT_TRUE(rep.ok()) << rep.error().message;
  for (const auto& s : rep->skipped) ADD_FAILURE() << "skipped " << s;
  EXPECT_TRUE(reg.find("ev__echo"));
  EXPECT_FALSE(reg.find("ev__trigger-long-running-operation"));
  tools::Executor ex(reg);

  auto echo = ex.run_one({"1", "ev__echo", R"({"message":"hello mcp"})"});
  ASSERT_FALSE(echo.is_error);
  EXPECT_EQ(std::get<ir::TextPart>(echo.content[0]).text, "Echo: hello mcp");

  auto sum = ex.run_one({"2", "ev__get-sum", R"({"a":2,"b":40})"});
  ASSERT_FALSE(sum.is_error);
  EXPECT_NE(std::get<ir::TextPart>(sum.content[0]).text.find("42"), std::string::npos);

  auto img = ex.run_one({"3", "ev__get-tiny-image", "{}"});
  ASSERT_FALSE(img.is_error);
  bool has_png = false;
  for (const auto& p : img.content)
    if (auto* i = std::get_if<ir::ImagePart>(&p))
      has_png = i->media_type == "image/png" && i->data.starts_with("iVBORw0KGgo");
  EXPECT_TRUE(has_png);

  // structuredContent checked against the tool's outputSchema.
  auto weather = ex.run_one({"4", "ev__get-structured-content", R"({"location":"Chicago"})"});
  ASSERT_FALSE(weather.is_error) << agent_text(weather);
  EXPECT_NE(std::get<ir::TextPart>(weather.content[0]).text.find("Light rain"), std::string::npos);

  // An embedded text resource.
  auto res =
      ex.run_one({"5", "ev__get-resource-reference", R"({"resourceType":"Text","resourceId":2})"});
  bool has_resource = false;
  for (const auto& p : res.content)
    if (auto* t = std::get_if<ir::TextPart>(&p)) has_resource |= t->text.starts_with("resource ");
  EXPECT_TRUE(has_resource) << agent_text(res);

  // Arguments toolwire refuses before they travel (the server's zod schema, compiled here).
  auto bad = ex.run_one({"6", "ev__get-sum", R"({"a":"two","b":1})"});
  EXPECT_TRUE(bad.is_error);

  // Progress notifications reach the caller.
  std::vector<double> progress;
  std::mutex mu;
  RequestOptions ro;
  ro.on_progress = [&](const json& p) {
    std::lock_guard<std::mutex> lock(mu);
    progress.push_back(p.value("progress", -1.0));
  };
  auto lr = c->call_tool("trigger-long-running-operation", {{"duration", 0.3}, {"steps", 3}}, ro);
  ASSERT_TRUE(lr.ok()) << lr.error().message;
  EXPECT_FALSE(lr->is_error);
  {
    std::lock_guard<std::mutex> lock(mu);
    EXPECT_EQ(progress, (std::vector<double>{1, 2, 3}));
  }

  // Unknown tool: the server's error comes back as a result or an RPC error; never a hang.
  auto unknown = c->call_tool("no-such-tool", json::object());
  EXPECT_TRUE(!unknown.ok() || unknown->is_error);
  EXPECT_TRUE(c->ping().ok());
  c->close();
  log.expect_clean();
}

TEST(McpFilesystem, ReadWriteListInsideItsRoot) {
  ASSERT_TRUE(fs::exists(package_main("server-filesystem")))
      << "run scripts/setup.sh (npm test peers)";
  fs::path dir = fs::temp_directory_path() / ("tw_mcp_fs_" + std::to_string(getpid()));
  fs::create_directories(dir);
  std::ofstream(dir / "hello.txt") << "hello from disk\n";
  fs::path root = fs::canonical(dir);

  testing::WireLog log;
  auto c =
      Client::create(node_server(log, "fs", {package_main("server-filesystem"), root.string()}));
  ASSERT_TRUE(c->connect().ok());
  tools::Registry reg;
  ServerTools st(
      c, {.prefix = "fs",
          .allow = {"read_text_file", "write_file", "list_directory", "list_allowed_directories"}});
  auto rep = st.sync(reg);
  ASSERT_TRUE(rep.ok()) << rep.error().message;
  EXPECT_EQ(reg.size(), 4u);
  EXPECT_FALSE(reg.find("fs__move_file"));
  tools::Executor ex(reg);

  std::string file = (root / "hello.txt").string();
  auto read = ex.run_one({"1", "fs__read_text_file", json{{"path", file}}.dump()});
  ASSERT_FALSE(read.is_error) << agent_text(read);
  EXPECT_NE(agent_text(read).find("hello from disk"), std::string::npos);

  std::string out = (root / "new.txt").string();
  auto write =
      ex.run_one({"2", "fs__write_file", json{{"path", out}, {"content", "written"}}.dump()});
  ASSERT_FALSE(write.is_error) << agent_text(write);
  std::ifstream in(out);
  std::string got;
  std::getline(in, got);
  EXPECT_EQ(got, "written");

  auto list = ex.run_one({"3", "fs__list_directory", json{{"path", root.string()}}.dump()});
  ASSERT_FALSE(list.is_error);
  EXPECT_NE(agent_text(list).find("new.txt"), std::string::npos);

  // Outside its root the server refuses: an error result, the session goes on.
  auto outside = ex.run_one({"4", "fs__read_text_file", R"({"path":"/etc/hostname"})"});
  EXPECT_TRUE(outside.is_error);
  EXPECT_TRUE(c->ping().ok());
  c->close();
  log.expect_clean();
  fs::remove_all(dir);
}

}  // namespace
}  // namespace toolwire::mcp

namespace toolwire::mcp {
namespace {

// Streamable HTTP: server-everything's HTTP transport (on 127.0.0.1, a port
// the kernel picks; see everything_http.mjs), toolwire's client over POST
// with JSON / SSE answers and a session id.
TEST(McpEverythingHttp, SessionToolsAndProgressOverStreamableHttp) {
  std::mutex mu;
  std::condition_variable cv;
  int port = 0;
  StdioServerParams sp;
  sp.argv = {"node", std::string(TOOLWIRE_SOURCE_DIR) + "/tests/mcp/everything_http.mjs"};
  StdioCallbacks scb;
  scb.on_stderr = [&](std::string_view l) {
    if (!l.starts_with("LISTENING ")) return;
    std::lock_guard<std::mutex> lock(mu);
    port = std::stoi(std::string(l.substr(10)));
    cv.notify_all();
  };
  auto server = StdioTransport::start(sp, std::move(scb));
  ASSERT_TRUE(server.ok());
  {
    std::unique_lock<std::mutex> lock(mu);
    ASSERT_TRUE(cv.wait_for(lock, 20s, [&] { return port != 0; }));
  }

  testing::WireLog log;
  ClientOptions o;
  o.name = "every-http";
  o.http.url = "http://127.0.0.1:" + std::to_string(port) + "/mcp";
  o.request_timeout = 30s;
  log.attach(o);
  auto c = Client::create(o);
  ASSERT_TRUE(c->connect().ok());
  EXPECT_EQ(c->server_info().protocol_version, "2025-11-25");
  tools::Registry reg;
  ServerTools st(c, {.prefix = "ev", .allow = {"echo", "get-tiny-image"}});
  ASSERT_TRUE(st.sync(reg).ok());
  EXPECT_EQ(reg.size(), 2u);
  tools::Executor ex(reg);
  auto echo = ex.run_one({"1", "ev__echo", R"({"message":"over http"})"});
  ASSERT_FALSE(echo.is_error) << agent_text(echo);
  EXPECT_EQ(std::get<ir::TextPart>(echo.content[0]).text, "Echo: over http");
  auto img = ex.run_one({"2", "ev__get-tiny-image", "{}"});
  ASSERT_FALSE(img.is_error);
  // Progress notifications arrive on the request's SSE stream before its answer.
  std::vector<double> progress;
  RequestOptions ro;
  ro.on_progress = [&](const json& p) {
    std::lock_guard<std::mutex> lock(mu);
    progress.push_back(p.value("progress", -1.0));
  };
  auto lr = c->call_tool("trigger-long-running-operation", {{"duration", 0.3}, {"steps", 3}}, ro);
  ASSERT_TRUE(lr.ok()) << lr.error().message;
  {
    std::lock_guard<std::mutex> lock(mu);
    EXPECT_EQ(progress, (std::vector<double>{1, 2, 3}));
  }
  EXPECT_TRUE(c->ping().ok());
  c->close();
  log.expect_clean();
  (*server)->kill_now();
  (*server)->shutdown();
}

}  // namespace
}  // namespace toolwire::mcp
