// The MCP client against tests/mcp/fake_server.py: handshake and version
// negotiation, pagination, content mapping, server requests and malformed
// lines, out-of-order answers, oversized lines, timeouts with
// notifications/cancelled, list_changed into the registry, and a crash mid-call
// followed by a restart.
#include <gtest/gtest.h>

#include <thread>

#include "mcp_test_util.h"
#include "toolwire/mcp/content.h"
#include "toolwire/mcp/tool_bridge.h"
#include "toolwire/tools/executor.h"

namespace toolwire::mcp {
namespace {

using nlohmann::json;
using namespace std::chrono_literals;

ClientOptions fake_options(testing::WireLog& log) {
  ClientOptions o;
  o.name = "fake";
  o.server.argv = {"python3", std::string(TOOLWIRE_SOURCE_DIR) + "/tests/mcp/fake_server.py"};
  o.server.max_message_bytes = 1 << 20;
  o.server.grace = 2000ms;
  o.request_timeout = 20s;
  o.restart_backoff = 50ms;
  log.attach(o);
  return o;
}

TEST(McpClient, HandshakeAndPagedToolList) {
  testing::WireLog log;
  auto c = Client::create(fake_options(log));
  ASSERT_TRUE(c->connect().ok());
  EXPECT_EQ(c->server_info().protocol_version, "2025-11-25");
  EXPECT_EQ(c->server_info().server_info["name"], "fake");
  auto tools = c->list_tools();
  ASSERT_TRUE(tools.ok()) << tools.error().message;
  ASSERT_EQ(tools->size(), 8u);  // four pages of two
  EXPECT_EQ((*tools)[0].name, "echo");
  EXPECT_EQ((*tools)[7].name, "cancelled");
  EXPECT_TRUE((*tools)[5].output_schema.has_value());
  EXPECT_TRUE(c->ping().ok());
  c->close();
  log.expect_clean();
}

TEST(McpClient, OlderVersionAcceptedUnknownRefused) {
  testing::WireLog log;
  auto o = fake_options(log);
  o.server.env = {"FAKE_VERSION=2025-06-18"};
  auto c = Client::create(o);
  ASSERT_TRUE(c->connect().ok());
  EXPECT_EQ(c->server_info().protocol_version, "2025-06-18");
  c->close();

  o.server.env = {"FAKE_VERSION=2024-01-01"};
  auto bad = Client::create(o);
  Status st = bad->connect();
  ASSERT_FALSE(st.ok());
  EXPECT_NE(st.error().message.find("2024-01-01"), std::string::npos);
  log.expect_clean();
}

TEST(McpClient, AnswersServerPingAndSurvivesMalformedLines) {
  testing::WireLog log;
  auto c = Client::create(fake_options(log));
  ASSERT_TRUE(c->connect().ok());
  auto r = c->call_tool("echo", {{"text", "hi"}});
  ASSERT_TRUE(r.ok()) << r.error().message;
  EXPECT_EQ(testing::all_text(r->content), "echo: hi\n");
  EXPECT_FALSE(r->is_error);
  // The server's ping was answered (the server reports it), the garbage line logged.
  auto seen = c->call_tool("cancelled", json::object());
  ASSERT_TRUE(seen.ok());
  auto state = json::parse(seen->content[0]["text"].get<std::string>());
  EXPECT_EQ(state["pings"], json::array({"srv-ping"}));
  EXPECT_TRUE(log.logged("invalid message"));
  EXPECT_TRUE(log.logged("echoing"));  // notifications/message
  c->close();
  log.expect_clean();
}

TEST(McpClient, OutOfOrderAnswersReachTheirCallers) {
  testing::WireLog log;
  auto c = Client::create(fake_options(log));
  ASSERT_TRUE(c->connect().ok());
  std::vector<std::string> order;
  std::mutex mu;
  testing::Waiter w;
  for (auto [text, ms] : {std::pair{"slow one", 400}, std::pair{"fast one", 0}}) {
    std::string t = text;
    c->call_tool_async("delayed_echo", {{"text", t}, {"ms", ms}}, {}, [&, t](Result<CallResult> r) {
      std::lock_guard<std::mutex> lock(mu);
      order.push_back(r.ok() && testing::all_text(r->content) == t + "\n" ? t : "wrong for " + t);
      w.notify();
    });
  }
  ASSERT_TRUE(w.wait([&] {
    std::lock_guard<std::mutex> lock(mu);
    return order.size() == 2;
  }));
  EXPECT_EQ(order, (std::vector<std::string>{"fast one", "slow one"}));
  c->close();
  log.expect_clean();
}

TEST(McpClient, OversizedLineIsDroppedAndTheConnectionStays) {
  testing::WireLog log;
  auto c = Client::create(fake_options(log));
  ASSERT_TRUE(c->connect().ok());
  auto r = c->call_tool("huge", json::object());
  ASSERT_TRUE(r.ok()) << r.error().message;
  EXPECT_EQ(testing::all_text(r->content), "after huge\n");
  EXPECT_TRUE(log.logged("over the size limit"));
  EXPECT_TRUE(c->ping().ok());
  c->close();
}

TEST(McpClient, TimeoutSendsCancelled) {
  testing::WireLog log;
  auto c = Client::create(fake_options(log));
  ASSERT_TRUE(c->connect().ok());
  RequestOptions ro;
  ro.timeout = 300ms;
  auto r = c->call_tool("slow", json::object(), ro);
  ASSERT_FALSE(r.ok());
  EXPECT_EQ(r.error().code, ErrorCode::deadline_exceeded);
  // A cancel token works the same way.
  tools::CancellationToken tok;
  RequestOptions ro2;
  ro2.cancel = tok;
  testing::Waiter w;
  std::optional<Error> got;
  std::mutex mu;
  c->call_tool_async("slow", json::object(), ro2, [&](Result<CallResult> res) {
    std::lock_guard<std::mutex> lock(mu);
    got = res.ok() ? make_error(ErrorCode::internal, "answered") : res.error();
    w.notify();
  });
  tok.cancel();
  ASSERT_TRUE(w.wait([&] {
    std::lock_guard<std::mutex> lock(mu);
    return got.has_value();
  }));
  EXPECT_EQ(got->code, ErrorCode::cancelled);
  auto seen = c->call_tool("cancelled", json::object());
  ASSERT_TRUE(seen.ok());
  auto state = json::parse(seen->content[0]["text"].get<std::string>());
  EXPECT_EQ(state["cancelled"].size(), 2u) << state.dump();
  c->close();
  log.expect_clean();
}

TEST(McpClient, ContentMapsToIrParts) {
  testing::WireLog log;
  auto c = Client::create(fake_options(log));
  ASSERT_TRUE(c->connect().ok());
  auto tools = c->list_tools();
  ASSERT_TRUE(tools.ok());
  auto r = c->call_tool("media", json::object());
  ASSERT_TRUE(r.ok());
  auto schema = tools::CompiledSchema::compile(*(*tools)[5].output_schema);
  ASSERT_TRUE(schema.ok());
  tools::ToolOutput out = to_tool_output(*r, &*schema);
  EXPECT_FALSE(out.is_error);
  ASSERT_EQ(out.content.size(), 6u);
  EXPECT_EQ(std::get<ir::TextPart>(out.content[0]).text, "media follows");
  EXPECT_EQ(std::get<ir::ImagePart>(out.content[1]).media_type, "image/png");
  EXPECT_NE(std::get<ir::TextPart>(out.content[2]).text.find("audio audio/wav"), std::string::npos);
  EXPECT_EQ(std::get<ir::UnknownPart>(out.content[3]).type, "audio");
  EXPECT_EQ(std::get<ir::TextPart>(out.content[4]).text, "resource file:///a.txt:\nhello");
  EXPECT_EQ(std::get<ir::TextPart>(out.content[5]).text, "resource link: b.txt file:///b.txt");
  // structuredContent that breaks the outputSchema is an error result.
  CallResult wrong = *r;
  wrong.structured_content = json{{"n", "seven"}};
  EXPECT_TRUE(to_tool_output(wrong, &*schema).is_error);
  // Content served back over MCP keeps the audio block as it was.
  json back = to_mcp_content(out.content);
  EXPECT_EQ(back[3], r->content[2]);
  c->close();
}

TEST(McpClient, RegistryToolsWithPrefixAllowDenyAndListChanged) {
  testing::WireLog log;
  auto o = fake_options(log);
  testing::Waiter w;
  o.on_tools_changed = [&w] { w.notify(); };
  auto c = Client::create(o);
  ASSERT_TRUE(c->connect().ok());
  tools::Registry reg;
  ServerTools st(c,
                 {.prefix = "fk", .allow = {"echo", "add_tool", "extra", "c*"}, .deny = {"crash"}});
  auto rep = st.sync(reg);
  ASSERT_TRUE(rep.ok()) << rep.error().message;
  EXPECT_EQ(reg.names(), (std::vector<std::string>{"fk__echo", "fk__add_tool", "fk__cancelled"}));

  tools::Executor ex(reg);
  auto bad = ex.run_one({"c1", "fk__echo", R"({"text":5})"});
  EXPECT_TRUE(bad.is_error);  // toolwire validated against the server's schema
  auto ok = ex.run_one({"c2", "fk__echo", R"({"text":"x"})"});
  ASSERT_FALSE(ok.is_error);
  EXPECT_EQ(std::get<ir::TextPart>(ok.content[0]).text, "echo: x");

  uint64_t gen = c->tools_generation();
  ASSERT_FALSE(ex.run_one({"c3", "fk__add_tool", "{}"}).is_error);
  ASSERT_TRUE(w.wait([&] { return c->tools_generation() > gen; }));
  EXPECT_TRUE(st.tools_changed());
  auto rep2 = st.sync(reg);
  ASSERT_TRUE(rep2.ok());
  EXPECT_EQ(rep2->added, (std::vector<std::string>{"fk__extra"}));
  EXPECT_FALSE(st.tools_changed());
  tools::Executor ex2(reg);
  auto extra = ex2.run_one({"c4", "fk__extra", "{}"});
  ASSERT_FALSE(extra.is_error);
  EXPECT_EQ(std::get<ir::TextPart>(extra.content[0]).text, "extra here");
  c->close();
  log.expect_clean();
}

TEST(McpClient, ExecutorTimeoutCancelsTheMcpRequest) {
  testing::WireLog log;
  auto c = Client::create(fake_options(log));
  ASSERT_TRUE(c->connect().ok());
  tools::Registry reg;
  ServerTools st(c, {.prefix = "fk", .allow = {"slow", "cancelled"}, .timeout = 300ms});
  ASSERT_TRUE(st.sync(reg).ok());
  tools::Executor ex(reg);
  auto r = ex.run_one({"c1", "fk__slow", "{}"});
  EXPECT_TRUE(r.is_error);
  // The executor delivers the timeout result before it cancels the handler's
  // token, so the notification may trail this thread: ask until it is there.
  json state;
  for (auto until = std::chrono::steady_clock::now() + 10s;
       std::chrono::steady_clock::now() < until;) {
    auto seen = c->call_tool("cancelled", json::object());
    ASSERT_TRUE(seen.ok());
    state = json::parse(seen->content[0]["text"].get<std::string>());
    if (!state["cancelled"].empty()) break;
  }
  EXPECT_EQ(state["cancelled"].size(), 1u) << state.dump();
  c->close();
  log.expect_clean();
}

TEST(McpClient, CrashMidCallIsAClearErrorThenRestarts) {
  testing::WireLog log;
  auto c = Client::create(fake_options(log));
  ASSERT_TRUE(c->connect().ok());
  tools::Registry reg;
  ServerTools st(c, {.prefix = "fk"});
  ASSERT_TRUE(st.sync(reg).ok());
  tools::Executor ex(reg);
  pid_t first = c->pid();
  auto r = ex.run_one({"c1", "fk__crash", "{}"});
  ASSERT_TRUE(r.is_error);
  std::string msg = std::get<ir::TextPart>(r.content[0]).text;
  EXPECT_NE(msg.find("MCP server 'fake' exited with status 3 during tools/call"), std::string::npos)
      << msg;
  EXPECT_NE(msg.find("crashing on purpose"), std::string::npos) << msg;  // its stderr
  auto next = ex.run_one({"c2", "fk__echo", R"({"text":"again"})"});
  ASSERT_FALSE(next.is_error) << std::get<ir::TextPart>(next.content[0]).text;
  EXPECT_EQ(std::get<ir::TextPart>(next.content[0]).text, "echo: again");
  EXPECT_EQ(c->starts(), 2);
  EXPECT_NE(c->pid(), first);
  c->close();
  log.expect_clean();
}

TEST(McpClient, ShutdownEscalatesToSigkillForAServerIgnoringStdinAndSigterm) {
  testing::WireLog log;
  ClientOptions o;
  o.name = "stubborn";
  // Answers initialize, then ignores EOF on stdin and SIGTERM.
  o.server.argv = {"python3", "-c",
                   "import json,signal,sys,time\n"
                   "signal.signal(signal.SIGTERM, signal.SIG_IGN)\n"
                   "m=json.loads(sys.stdin.readline())\n"
                   "print(json.dumps({'jsonrpc':'2.0','id':m['id'],'result':{"
                   "'protocolVersion':'2025-11-25','capabilities':{},"
                   "'serverInfo':{'name':'s','version':'1'}}}),flush=True)\n"
                   "while True: time.sleep(1)\n"};
  o.server.grace = 200ms;
  log.attach(o);
  auto c = Client::create(o);
  ASSERT_TRUE(c->connect().ok());
  pid_t pid = c->pid();
  auto t0 = std::chrono::steady_clock::now();
  c->close();
  auto took = std::chrono::steady_clock::now() - t0;
  EXPECT_LT(took, 5s);
  EXPECT_EQ(::kill(pid, 0), -1);  // reaped: no such process
}

TEST(McpClient, MissingProgramIsAnError) {
  ClientOptions o;
  o.server.argv = {"toolwire-no-such-mcp-server"};
  auto c = Client::create(o);
  Status st = c->connect();
  ASSERT_FALSE(st.ok());
  EXPECT_NE(st.error().message.find("cannot start"), std::string::npos);
}

TEST(SplitCommand, QuotesAndEscapes) {
  auto w = split_command(R"(npx -y "@scope/pkg" 'a b' c\ d)");
  ASSERT_TRUE(w.ok());
  EXPECT_EQ(*w, (std::vector<std::string>{"npx", "-y", "@scope/pkg", "a b", "c d"}));
  EXPECT_FALSE(split_command("a 'b").ok());
  EXPECT_FALSE(split_command("   ").ok());
}

}  // namespace
}  // namespace toolwire::mcp
