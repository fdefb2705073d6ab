// `toolwire mcp serve` over stdio, and mcp::Server in process: negotiation,
// pagination, tool results and errors, malformed / batch / oversized frames
// answered without dropping the connection, cancellation. Every frame the
// server sends is validated against the MCP 2025-11-25 schema.
#include <gtest/gtest.h>

#include <deque>
#include <filesystem>
#include <fstream>

#include "mcp_test_util.h"
#include "toolwire/mcp/server.h"
#include "toolwire/mcp/tool_bridge.h"
#include "toolwire/tools/executor.h"

namespace toolwire::mcp {
namespace {

using nlohmann::json;
using namespace std::chrono_literals;
namespace fs = std::filesystem;

// A raw line peer: send frames, wait (bounded) for the next one back.
class RawPeer {
 public:
  explicit RawPeer(std::vector<std::string> argv) {
    StdioServerParams p;
    p.argv = std::move(argv);
    StdioCallbacks cb;
    cb.on_line = [this](std::string_view l) {
      std::lock_guard<std::mutex> lock(mu_);
      lines_.emplace_back(l);
      cv_.notify_all();
    };
    auto t = StdioTransport::start(p, std::move(cb));
    if (t) t_ = std::move(*t);
  }
  bool ok() const { return t_ != nullptr; }
  void send(const std::string& frame) { ASSERT_TRUE(t_->send(frame).ok()); }
  json next() {
    std::unique_lock<std::mutex> lock(mu_);
    if (!cv_.wait_for(lock, 20s, [&] { return !lines_.empty(); })) return json("timeout");
    std::string l = std::move(lines_.front());
    lines_.pop_front();
    return json::parse(l, nullptr, false);
  }
  json call(const std::string& frame) {
    send(frame);
    return next();
  }
  StdioTransport& transport() { return *t_; }

