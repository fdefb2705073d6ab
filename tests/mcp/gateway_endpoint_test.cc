// /mcp on the gateway: toolwire's own MCP client over Streamable HTTP (every
// frame it sends checked against the schema), and the transport's rules over
// raw HTTP: sessions, MCP-Protocol-Version, Origin, methods, gateway keys, a
// blocking tool that leaves the server threads free, cancellation on
// disconnect.
#include <gtest/gtest.h>

#include <atomic>
#include <nlohmann/json.hpp>
#include <thread>

#include "mcp_test_util.h"
#include "raw_client.h"
#include "toolwire/gateway/auth.h"
#include "toolwire/gateway/gateway.h"
#include "toolwire/gateway/routing.h"
#include "toolwire/mcp/client.h"
#include "toolwire/mcp/tool_bridge.h"
#include "toolwire/provider/scripted.h"

namespace toolwire::gateway {
namespace {

using nlohmann::json;
using testing::HttpResponse;
using testing::Ms;
using testing::RawClient;
using namespace std::chrono_literals;

// A tool that blocks its worker until released (or cancelled).
struct Gate {
  std::mutex mu;
  std::condition_variable cv;
  bool open = false;
  int entered = 0;
  std::atomic<int> cancelled{0};
  void release() {
    std::lock_guard lock(mu);
    open = true;
    cv.notify_all();
  }
  bool wait_entered(int n) {
    std::unique_lock lock(mu);
    return cv.wait_for(lock, 10s, [&] { return entered >= n; });
  }
};

std::shared_ptr<tools::Registry> test_registry(Gate& gate) {
  auto reg = std::make_shared<tools::Registry>();
  tools::ToolSpec echo;
  echo.name = "echo";
  echo.description = "Echoes its message.";
  echo.input_schema =
      R"({"type":"object","properties":{"message":{"type":"string"}},"required":["message"]})";
  echo.handler = tools::SyncHandler([](const json& a, tools::ToolContext&) {
    return tools::ToolOutput::text("echo: " + a["message"].get<std::string>());
  });
  EXPECT_TRUE(reg->add(std::move(echo)).ok());
  tools::ToolSpec block;
  block.name = "block";
  block.description = "Blocks until the test releases it.";
  block.handler = tools::SyncHandler([&gate](const json&, tools::ToolContext& ctx) {
    uint64_t hook = ctx.cancel.on_cancel([&gate] {
      std::lock_guard lock(gate.mu);
      gate.cv.notify_all();
    });
    std::unique_lock lock(gate.mu);
    ++gate.entered;
    gate.cv.notify_all();
    bool released = gate.cv.wait_for(lock, 20s, [&] { return gate.open || ctx.cancelled(); });
    lock.unlock();
    ctx.cancel.remove_on_cancel(hook);
    if (ctx.cancelled()) {
      std::lock_guard relock(gate.mu);
      ++gate.cancelled;
      gate.cv.notify_all();
      return tools::ToolOutput::error("cancelled");
    }
    return tools::ToolOutput::text(released ? "released" : "timed out");
  });
  EXPECT_TRUE(reg->add(std::move(block)).ok());
  // Reports progress (when its caller asked for it) before answering.
  tools::ToolSpec steps;
  steps.name = "steps";
  steps.description = "Reports two steps of progress.";
  steps.handler = tools::SyncHandler([](const json&, tools::ToolContext& ctx) {
    if (auto* sink = ctx.session_data<mcp::ProgressSink>())
      for (int i = 1; i <= 2; ++i)
        sink->report({{"progress", i}, {"total", 2}, {"message", "step " + std::to_string(i)}});
    return tools::ToolOutput::text("stepped");
  });
  EXPECT_TRUE(reg->add(std::move(steps)).ok());
  return reg;
}

struct Rig {
  explicit Rig(GatewayOptions o = {}, std::shared_ptr<KeyRing> keys = nullptr) {
    o.host = "127.0.0.1";
    o.port = 0;
    o.threads = 1;  // one server thread: a blocking tool on it would stall everything
    o.log = [](std::string_view) {};
    auto script = provider::parse_script(R"({"rules":[],"fallback":"hi"})");
    auto router = std::make_shared<PatternRouter>();
    auto* p = router->own(std::make_unique<provider::ScriptedProvider>(std::move(*script)));
    router->add_route({.pattern = "*", .aliases = {}, .targets = {{p, "", "scripted"}}});
    gw = std::make_unique<Gateway>(o, router);
    if (keys) gw->set_keys(keys);
    gw->set_mcp_tools(test_registry(gate));
    Status st = gw->start();
    EXPECT_TRUE(st.ok()) << st.error().to_string();
  }
  ~Rig() {
    gate.release();
    gw->stop();
    gw->wait();
  }
  std::string url() const { return "http://127.0.0.1:" + std::to_string(gw->port()) + "/mcp"; }

