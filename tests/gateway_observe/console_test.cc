// The console (GET /ui) and the endpoints it reads, on a gateway built from
// YAML in front of a mock upstream: the embedded files with their content
// types, CSP, caching and 404s; the admin key (the page loads without one,
// its data needs one; another key reads its own traces only and no
// sessions); GET /v1/traces/stats's buckets, percentiles, tokens and bad
// input; GET /v1/conductor/sessions with a device's pending call.
#include <gtest/gtest.h>
#include <sqlite3.h>

#include <boost/asio/connect.hpp>
#include <boost/asio/io_context.hpp>
#include <boost/beast/core/buffers_to_string.hpp>
#include <boost/beast/core/flat_buffer.hpp>
#include <boost/beast/core/tcp_stream.hpp>
#include <boost/beast/websocket.hpp>
#include <filesystem>

#include "gateway_rig.h"
#include "mock_upstream.h"
#include "toolwire/gateway/auth.h"
#include "toolwire/gateway/config.h"
#include "toolwire/telemetry/trace_store.h"
#include "toolwire/transport/http_client.h"

namespace toolwire::testing {
namespace {

namespace fs = std::filesystem;
namespace beast = boost::beast;
namespace websocket = boost::beast::websocket;
using nlohmann::json;

constexpr const char* kAdmin = "tw-admin-key-123456";
constexpr const char* kApp = "tw-app-key-654321";
const std::string kAdminAuth = "Authorization: Bearer " + std::string(kAdmin) + "\r\n";
const std::string kAppAuth = "Authorization: Bearer " + std::string(kApp) + "\r\n";

const std::string kAsk = R"({"model":"gpt-t","messages":[{"role":"user","content":"hi"}]})";

std::vector<ir::StreamEvent> answer(int in, int out) {
  return {ir::MessageStart{"m", "up-model", 1}, ir::TextDelta{"hello"},
          ir::UsageEvent{ir::Usage{in, out, {}, {}}},
          ir::Finish{ir::FinishReason{ir::FinishReason::Kind::stop, "stop"}}};
}

std::vector<ir::StreamEvent> call_battery() {
  return {ir::MessageStart{"m1", "up-model", 1},
          ir::ToolCallStart{0, "call_b1", "get_battery"},
          ir::ToolCallDelta{0, "{}"},
          ir::ToolCallEnd{0},
          ir::UsageEvent{ir::Usage{7, 3, {}, {}}},
          ir::Finish{ir::FinishReason{ir::FinishReason::Kind::tool_calls, "tool_calls"}}};
}

// A conductor device: a WebSocket client whose every wait is bounded.
class Device {
 public:
  Device(uint16_t port, const std::string& key) : ws_(ioc_) {
    auto& tcp = beast::get_lowest_layer(ws_);
    tcp.expires_after(std::chrono::seconds(5));
    tcp.connect({boost::asio::ip::make_address("127.0.0.1"), port});
    ws_.set_option(websocket::stream_base::decorator([key](websocket::request_type& r) {
      r.set(beast::http::field::authorization, "Bearer " + key);
    }));
    ws_.handshake("127.0.0.1", "/v1/conductor");
  }
  void send(const json& frame) { ws_.write(boost::asio::buffer(frame.dump())); }
  // The next frame of `type` (others skipped); null after 5 s.
  json next(std::string_view type) {
    for (int i = 0; i < 200; ++i) {
      beast::flat_buffer b;
      beast::error_code ec = boost::asio::error::timed_out;
      beast::get_lowest_layer(ws_).expires_after(std::chrono::seconds(5));
      ws_.async_read(b, [&](beast::error_code e, size_t) { ec = e; });
      ioc_.restart();
      ioc_.run();
      if (ec) return nullptr;
      json f = json::parse(beast::buffers_to_string(b.data()), nullptr, false);
      if (f.is_object() && f.value("type", "") == type) return f;
    }
    return nullptr;
  }

 private:
  boost::asio::io_context ioc_;
  websocket::stream<beast::tcp_stream> ws_;
};

class Console : public ::testing::Test {
 protected:
  void SetUp() override {
    dir_ = fs::temp_directory_path() / ("tw-console-" + std::to_string(::getpid()));
    fs::remove_all(dir_);
  }
  void TearDown() override {
    if (gateway_) {
      gateway_->stop();
      gateway_->wait();
    }
    gateway_.reset();
    built_ = {};
    fs::remove_all(dir_);
  }