 private:
  std::unique_ptr<StdioTransport> t_;
  std::mutex mu_;
  std::condition_variable cv_;
  std::deque<std::string> lines_;
};

struct Workspace {
  fs::path dir = fs::temp_directory_path() / ("tw_mcp_serve_" + std::to_string(getpid()));
  Workspace() {
    fs::create_directories(dir / "sub");
    std::ofstream(dir / "a.txt") << "alpha\nbeta\n";
    std::ofstream(dir / "sub" / "b.txt") << "gamma\n";
  }
  ~Workspace() { fs::remove_all(dir); }
};

std::vector<std::string> serve_argv(const Workspace& ws, std::vector<std::string> extra = {}) {
  std::vector<std::string> a = {TOOLWIRE_BINARY, "mcp", "serve", "--workspace", ws.dir.string()};
  for (auto& e : extra) a.push_back(std::move(e));
  return a;
}

TEST(McpServe, ProtocolOverStdio) {
  Workspace ws;
  testing::McpSchema schema;
  RawPeer p(serve_argv(ws, {"--page-size", "2", "--max-message-kb", "4"}));
  ASSERT_TRUE(p.ok());

  json init = p.call(R"({"jsonrpc":"2.0","id":1,"method":"initialize","params":{)"
                     R"("protocolVersion":"2025-06-18","capabilities":{},)"
                     R"("clientInfo":{"name":"t","version":"1"}}})");
  EXPECT_EQ(schema.check_response(init, "InitializeResult"), "");
  EXPECT_EQ(init["result"]["protocolVersion"], "2025-06-18");
  EXPECT_TRUE(init["result"]["capabilities"].contains("tools"));
  p.send(R"({"jsonrpc":"2.0","method":"notifications/initialized"})");

  // Pages of two: read, list | glob, grep.
  json page1 = p.call(R"({"jsonrpc":"2.0","id":2,"method":"tools/list"})");
  EXPECT_EQ(schema.check_response(page1, "ListToolsResult"), "");
  ASSERT_EQ(page1["result"]["tools"].size(), 2u);
  EXPECT_EQ(page1["result"]["tools"][0]["name"], "read");
  std::string cursor = page1["result"]["nextCursor"];
  json page2 = p.call(R"({"jsonrpc":"2.0","id":3,"method":"tools/list","params":{"cursor":")" +
                      cursor + R"("}})");
  EXPECT_EQ(schema.check_response(page2, "ListToolsResult"), "");
  ASSERT_EQ(page2["result"]["tools"].size(), 2u);
  EXPECT_EQ(page2["result"]["tools"][1]["name"], "grep");
  EXPECT_FALSE(page2["result"].contains("nextCursor"));
  json badcur =
      p.call(R"({"jsonrpc":"2.0","id":4,"method":"tools/list","params":{"cursor":"zz"}})");
  EXPECT_EQ(badcur["error"]["code"], rpc_error::invalid_params);

  json read = p.call(R"({"jsonrpc":"2.0","id":"r1","method":"tools/call",)"
                     R"("params":{"name":"read","arguments":{"path":"a.txt"}}})");
  EXPECT_EQ(schema.check_response(read, "CallToolResult"), "");
  EXPECT_EQ(read["id"], "r1");
  EXPECT_EQ(read["result"]["isError"], false);
  EXPECT_NE(testing::all_text(read["result"]["content"]).find("beta"), std::string::npos);

  // Tool errors are results; protocol errors are JSON-RPC errors.
  json badargs = p.call(R"({"jsonrpc":"2.0","id":6,"method":"tools/call",)"
                        R"("params":{"name":"read","arguments":{"path":7}}})");
  EXPECT_EQ(schema.check_response(badargs, "CallToolResult"), "");
  EXPECT_EQ(badargs["result"]["isError"], true);
  json escape = p.call(R"({"jsonrpc":"2.0","id":7,"method":"tools/call",)"
                       R"("params":{"name":"read","arguments":{"path":"../../etc/passwd"}}})");
  EXPECT_EQ(escape["result"]["isError"], true);
  json unknown = p.call(R"({"jsonrpc":"2.0","id":8,"method":"tools/call","params":{"name":"rm"}})");
  EXPECT_EQ(schema.check_response(unknown, ""), "");
  EXPECT_EQ(unknown["error"]["code"], rpc_error::invalid_params);
  json nomethod = p.call(R"({"jsonrpc":"2.0","id":9,"method":"resources/list"})");
  EXPECT_EQ(nomethod["error"]["code"], rpc_error::method_not_found);

  // Bad frames: answered, connection kept.
  json parse = p.call("{not json");
  EXPECT_EQ(schema.check_response(parse, ""), "");
  EXPECT_EQ(parse["error"]["code"], rpc_error::parse_error);
  json invalid = p.call(R"({"jsonrpc":"2.0","id":10})");
  EXPECT_EQ(invalid["error"]["code"], rpc_error::invalid_request);
  EXPECT_EQ(invalid["id"], 10);
  json batch = p.call(R"([{"jsonrpc":"2.0","id":11,"method":"ping"}])");
  EXPECT_EQ(batch["error"]["code"], rpc_error::invalid_request);
  json big = p.call(R"({"jsonrpc":"2.0","id":12,"method":"ping","params":{"x":")" +
                    std::string(8000, 'x') + R"("}})");
  EXPECT_EQ(schema.check_response(big, ""), "");
  EXPECT_EQ(big["error"]["code"], rpc_error::invalid_request);
  json ping = p.call(R"({"jsonrpc":"2.0","id":13,"method":"ping"})");
  EXPECT_EQ(ping["id"], 13);
  EXPECT_EQ(ping["result"], json::object());

  // Closing stdin ends it cleanly.
  p.transport().shutdown();
  EXPECT_EQ(p.transport().exit_reason(), "exited with status 0");
}

TEST(McpServe, ToolwireClientAgainstToolwireServer) {
  Workspace ws;
  testing::WireLog log;
  ClientOptions o;
  o.name = "tw";
  o.server.argv = serve_argv(ws, {"--page-size", "3"});
  log.attach(o);
  auto c = Client::create(o);
  ASSERT_TRUE(c->connect().ok());
  EXPECT_EQ(c->server_info().protocol_version, "2025-11-25");
  tools::Registry reg;
  ServerTools st(c, {.prefix = "tw"});
  ASSERT_TRUE(st.sync(reg).ok());
  EXPECT_EQ(reg.names(),
            (std::vector<std::string>{"tw__read", "tw__list", "tw__glob", "tw__grep"}));
  tools::Executor ex(reg);
  auto r = ex.run_one({"1", "tw__grep", R"({"pattern":"gamma"})"});
  ASSERT_FALSE(r.is_error);
  EXPECT_NE(std::get<ir::TextPart>(r.content[0]).text.find("b.txt"), std::string::npos);
  c->close();
  log.expect_clean();
}

