// The Streamable HTTP client against tests/mcp/resume_server.py, a server that
// cuts its SSE streams: a stream cut before its answer is resumed with GET +
// Last-Event-ID after the stream's `retry` delay (progress before and after
// the cut both arrive); a stream with no event ID fails at once, not at the
// deadline; the GET stream carries notifications/tools/list_changed and is
// reopened after it ends; MCP-Protocol-Version goes on every request after
// initialize; 2025-03-26 is negotiated when asked for.
#include <gtest/gtest.h>

#include "mcp_test_util.h"
#include "toolwire/mcp/client.h"
#include "toolwire/mcp/stdio_transport.h"

namespace toolwire::mcp {
namespace {

using nlohmann::json;
using namespace std::chrono_literals;

// resume_server.py, on a port the kernel picks.
struct ResumeServer {
  std::mutex mu;
  std::condition_variable cv;
  int port = 0;
  std::unique_ptr<StdioTransport> proc;
  ResumeServer() {
    StdioServerParams sp;
    sp.argv = {"python3", std::string(TOOLWIRE_SOURCE_DIR) + "/tests/mcp/resume_server.py"};
    StdioCallbacks cb;
    cb.on_stderr = [this](std::string_view l) {
      if (!l.starts_with("LISTENING ")) return;
      std::lock_guard<std::mutex> lock(mu);
      port = std::stoi(std::string(l.substr(10)));
      cv.notify_all();
    };
    auto t = StdioTransport::start(sp, std::move(cb));
    EXPECT_TRUE(t.ok());
    if (!t) return;
    proc = std::move(*t);
    std::unique_lock<std::mutex> lock(mu);
    EXPECT_TRUE(cv.wait_for(lock, 20s, [&] { return port != 0; }));
  }
  ~ResumeServer() {
    if (proc) proc->shutdown();  // closes its stdin: it exits
  }
  std::string url() const { return "http://127.0.0.1:" + std::to_string(port) + "/mcp"; }
};

json report(Client& c) {
  auto r = c.call_tool("report", json::object());
  EXPECT_TRUE(r.ok()) << r.error().message;
  if (!r) return json::object();
  return json::parse(testing::all_text(r->content));
}

TEST(McpHttpClient, ResumesCutStreamsAndListensOnGet) {
  ResumeServer server;
  ASSERT_NE(server.port, 0);
  testing::WireLog log;
  testing::Waiter changed;
  ClientOptions o;
  o.name = "resume";
  o.http.url = server.url();
  o.http.reconnect_delay = 100ms;
  o.request_timeout = 30s;
  log.attach(o);
  o.on_tools_changed = [&] { changed.notify(); };
  auto c = Client::create(o);
  ASSERT_TRUE(c->connect().ok());
  EXPECT_EQ(c->server_info().protocol_version, "2025-11-25");
  auto listed = c->list_tools();
  ASSERT_TRUE(listed.ok());
  EXPECT_EQ(listed->size(), 4u);

  // Cut after the first progress; resumed from its event ID: the second
  // progress and the answer come on the GET.
  std::mutex mu;
  std::vector<double> progress;
  RequestOptions ro;
  ro.on_progress = [&](const json& p) {
    std::lock_guard<std::mutex> lock(mu);
    progress.push_back(p.value("progress", -1.0));
  };
  auto slow = c->call_tool("slow", json::object(), ro);
  ASSERT_TRUE(slow.ok()) << slow.error().message;
  EXPECT_EQ(testing::all_text(slow->content), "slow done\n");
  {
    std::lock_guard<std::mutex> lock(mu);
    EXPECT_EQ(progress, (std::vector<double>{1, 2}));
  }

  // Cut with nothing to resume from: a clear error now, not at the 30 s deadline.
  auto t0 = std::chrono::steady_clock::now();
  auto cut = c->call_tool("cut", json::object());
  ASSERT_FALSE(cut.ok());
  EXPECT_NE(cut.error().message.find("no event ID"), std::string::npos) << cut.error().message;
  EXPECT_LT(std::chrono::steady_clock::now() - t0, 10s);

  // The GET stream is open (the client opened it after initialize).
  json seen;
  for (int i = 0; i < 200; ++i) {
    seen = report(*c);
    if (seen.value("listening", 0) >= 1) break;
  }
  ASSERT_GE(seen.value("listening", 0), 1) << seen.dump();
  // list_changed on the GET stream: the client re-lists and sees `fresh`.
  auto grow = c->call_tool("grow", json::object());
  ASSERT_TRUE(grow.ok());
  EXPECT_EQ(testing::all_text(grow->content), "grown (1 listening)\n");
  ASSERT_TRUE(changed.wait([&] {
    for (const auto& t : c->tools())
      if (t.name == "fresh") return true;
    return false;
  }));
  // The GET stream ended after it: reopened with its last event ID.
  for (int i = 0; i < 200; ++i) {
    seen = report(*c);
    if (seen.value("listening", 0) >= 1) break;
  }
  EXPECT_GE(seen.value("listening", 0), 1) << seen.dump();
  const json& ids = seen["last_event_ids"];
  EXPECT_NE(std::find(ids.begin(), ids.end(), "s1/1"), ids.end()) << seen.dump();
  EXPECT_NE(std::find(ids.begin(), ids.end(), "get/1"), ids.end()) << seen.dump();
  // Every request after initialize carried the agreed version.
  for (const auto& v : seen["versions"]) EXPECT_EQ(v, "2025-11-25") << seen.dump();
  EXPECT_TRUE(c->ping().ok());
  c->close();
  log.expect_clean();
}

TEST(McpHttpClient, Negotiates2025_03_26) {
  ResumeServer server;
  ASSERT_NE(server.port, 0);
  ClientOptions o;
  o.http.url = server.url();
  o.http.listen = false;
  o.protocol_versions = {"2025-03-26"};
  auto c = Client::create(o);
  ASSERT_TRUE(c->connect().ok());
  EXPECT_EQ(c->server_info().protocol_version, "2025-03-26");
  json seen = report(*c);
  EXPECT_EQ(seen["gets"], 0) << seen.dump();  // listen = false: no GET stream
  c->close();
}

}  // namespace
}  // namespace toolwire::mcp