  HttpResponse exchange(const std::string& request) {
    RawClient c(gw->port());
    EXPECT_TRUE(c.send(request));
    auto r = c.read_response(Ms(10000));
    EXPECT_TRUE(r.has_value());
    return r.value_or(HttpResponse{});
  }
  HttpResponse post(const std::string& body, const std::string& headers = "") {
    return exchange(testing::http_post("/mcp", body, headers));
  }
  std::string initialize() {
    HttpResponse r = post(
        R"({"jsonrpc":"2.0","id":1,"method":"initialize","params":{"protocolVersion":"2025-06-18",)"
        R"("capabilities":{},"clientInfo":{"name":"raw","version":"1"}}})");
    EXPECT_EQ(r.status, 200) << r.body;
    EXPECT_EQ(json::parse(r.body)["result"]["protocolVersion"], "2025-06-18");
    EXPECT_EQ(schema.check_response(json::parse(r.body), "InitializeResult"), "");
    return r.header("mcp-session-id");
  }

  Gate gate;
  std::unique_ptr<Gateway> gw;
  testing::McpSchema schema;  // every answer checked against the MCP schema
};

TEST(McpGatewayEndpoint, ToolwireClientOverStreamableHttp) {
  Rig rig;
  testing::WireLog log;
  mcp::ClientOptions o;
  o.name = "gw";
  o.http.url = rig.url();
  o.request_timeout = 10s;
  log.attach(o);
  auto c = mcp::Client::create(o);
  ASSERT_TRUE(c->connect().ok());
  EXPECT_EQ(c->server_info().server_info["name"], "toolwire-gateway");
  auto tools = c->list_tools();
  ASSERT_TRUE(tools.ok()) << tools.error().to_string();
  ASSERT_EQ(tools->size(), 3u);
  EXPECT_EQ((*tools)[0].name, "echo");
  auto r = c->call_tool("echo", {{"message", "over http"}});
  ASSERT_TRUE(r.ok()) << r.error().to_string();
  EXPECT_FALSE(r->is_error);
  EXPECT_EQ(testing::all_text(r->content), "echo: over http\n");
  // Bad arguments: an isError result, not a protocol error.
  auto bad = c->call_tool("echo", {{"message", 3}});
  ASSERT_TRUE(bad.ok());
  EXPECT_TRUE(bad->is_error);
  // An unknown tool: a JSON-RPC error.
  auto unknown = c->call_tool("nope", json::object());
  EXPECT_FALSE(unknown.ok());
  EXPECT_TRUE(c->ping().ok());
  c->close();
  log.expect_clean();
}

TEST(McpGatewayEndpoint, SessionsAndHeaders) {
  Rig rig;
  std::string sid = rig.initialize();
  ASSERT_EQ(sid.size(), 32u);
  const std::string list = R"({"jsonrpc":"2.0","id":2,"method":"tools/list"})";
  // No session: 400; an unknown one: 404.
  EXPECT_EQ(rig.post(list).status, 400);
  EXPECT_EQ(rig.post(list, "mcp-session-id: 0123\r\n").status, 404);
  std::string h = "mcp-session-id: " + sid + "\r\n";
  HttpResponse ok = rig.post(list, h + "mcp-protocol-version: 2025-06-18\r\n");
  ASSERT_EQ(ok.status, 200) << ok.body;
  EXPECT_EQ(json::parse(ok.body)["result"]["tools"].size(), 3u);
  EXPECT_EQ(rig.schema.check_response(json::parse(ok.body), "ListToolsResult"), "");
  HttpResponse call =
      rig.post(R"({"jsonrpc":"2.0","id":"c","method":"tools/call","params":{"name":"echo",)"
               R"("arguments":{"message":"x"}}})",
               h);
  ASSERT_EQ(call.status, 200);
  EXPECT_EQ(rig.schema.check_response(json::parse(call.body), "CallToolResult"), "");
  EXPECT_EQ(ok.header("content-type"), "application/json");
  // A version toolwire does not speak: 400. One it speaks but the session did
  // not agree on is let through (the spec refuses only invalid or unsupported
  // ones; the conformance suite sends 2025-03-26 in a 2025-11-25 session).
  EXPECT_EQ(rig.post(list, h + "mcp-protocol-version: 1999-01-01\r\n").status, 400);
  EXPECT_EQ(rig.post(list, h + "mcp-protocol-version: 2025-11-25\r\n").status, 200);
  // A notification: 202, no body.
  HttpResponse n = rig.post(R"({"jsonrpc":"2.0","method":"notifications/initialized"})", h);
  EXPECT_EQ(n.status, 202);
  EXPECT_TRUE(n.body.empty());
  // Malformed JSON and batches: 400 with a JSON-RPC error; the session stays.
  HttpResponse bad = rig.post("{not json", h);
  EXPECT_EQ(bad.status, 400);
  EXPECT_EQ(json::parse(bad.body)["error"]["code"], -32700);
  EXPECT_EQ(rig.schema.check_response(json::parse(bad.body), ""), "");
  EXPECT_EQ(rig.post(R"([{"jsonrpc":"2.0","id":3,"method":"ping"}])", h).status, 400);
  // An unknown method is a JSON-RPC error in a 200.
  HttpResponse nm = rig.post(R"({"jsonrpc":"2.0","id":4,"method":"resources/list"})", h);
  EXPECT_EQ(nm.status, 200);
  EXPECT_EQ(json::parse(nm.body)["error"]["code"], -32601);
  EXPECT_EQ(rig.schema.check_response(json::parse(nm.body), ""), "");
  // GET (the server's stream) must accept SSE; PUT is not offered.
  HttpResponse get = rig.exchange(testing::http_get("/mcp", h));
  EXPECT_EQ(get.status, 406);
  HttpResponse put =
      rig.exchange("PUT /mcp HTTP/1.1\r\nhost: x\r\ncontent-length: 0\r\n" + h + "\r\n");
  EXPECT_EQ(put.status, 405);
  EXPECT_EQ(put.header("allow"), "POST, GET, DELETE");
  // DELETE ends the session; it is gone after.
  HttpResponse del = rig.exchange("DELETE /mcp HTTP/1.1\r\nhost: x\r\n" + h + "\r\n");
  EXPECT_EQ(del.status, 200);
  EXPECT_EQ(rig.post(list, h).status, 404);
  // initialize with a session id is refused.
  EXPECT_EQ(rig.post(R"({"jsonrpc":"2.0","id":1,"method":"initialize","params":{}})", h).status,
            400);
}

TEST(McpGatewayEndpoint, OriginAllowList) {
  Rig local;
  std::string body = R"({"jsonrpc":"2.0","id":1,"method":"ping"})";
  // Default: local origins only.
  EXPECT_EQ(local.post(body, "origin: https://evil.example\r\n").status, 403);
  EXPECT_EQ(local.post(body, "origin: http://localhost.evil.example\r\n").status, 403);
  EXPECT_NE(local.post(body, "origin: http://localhost:3000\r\n").status, 403);
  EXPECT_NE(local.post(body, "origin: http://127.0.0.1\r\n").status, 403);

  GatewayOptions o;
  o.mcp.allowed_origins = {"https://app.example"};
  Rig listed(o);
  EXPECT_EQ(listed.post(body, "origin: http://localhost:3000\r\n").status, 403);
  HttpResponse r = listed.post(
      R"({"jsonrpc":"2.0","id":1,"method":"initialize","params":{"protocolVersion":"2025-11-25"}})",
      "origin: https://app.example\r\n");
  EXPECT_EQ(r.status, 200) << r.body;
}

TEST(McpGatewayEndpoint, GatewayKeyRequired) {
  auto keys = std::make_shared<KeyRing>();
  ASSERT_TRUE(keys->add({.name = "k", .sha256_hex = sha256_hex("sk-test")}).ok());
  Rig rig({}, keys);
  std::string init =
      R"({"jsonrpc":"2.0","id":1,"method":"initialize","params":{"protocolVersion":"2025-06-18"}})";
  EXPECT_EQ(rig.post(init).status, 401);
  EXPECT_EQ(rig.post(init, "authorization: Bearer wrong\r\n").status, 401);
  EXPECT_EQ(rig.post(init, "authorization: Bearer sk-test\r\n").status, 200);

  mcp::ClientOptions o;
  o.http.url = rig.url();
  o.http.headers.add("Authorization", "Bearer sk-test");
  auto c = mcp::Client::create(o);
  ASSERT_TRUE(c->connect().ok());
  auto r = c->call_tool("echo", {{"message", "keyed"}});
  ASSERT_TRUE(r.ok());
  EXPECT_EQ(testing::all_text(r->content), "echo: keyed\n");
  c->close();
}

// A tool that blocks does not hold the gateway's only server thread: other
// requests are answered meanwhile; its answer comes when it returns. A client
// that disconnects cancels its call.
TEST(McpGatewayEndpoint, BlockingToolLeavesServerThreadsFree) {
  Rig rig;
  std::string sid = rig.initialize();
  std::string h = "mcp-session-id: " + sid + "\r\n";
  RawClient slow(rig.gw->port());
  ASSERT_TRUE(slow.send(testing::http_post(
      "/mcp", R"({"jsonrpc":"2.0","id":"b1","method":"tools/call","params":{"name":"block"}})",
      h)));
  ASSERT_TRUE(rig.gate.wait_entered(1));
  HttpResponse health = rig.exchange(testing::http_get("/health"));
  EXPECT_EQ(health.status, 200);
  // The same id again while the first is in flight: refused.
  HttpResponse dup =
      rig.post(R"({"jsonrpc":"2.0","id":"b1","method":"tools/call","params":{"name":"echo",)"
               R"("arguments":{"message":"dup"}}})",
               h);
  EXPECT_EQ(dup.status, 400);
  EXPECT_NE(dup.body.find("already in use"), std::string::npos) << dup.body;
  HttpResponse echo =
      rig.post(R"({"jsonrpc":"2.0","id":5,"method":"tools/call","params":{"name":"echo",)"
               R"("arguments":{"message":"meanwhile"}}})",
               h);
  ASSERT_EQ(echo.status, 200);
  EXPECT_EQ(json::parse(echo.body)["result"]["content"][0]["text"], "echo: meanwhile");
  rig.gate.release();
  auto r = slow.read_response(Ms(10000));
  ASSERT_TRUE(r.has_value());
  json j = json::parse(r->body);
  EXPECT_EQ(j["id"], "b1");
  EXPECT_EQ(j["result"]["content"][0]["text"], "released");

  // Disconnect before the answer: the call's token is cancelled.
  {
    std::lock_guard lock(rig.gate.mu);
    rig.gate.open = false;
  }
  {
    RawClient gone(rig.gw->port());
    ASSERT_TRUE(gone.send(testing::http_post(
        "/mcp", R"({"jsonrpc":"2.0","id":"b2","method":"tools/call","params":{"name":"block"}})",
        h)));
    ASSERT_TRUE(rig.gate.wait_entered(2));
  }
  std::unique_lock lock(rig.gate.mu);
  EXPECT_TRUE(rig.gate.cv.wait_for(lock, 10s, [&] { return rig.gate.cancelled.load() == 1; }));
}

// Progress during a call: a client that accepts SSE gets the answer as an SSE
// stream (progress events, then the response); one that does not gets JSON.
// Tools replaced while serving reach open sessions: notifications/tools/
// list_changed on the GET stream, and the new list.
TEST(McpGatewayEndpoint, ProgressOverSseAndListChangedOnGet) {
  Rig rig;
  testing::WireLog log;
  testing::Waiter changed;
  mcp::ClientOptions o;
  o.http.url = rig.url();
  o.request_timeout = 10s;
  log.attach(o);
  o.on_tools_changed = [&] { changed.notify(); };
  auto c = mcp::Client::create(o);
  ASSERT_TRUE(c->connect().ok());
  EXPECT_EQ(c->server_info().capabilities["tools"]["listChanged"], true);
  std::mutex mu;
  std::vector<std::string> steps;
  mcp::RequestOptions ro;
  ro.on_progress = [&](const json& p) {
    std::lock_guard lock(mu);
    steps.push_back(p.value("message", ""));
  };
  auto r = c->call_tool("steps", json::object(), ro);
  ASSERT_TRUE(r.ok()) << r.error().to_string();
  EXPECT_EQ(testing::all_text(r->content), "stepped\n");
  {
    std::lock_guard lock(mu);
    EXPECT_EQ(steps, (std::vector<std::string>{"step 1", "step 2"}));
  }

  // Raw: the SSE answer's events, each message valid.
  std::string sid = rig.initialize();
  std::string h = "mcp-session-id: " + sid + "\r\n";
  const std::string call =
      R"({"jsonrpc":"2.0","id":7,"method":"tools/call","params":{"name":"steps",)"
      R"("_meta":{"progressToken":"p7"}}})";
  HttpResponse sse = rig.post(call, h + "accept: application/json, text/event-stream\r\n");
  ASSERT_EQ(sse.status, 200);
  EXPECT_EQ(sse.header("content-type"), "text/event-stream");
  std::vector<json> events;
  for (size_t at = 0; (at = sse.body.find("data: ", at)) != std::string::npos;) {
    size_t end = sse.body.find('\n', at);
    events.push_back(json::parse(sse.body.substr(at + 6, end - at - 6)));
    at = end;
  }
  ASSERT_EQ(events.size(), 3u) << sse.body;
  EXPECT_EQ(events[0]["method"], "notifications/progress");
  EXPECT_EQ(events[0]["params"]["progressToken"], "p7");
  EXPECT_EQ(events[1]["params"]["progress"], 2);
  for (int i = 0; i < 2; ++i) EXPECT_EQ(rig.schema.check(events[i], "ProgressNotification"), "");
  EXPECT_EQ(rig.schema.check_response(events[2], "CallToolResult"), "");
  EXPECT_EQ(events[2]["id"], 7);
  // Without text/event-stream in Accept: one JSON answer, progress dropped.
  HttpResponse plain = rig.post(call, h + "accept: application/json\r\n");
  ASSERT_EQ(plain.status, 200);
  EXPECT_EQ(plain.header("content-type"), "application/json");
  EXPECT_EQ(json::parse(plain.body)["result"]["content"][0]["text"], "stepped");

  // A second GET stream for a session that has one: 409.
  RawClient get(rig.gw->port());
  ASSERT_TRUE(get.send(testing::http_get("/mcp", h + "accept: text/event-stream\r\n")));
  ASSERT_TRUE(get.read_until_contains("\r\n\r\n"));
  EXPECT_NE(get.buffer().find(" 200 "), std::string::npos) << get.buffer();
  HttpResponse again = rig.exchange(testing::http_get("/mcp", h + "accept: text/event-stream\r\n"));
  EXPECT_EQ(again.status, 409);

  // New tools while serving: both sessions hear of it on their GET stream.
  auto reg = test_registry(rig.gate);
  tools::ToolSpec fresh;
  fresh.name = "fresh";
  fresh.handler = tools::SyncHandler(
      [](const json&, tools::ToolContext&) { return tools::ToolOutput::text("new"); });
  ASSERT_TRUE(reg->add(std::move(fresh)).ok());
  rig.gw->set_mcp_tools(reg);
  EXPECT_TRUE(get.read_until_contains("notifications/tools/list_changed"));
  ASSERT_TRUE(changed.wait([&] {
    for (const auto& t : c->tools())
      if (t.name == "fresh") return true;
    return false;
  }));
  auto f = c->call_tool("fresh", json::object());
  ASSERT_TRUE(f.ok());
  EXPECT_EQ(testing::all_text(f->content), "new\n");
  c->close();
  log.expect_clean();
}

// 2025-03-26 still had JSON-RPC batches: a session that negotiated it gets one
// array back (requests in order, then errors for invalid entries).
TEST(McpGatewayEndpoint, BatchesIn2025_03_26Session) {
  Rig rig;
  HttpResponse init = rig.post(
      R"({"jsonrpc":"2.0","id":1,"method":"initialize","params":{"protocolVersion":"2025-03-26",)"
      R"("capabilities":{},"clientInfo":{"name":"raw","version":"1"}}})");
  ASSERT_EQ(init.status, 200);
  EXPECT_EQ(json::parse(init.body)["result"]["protocolVersion"], "2025-03-26");
  std::string h = "mcp-session-id: " + init.header("mcp-session-id") + "\r\n";
  HttpResponse b = rig.post(
      R"([{"jsonrpc":"2.0","id":"a","method":"tools/call","params":{"name":"echo",)"
      R"("arguments":{"message":"one"}}},{"jsonrpc":"2.0","method":"notifications/initialized"},)"
      R"({"jsonrpc":"2.0","id":"b","method":"ping"},{"jsonrpc":"2.0","id":9},)"
      R"({"jsonrpc":"2.0","id":"c","method":"nope"}])",
      h);
  ASSERT_EQ(b.status, 200) << b.body;
  json arr = json::parse(b.body);
  ASSERT_TRUE(arr.is_array());
  ASSERT_EQ(arr.size(), 4u) << b.body;
  EXPECT_EQ(arr[0]["id"], "a");
  EXPECT_EQ(arr[0]["result"]["content"][0]["text"], "echo: one");
  EXPECT_EQ(arr[1]["id"], "b");
  EXPECT_EQ(arr[2]["error"]["code"], -32601);
  EXPECT_EQ(arr[3]["id"], 9);
  EXPECT_EQ(arr[3]["error"]["code"], -32600);
  for (const auto& e : arr) EXPECT_EQ(rig.schema.check_response(e, ""), "");
  // Only notifications: 202.
  EXPECT_EQ(rig.post(R"([{"jsonrpc":"2.0","method":"notifications/initialized"}])", h).status, 202);
  // The session goes on.
  HttpResponse ping = rig.post(R"({"jsonrpc":"2.0","id":"p","method":"ping"})", h);
  EXPECT_EQ(ping.status, 200);
}

// A body over the gateway's limit is refused (413) and the session goes on.
TEST(McpGatewayEndpoint, OversizedMessageRefusedSessionKept) {
  GatewayOptions o;
  o.limits.max_body_bytes = 4096;
  Rig rig(o);
  std::string sid = rig.initialize();
  std::string h = "mcp-session-id: " + sid + "\r\n";
  HttpResponse big = rig.post(R"({"jsonrpc":"2.0","id":"big","method":"ping","params":{"x":")" +
                                  std::string(8000, 'x') + R"("}})",
                              h);
  EXPECT_EQ(big.status, 413);
  HttpResponse ping = rig.post(R"({"jsonrpc":"2.0","id":"p","method":"ping"})", h);
  EXPECT_EQ(ping.status, 200);
  EXPECT_EQ(json::parse(ping.body)["id"], "p");
}

}  // namespace
}  // namespace toolwire::gateway