// In process: a slow tool, cancelled by the client, gets no answer.
TEST(McpServer, CancelledCallIsNotAnswered) {
  tools::Registry reg;
  tools::ToolSpec slow;
  slow.name = "slow";
  slow.handler = tools::SyncHandler([](const json&, tools::ToolContext& ctx) {
    ctx.cancel.wait_for(20s);
    return tools::ToolOutput::text(ctx.cancelled() ? "saw cancel" : "done");
  });
  ASSERT_TRUE(reg.add(std::move(slow)).ok());
  tools::ToolSpec fast;
  fast.name = "fast";
  fast.handler = tools::SyncHandler(
      [](const json&, tools::ToolContext&) { return tools::ToolOutput::text("quick"); });
  ASSERT_TRUE(reg.add(std::move(fast)).ok());

  std::mutex mu;
  std::vector<json> out;
  testing::Waiter w;
  Server server(reg, {}, [&](std::string frame) {
    std::lock_guard<std::mutex> lock(mu);
    out.push_back(json::parse(frame));
    w.notify();
  });
  server.handle_frame(R"({"jsonrpc":"2.0","id":1,"method":"tools/call","params":{"name":"slow"}})");
  ASSERT_TRUE(w.wait([&] { return server.running_calls() == 1; }));
  // The same id again while it runs is refused.
  server.handle_frame(R"({"jsonrpc":"2.0","id":1,"method":"tools/call","params":{"name":"fast"}})");
  server.handle_frame(
      R"({"jsonrpc":"2.0","method":"notifications/cancelled","params":{"requestId":1}})");
  server.handle_frame(R"({"jsonrpc":"2.0","id":2,"method":"tools/call","params":{"name":"fast"}})");
  ASSERT_TRUE(w.wait([&] {
    std::lock_guard<std::mutex> lock(mu);
    return out.size() >= 2 && server.running_calls() == 0;
  }));
  server.shutdown();
  std::lock_guard<std::mutex> lock(mu);
  ASSERT_EQ(out.size(), 2u);
  EXPECT_EQ(out[0]["error"]["code"], rpc_error::invalid_request);  // duplicate id
  EXPECT_EQ(out[1]["id"], 2);
  EXPECT_EQ(out[1]["result"]["content"][0]["text"], "quick");
}

}  // namespace
}  // namespace toolwire::mcp

namespace toolwire::mcp {
namespace {

// `toolwire chat --mcp`: the scripted model calls a tool of an MCP server and
// answers with its result.
TEST(McpChat, AgentLoopCallsAnMcpTool) {
  Workspace ws;
  fs::path script = ws.dir / "script.json";
  std::ofstream(script) << R"js({"rules":[
    {"user_pattern":"echo (.*)","calls":[{"name":"fk__echo","arguments":{"text":"$1"}}]},
    {"after_tool":"fk__echo","reply":"Server said: {{result}}"}]})js";
  std::string fake = std::string(TOOLWIRE_SOURCE_DIR) + "/tests/mcp/fake_server.py";
  std::string cmd = std::string(TOOLWIRE_BINARY) + " chat --script '" + script.string() +
                    "' --data-dir '" + ws.dir.string() + "' --dir '" + ws.dir.string() +
                    "' --mcp 'fk=python3 " + fake + "' --once 'echo over mcp' 2>&1";
  FILE* p = popen(cmd.c_str(), "r");
  ASSERT_NE(p, nullptr);
  std::string out;
  char buf[4096];
  size_t n;
  while ((n = fread(buf, 1, sizeof buf, p)) > 0) out.append(buf, n);
  int status = pclose(p);
  EXPECT_EQ(WEXITSTATUS(status), 0) << out;
  EXPECT_NE(out.find("fk__echo"), std::string::npos) << out;
  EXPECT_NE(out.find("Server said: echo: over mcp"), std::string::npos) << out;
}

}  // namespace
}  // namespace toolwire::mcp