  void start(bool keys) {
    std::string yaml =
        "telemetry:\n  traces: true\n  data_dir: " + (dir_ / "data").string() +
        "\nupstreams:\n  up:\n    profile: openai\n    base_url: " + upstream_.url("/v1") +
        "\n    max_attempts: 1\nroutes:\n  - model: '*'\n    upstreams: [up]\n";
    if (keys)
      yaml +=
          "keys:\n  - {name: ops, admin: true, sha256: \"sha256:" + gateway::sha256_hex(kAdmin) +
          "\"}\n  - {name: app, sha256: \"sha256:" + gateway::sha256_hex(kApp) + "\"}\n";
    auto cfg = gateway::load_config_string(yaml, "t.yaml");
    ASSERT_TRUE(cfg.ok()) << cfg.error().to_string();
    auto b = gateway::build_gateway(*cfg, client_);
    ASSERT_TRUE(b.ok()) << b.error().to_string();
    built_ = std::move(*b);
    ASSERT_TRUE(built_.traces) << built_.traces_warning;
    gateway::GatewayOptions o = small_options();
    o.log = [](std::string_view) {};
    gateway_ = std::make_unique<gateway::Gateway>(o, built_.router);
    gateway_->set_keys(built_.keys);
    gateway_->set_traces(built_.traces);
    ASSERT_TRUE(gateway_->start().ok());
  }

  HttpResponse post(const std::string& body, const std::string& headers = "") {
    RawClient c(gateway_->port());
    EXPECT_TRUE(c.send(http_post("/v1/chat/completions", body, headers)));
    auto r = c.read_response();
    EXPECT_TRUE(r.has_value());
    return r.value_or(HttpResponse{});
  }
  HttpResponse request(const std::string& method, const std::string& target,
                       const std::string& headers = "") {
    if (built_.traces) built_.traces->flush();  // written off the request path
    RawClient c(gateway_->port());
    EXPECT_TRUE(c.send(method + " " + target + " HTTP/1.1\r\nHost: x\r\n" + headers + "\r\n"));
    auto r = c.read_response();
    EXPECT_TRUE(r.has_value());
    return r.value_or(HttpResponse{});
  }
  HttpResponse get(const std::string& target, const std::string& headers = "") {
    return request("GET", target, headers);
  }

  fs::path dir_;
  MockHttpServer upstream_;
  Upstream wire_{"openai_chat"};
  transport::HttpClient client_;
  gateway::BuiltGateway built_;
  std::unique_ptr<gateway::Gateway> gateway_;
};

TEST_F(Console, PageAndFilesAreServedWithTheirHeaders) {
  start(false);
  for (const std::string path : {"/ui", "/ui/", "/ui/index.html"}) {
    auto r = get(path);
    ASSERT_EQ(r.status, 200) << path << r.body;
    EXPECT_EQ(r.header("content-type"), "text/html; charset=utf-8");
    EXPECT_NE(r.body.find(R"(<script src="/ui/console.js" defer></script>)"), std::string::npos);
    // No inline script anywhere: the CSP allows none.
    EXPECT_EQ(r.body.find("<script>"), std::string::npos);
    std::string csp = r.header("content-security-policy");
    EXPECT_NE(csp.find("default-src 'none'"), std::string::npos) << csp;
    EXPECT_NE(csp.find("script-src 'self'"), std::string::npos) << csp;
    EXPECT_NE(csp.find("frame-ancestors 'none'"), std::string::npos) << csp;
    EXPECT_EQ(csp.find("unsafe"), std::string::npos) << csp;
    EXPECT_EQ(r.header("x-content-type-options"), "nosniff");
    EXPECT_EQ(r.header("cache-control"), "no-cache");
    EXPECT_EQ(r.header("etag").size(), 22u) << r.header("etag");
  }
  auto js = get("/ui/console.js");
  ASSERT_EQ(js.status, 200);
  EXPECT_EQ(js.header("content-type"), "text/javascript; charset=utf-8");
  EXPECT_NE(js.body.find("/v1/traces/stats"), std::string::npos);
  auto css = get("/ui/console.css");
  ASSERT_EQ(css.status, 200);
  EXPECT_EQ(css.header("content-type"), "text/css; charset=utf-8");
  EXPECT_NE(js.header("etag"), css.header("etag"));
  // Revalidation: the same ETag is a 304 with no body.
  auto again = get("/ui/console.js", "If-None-Match: " + js.header("etag") + "\r\n");
  EXPECT_EQ(again.status, 304);
  EXPECT_TRUE(again.body.empty());
  EXPECT_EQ(get("/ui/console.js", "If-None-Match: \"other\"\r\n").status, 200);
  for (const std::string path :
       {"/ui/nope.js", "/ui/../gateway.yaml", "/ui/console.js/x", "/uix", "/ui/%2e%2e"})
    EXPECT_EQ(get(path).status, 404) << path;
  auto post_ui = request("POST", "/ui");
  EXPECT_EQ(post_ui.status, 405);
  EXPECT_EQ(post_ui.header("allow"), "GET");
}

TEST_F(Console, AdminKeyReadsEverythingOtherKeysTheirOwn) {
  start(true);
  upstream_.enqueue(wire_.whole(answer(5, 2)));
  ASSERT_EQ(post(kAsk, kAppAuth).status, 200);
  // The page needs no key (it holds no data) ...
  EXPECT_EQ(get("/ui").status, 200);
  EXPECT_EQ(get("/ui/console.js").status, 200);
  // ... its data does.
  for (const std::string path : {"/v1/traces", "/v1/traces/stats", "/v1/conductor/sessions"}) {
    EXPECT_EQ(get(path).status, 401) << path;
    EXPECT_EQ(get(path, "Authorization: Bearer wrong-key-000\r\n").status, 401) << path;
    EXPECT_EQ(get(path, kAdminAuth).status, 200) << path;
  }
  // The admin key sees the app's trace, by list, filter and id.
  json all = json::parse(get("/v1/traces", kAdminAuth).body);
  ASSERT_EQ(all["traces"].size(), 1u);
  EXPECT_EQ(all["traces"][0]["key"], "app");
  EXPECT_EQ(all["traces"][0]["input_tokens"], 5);
  EXPECT_EQ(all["traces"][0]["output_tokens"], 2);
  EXPECT_EQ(json::parse(get("/v1/traces?key=app", kAdminAuth).body)["traces"].size(), 1u);
  const std::string id = all["traces"][0]["trace_id"];
  EXPECT_EQ(get("/v1/traces/" + id, kAdminAuth).status, 200);
  EXPECT_EQ(json::parse(get("/v1/traces/stats", kAdminAuth).body)["totals"]["requests"], 1);
  // The app key: its own traces and stats, no sessions, no other key's stats.
  EXPECT_EQ(json::parse(get("/v1/traces", kAppAuth).body)["traces"].size(), 1u);
  EXPECT_EQ(json::parse(get("/v1/traces/stats", kAppAuth).body)["totals"]["requests"], 1);
  EXPECT_EQ(get("/v1/traces/stats?key=ops", kAppAuth).status, 403);
  auto sessions = get("/v1/conductor/sessions", kAppAuth);
  EXPECT_EQ(sessions.status, 403);
  EXPECT_NE(sessions.body.find("not an admin key"), std::string::npos) << sessions.body;
  // The admin's own traces list had only the app's: its reads made none.
  EXPECT_EQ(json::parse(get("/v1/traces?key=ops", kAdminAuth).body)["traces"].size(), 0u);
}

TEST_F(Console, StatsCountRequestsErrorsTokensAndLatency) {
  start(false);
  upstream_.enqueue(wire_.whole(answer(10, 4)));
  ASSERT_EQ(post(kAsk).status, 200);
  upstream_.enqueue(wire_.whole(answer(20, 6)));
  ASSERT_EQ(post(kAsk).status, 200);
  upstream_.enqueue(
      MockResponse::json(500, R"({"error":{"message":"boom","type":"server_error"}})"));
  EXPECT_GE(post(kAsk).status, 500);
  auto r = get("/v1/traces/stats?window=600&bucket=60");
  ASSERT_EQ(r.status, 200) << r.body;
  EXPECT_EQ(r.header("content-type"), "application/json");
  json s = json::parse(r.body);
  EXPECT_EQ(s["window_s"], 600);
  EXPECT_EQ(s["bucket_s"], 60);
  ASSERT_EQ(s["buckets"].size(), 10u);
  const json& t = s["totals"];
  EXPECT_EQ(t["requests"], 3);
  EXPECT_EQ(t["errors"], 1);
  EXPECT_EQ(t["input_tokens"], 30);
  EXPECT_EQ(t["output_tokens"], 10);
  ASSERT_TRUE(t["p50_ms"].is_number());
  EXPECT_LE(t["p50_ms"].get<double>(), t["p95_ms"].get<double>());
  EXPECT_LE(t["p95_ms"].get<double>(), t["p99_ms"].get<double>());
  // Every request is in one of the buckets, which tile the window oldest first.
  int64_t sum = 0;
  for (size_t i = 0; i < s["buckets"].size(); ++i) {
    const json& b = s["buckets"][i];
    sum += b["requests"].get<int64_t>();
    EXPECT_EQ(b["start_us"].get<int64_t>(), s["start_us"].get<int64_t>() + int64_t(i) * 60'000'000);
    if (b["requests"] == 0) {
      EXPECT_TRUE(b["p50_ms"].is_null());
    }
  }
  EXPECT_EQ(sum, 3);
  EXPECT_EQ(s["end_us"].get<int64_t>() - s["start_us"].get<int64_t>(), 600'000'000);
  // Bad input: a 400 naming the parameter.
  for (const std::string q : {"window=10", "window=x", "bucket=0", "window=60&bucket=120",
                              "window=604800&bucket=60", "limit=3", "bucket=60&bucket=60"}) {
    auto bad = get("/v1/traces/stats?" + q);
    EXPECT_EQ(bad.status, 400) << q << ": " << bad.body;
  }
}

// The store's buckets exactly, with the window's end pinned.
TEST(ConsoleStats, BucketsAndNearestRankPercentiles) {
  fs::path dir = fs::temp_directory_path() / ("tw-console-stats-" + std::to_string(::getpid()));
  fs::remove_all(dir);
  {
    auto store = telemetry::TraceStore::open({.path = (dir / "t.db").string()});
    ASSERT_TRUE(store.ok()) << store.error().to_string();
    const int64_t end = 1'800'000'000'000'000;  // a whole minute
    // Bucket 2 (the last minute): durations 1..100 ms; bucket 0: one error.
    for (int i = 1; i <= 100; ++i) {
      auto t = telemetry::Trace::begin("request", "/v1/chat/completions");
      t.start_us = end - 30'000'000 + i;
      t.trace_id = telemetry::random_hex_id(16);
      auto& s = t.add_span("chat m", "model_call");
      s.set("gen_ai.usage.input_tokens", int64_t{2});
      s.set("gen_ai.usage.output_tokens", int64_t{1});
      t.end(200);
      t.duration_us = i * 1000;
      ASSERT_TRUE((*store)->submit(std::move(t)));
    }
    auto bad = telemetry::Trace::begin("request", "/v1/messages");
    bad.start_us = end - 170'000'000;
    bad.trace_id = telemetry::random_hex_id(16);
    bad.end(502);
    bad.duration_us = 7000;
    ASSERT_TRUE((*store)->submit(std::move(bad)));
    auto old = telemetry::Trace::begin("request", "/v1/messages");  // before the window
    old.start_us = end - 181'000'000;
    old.trace_id = telemetry::random_hex_id(16);
    old.end(200);
    ASSERT_TRUE((*store)->submit(std::move(old)));
    (*store)->flush();
    telemetry::StatsQuery q;
    q.window_s = 180;
    q.bucket_s = 60;
    q.now_us = end - 1;  // in the last minute before `end`
    auto body = (*store)->stats(q);
    ASSERT_TRUE(body.ok()) << body.error().to_string();
    json s = json::parse(*body);
    ASSERT_EQ(s["buckets"].size(), 3u);
    const json& b0 = s["buckets"][0];
    EXPECT_EQ(b0["requests"], 1);
    EXPECT_EQ(b0["errors"], 1);
    EXPECT_EQ(b0["p99_ms"], 7.0);
    EXPECT_EQ(s["buckets"][1]["requests"], 0);
    EXPECT_TRUE(s["buckets"][1]["p95_ms"].is_null());
    const json& b2 = s["buckets"][2];
    EXPECT_EQ(b2["requests"], 100);
    EXPECT_EQ(b2["errors"], 0);
    EXPECT_EQ(b2["p50_ms"], 50.0);
    EXPECT_EQ(b2["p95_ms"], 95.0);
    EXPECT_EQ(b2["p99_ms"], 99.0);
    EXPECT_EQ(b2["input_tokens"], 200);
    EXPECT_EQ(b2["output_tokens"], 100);
    EXPECT_EQ(s["totals"]["requests"], 101);
    // One key's only.
    q.key = "nobody";
    EXPECT_EQ(json::parse(*(*store)->stats(q))["totals"]["requests"], 0);
  }
  fs::remove_all(dir);
}

// A traces.db written before the token columns: opened, they are added, its
// rows count 0 tokens, new rows theirs.
TEST(ConsoleStats, AnOlderTraceFileGetsTheTokenColumns) {
  fs::path dir = fs::temp_directory_path() / ("tw-console-old-" + std::to_string(::getpid()));
  fs::remove_all(dir);
  fs::create_directories(dir);
  const std::string path = (dir / "traces.db").string();
  {
    sqlite3* db = nullptr;
    ASSERT_EQ(sqlite3_open(path.c_str(), &db), SQLITE_OK);
    const std::string id(32, 'a');
    const std::string sql =
        "CREATE TABLE traces(id TEXT PRIMARY KEY, start_us INTEGER, kind TEXT, name TEXT, "
        "key_name TEXT, model TEXT, status INTEGER, error INTEGER, duration_us INTEGER, spans "
        "INTEGER, bytes INTEGER, json TEXT); INSERT INTO traces VALUES('" +
        id + "', " + std::to_string(telemetry::unix_micros()) +
        ", 'request', '/v1/messages', '', 'old', 200, 0, 1000, 0, 2, '{}');";
    EXPECT_EQ(sqlite3_exec(db, sql.c_str(), nullptr, nullptr, nullptr), SQLITE_OK);
    sqlite3_close(db);
  }
  {
    auto store = telemetry::TraceStore::open({.path = path});
    ASSERT_TRUE(store.ok()) << store.error().to_string();
    auto t = telemetry::Trace::begin("request", "/v1/chat/completions");
    t.model = "new";
    t.add_span("chat new", "model_call").set("gen_ai.usage.input_tokens", int64_t{4});
    t.end(200);
    ASSERT_TRUE((*store)->submit(std::move(t)));
    (*store)->flush();
    json list = json::parse(*(*store)->list({}));
    ASSERT_EQ(list["traces"].size(), 2u) << list.dump();
    EXPECT_EQ(list["traces"][0]["model"], "new");
    EXPECT_EQ(list["traces"][0]["input_tokens"], 4);
    EXPECT_EQ(list["traces"][1]["model"], "old");
    EXPECT_EQ(list["traces"][1]["input_tokens"], 0);
    json s = json::parse(*(*store)->stats({}));
    EXPECT_EQ(s["totals"]["requests"], 2);
    EXPECT_EQ(s["totals"]["input_tokens"], 4);
  }
  {
    auto again = telemetry::TraceStore::open({.path = path});  // the columns are there now
    ASSERT_TRUE(again.ok()) << again.error().to_string();
  }
  fs::remove_all(dir);
}

TEST_F(Console, SessionsListADevicesPendingCalls) {
  start(true);
  upstream_.enqueue(wire_.stream(call_battery()));
  Device device(gateway_->port(), kApp);
  device.send({{"type", "session.start"},
               {"payload",
                {{"tools", json::array({{{"name", "get_battery"},
                                         {"description", "battery level"},
                                         {"parameters", {{"type", "object"}}}}})}}}});
  json ready = device.next("session.ready");
  ASSERT_TRUE(ready.is_object());
  const std::string sid = ready["payload"]["sessionId"];
  device.send({{"type", "transcript.final"}, {"payload", {{"text", "battery?"}}}});
  json call = device.next("tool.call");
  ASSERT_TRUE(call.is_object());
  EXPECT_EQ(call["payload"]["name"], "get_battery");

  auto r = get("/v1/conductor/sessions", kAdminAuth);
  ASSERT_EQ(r.status, 200) << r.body;
  json list = json::parse(r.body);
  ASSERT_EQ(list["sessions"].size(), 1u) << r.body;
  const json& s = list["sessions"][0];
  EXPECT_EQ(s["session_id"], sid);
  EXPECT_EQ(s["key"], "app");
  EXPECT_EQ(s["connected"], true);
  EXPECT_EQ(s["state"], "thinking");
  EXPECT_EQ(s["device_tools"], json::array({"get_battery"}));
  EXPECT_EQ(s["trace_id"].get<std::string>().size(), 32u);
  ASSERT_EQ(s["pending_calls"].size(), 1u) << r.body;
  const json& p = s["pending_calls"][0];
  EXPECT_EQ(p["call_id"], call["payload"]["callId"]);
  EXPECT_EQ(p["name"], "get_battery");
  // The deadline: the default tool timeout (30 s) after the call.
  EXPECT_EQ(p["deadline_us"].get<int64_t>() - p["since_us"].get<int64_t>(), 30'000'000);

  upstream_.enqueue(wire_.stream(answer(9, 2)));
  device.send({{"type", "tool.result"},
               {"payload", {{"callId", call["payload"]["callId"]}, {"result", "87%"}}}});
  ASSERT_TRUE(device.next("assistant.speech.final").is_object());
  ASSERT_TRUE(device.next("state").is_object());  // idle
  json after = json::parse(get("/v1/conductor/sessions", kAdminAuth).body)["sessions"][0];
  EXPECT_EQ(after["pending_calls"].size(), 0u);
  EXPECT_EQ(after["turns"], 1);
  EXPECT_EQ(after["state"], "idle");
  EXPECT_EQ(after["trace_id"], "");
}

}  // namespace
}  // namespace toolwire::testing
