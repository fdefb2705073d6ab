// Streams end to end through the gateway with a provider the test drives:
// a client that disconnects (the upstream call is cancelled, the gauges
// return to 0), a stalled upstream (an error event in the caller's dialect
// within the bound), keep-alive pings, graceful stop (drain, then cut at the
// deadline), /ready and /metrics.
#include <gtest/gtest.h>

#include "gateway_rig.h"

namespace toolwire::testing {
namespace {

class Streaming : public ::testing::TestWithParam<DialectCase> {
 protected:
  const DialectCase& d() const { return GetParam(); }
};

ir::Finish stop_finish() {
  return ir::Finish{ir::FinishReason{ir::FinishReason::Kind::stop, "stop"}};
}

std::string_view stream_end(bool anthropic) { return anthropic ? "message_stop" : "data: [DONE]"; }

TEST_P(Streaming, ClientDisconnectCancelsUpstream) {
  GatewayRig rig;
  RawClient c(rig.port);
  ASSERT_TRUE(c.send(d().request(d().body("hold-a", "x", true))));
  auto call = rig.provider->held(0);
  ASSERT_TRUE(call);
  ASSERT_TRUE(call->emit(ir::MessageStart{"m", "x", 0}));
  ASSERT_TRUE(call->emit(ir::TextDelta{"partial-text"}));
  ASSERT_TRUE(c.read_until_contains("partial-text"));
  EXPECT_EQ(rig.metric("toolwire_active_streams"), 1);
  EXPECT_EQ(rig.metric("toolwire_open_connections"), 1);
  c.close();
  EXPECT_TRUE(call->wait_cancelled(Ms(3000)));
  EXPECT_FALSE(call->emit(ir::TextDelta{"too late"}));
  EXPECT_TRUE(GatewayRig::eventually([&] { return rig.metric("toolwire_active_streams") == 0; }));
  EXPECT_TRUE(GatewayRig::eventually([&] { return rig.metric("toolwire_open_connections") == 0; }));
  EXPECT_TRUE(GatewayRig::eventually(
      [&] { return rig.metric("toolwire_requests_total", "status=\"499\"") == 1; }));
  // Still serving.
  RawClient again(rig.port);
  ASSERT_TRUE(again.send(d().request(d().body(d().model(), "next"))));
  auto r = again.read_response();
  ASSERT_TRUE(r.has_value());
  EXPECT_EQ(r->status, 200);
}

// A reset (RST) instead of a FIN, before any byte of the answer, on a whole
// (not streamed) request.
TEST_P(Streaming, ClientResetDuringWholeAnswerCancelsUpstream) {
  GatewayRig rig;
  RawClient c(rig.port);
  ASSERT_TRUE(c.send(d().request(d().body("hold-b", "x", false))));
  auto call = rig.provider->held(0);
  ASSERT_TRUE(call);
  c.reset();
  EXPECT_TRUE(call->wait_cancelled(Ms(3000)));
  EXPECT_TRUE(GatewayRig::eventually([&] { return rig.metric("toolwire_open_connections") == 0; }));
  EXPECT_EQ(rig.metric("toolwire_active_streams"), 0);
}

// Many clients leave mid-stream at once: every call is cancelled.
TEST_P(Streaming, ManyDisconnectsNothingLeft) {
  GatewayRig rig;
  constexpr int kClients = 20;
  std::vector<std::unique_ptr<RawClient>> clients;
  for (int i = 0; i < kClients; ++i) {
    clients.push_back(std::make_unique<RawClient>(rig.port));
    ASSERT_TRUE(clients.back()->send(d().request(d().body("hold-m", "x", true))));
  }
  for (int i = 0; i < kClients; ++i) {
    auto call = rig.provider->held(static_cast<size_t>(i));
    ASSERT_TRUE(call) << i;
    call->emit(ir::MessageStart{"m", "x", 0});
  }
  EXPECT_TRUE(
      GatewayRig::eventually([&] { return rig.metric("toolwire_active_streams") == kClients; }));
  clients.clear();
  for (int i = 0; i < kClients; ++i)
    EXPECT_TRUE(rig.provider->held(static_cast<size_t>(i))->wait_cancelled(Ms(3000))) << i;
  EXPECT_TRUE(GatewayRig::eventually([&] { return rig.metric("toolwire_active_streams") == 0; }));
  EXPECT_TRUE(GatewayRig::eventually([&] { return rig.metric("toolwire_open_connections") == 0; }));
  EXPECT_EQ(rig.provider->open_calls(), 0u);
}

// The upstream starts its message and goes quiet: with upstream_content_idle
// at 300 ms the client gets an error event in its dialect within the bound,
// the stream is terminated, and the upstream call is cancelled.
TEST_P(Streaming, StalledUpstreamAfterStart) {
  auto opt = small_options();
  opt.upstream_content_idle = Ms(300);
  GatewayRig rig(opt);
  RawClient c(rig.port);
  auto t0 = SteadyClock::now();
  ASSERT_TRUE(c.send(d().request(d().body("hold-stall", "x", true))));
  auto call = rig.provider->held(0);
  ASSERT_TRUE(call);
  ASSERT_TRUE(call->emit(ir::MessageStart{"m", "x", 0}));
  auto r = c.read_response(Ms(5000));
  auto took = SteadyClock::now() - t0;
  ASSERT_TRUE(r.has_value());
  EXPECT_EQ(r->status, 200);  // the head went out with the first event
  EXPECT_GE(took, Ms(280));
  EXPECT_LT(took, Ms(3000));
  EXPECT_TRUE(call->cancelled());
  if (d().anthropic) {
    std::string_view want = "event: error\ndata: ";
    size_t at = r->body.find(want);
    ASSERT_NE(at, std::string::npos) << r->body;
    std::string data = r->body.substr(at + want.size());
    data = data.substr(0, data.find('\n'));
    auto j = nlohmann::json::parse(data);
    EXPECT_EQ(j["type"], "error");
    EXPECT_EQ(j["error"]["type"], "timeout_error");
    EXPECT_NE(j["error"]["message"].get<std::string>().find("sent no content for 300 ms"),
              std::string::npos);
  } else {
    size_t at = r->body.find("data: {\"error\"");
    ASSERT_NE(at, std::string::npos) << r->body;
    std::string data = r->body.substr(at + 6);
    data = data.substr(0, data.find('\n'));
    auto j = nlohmann::json::parse(data);
    EXPECT_EQ(j["error"]["type"], "timeout_error");
    EXPECT_TRUE(j["error"]["param"].is_null());
    EXPECT_TRUE(j["error"]["code"].is_null());
  }
  EXPECT_EQ(rig.metric("toolwire_upstream_errors_total", "kind=\"idle_timeout\""), 1);
  EXPECT_TRUE(GatewayRig::eventually([&] { return rig.metric("toolwire_active_streams") == 0; }));
  // The connection is still good for the next request.
  ASSERT_TRUE(c.send(d().request(d().body(d().model(), "after stall"))));
  auto next = c.read_response();
  ASSERT_TRUE(next.has_value());
  EXPECT_EQ(next->status, 200);
}

// Nothing at all from the upstream: no byte went out, so the caller gets a
// 504 error response in its dialect.
TEST_P(Streaming, StalledUpstreamBeforeFirstByte) {
  auto opt = small_options();
  opt.upstream_content_idle = Ms(300);
  GatewayRig rig(opt);
  RawClient c(rig.port);
  ASSERT_TRUE(c.send(d().request(d().body("hold-silent", "x", true))));
  auto call = rig.provider->held(0);
  ASSERT_TRUE(call);
  auto r = c.read_response(Ms(5000));
  expect_error_shape(r, d().anthropic, 504, "sent no content");
  EXPECT_TRUE(call->cancelled());
}

TEST_P(Streaming, KeepAlivePings) {
  auto opt = small_options();
  opt.stream_keepalive = Ms(50);
  GatewayRig rig(opt);
  RawClient c(rig.port);
  ASSERT_TRUE(c.send(d().request(d().body("hold-ping", "x", true))));
  auto call = rig.provider->held(0);
  ASSERT_TRUE(call);
  ASSERT_TRUE(call->emit(ir::MessageStart{"m", "x", 0}));
  std::string ping =
      d().anthropic ? "event: ping\ndata: {\"type\": \"ping\"}\n\n" : ": keep-alive\n\n";
  auto count = [&](const std::string& b) {
    size_t n = 0;
    for (size_t p = b.find(ping); p != std::string::npos; p = b.find(ping, p + 1)) ++n;
    return n;
  };
  ASSERT_TRUE(c.read_until([&](const std::string& b) { return count(b) >= 3; }, Ms(3000)))
      << c.buffer();
  ASSERT_TRUE(call->emit(ir::TextDelta{"after pings"}));
  ASSERT_TRUE(call->emit(stop_finish()));
  ASSERT_TRUE(call->finish());
  auto r = c.read_response();
  ASSERT_TRUE(r.has_value());
  EXPECT_NE(r->body.find("after pings"), std::string::npos);
  EXPECT_NE(r->body.find(stream_end(d().anthropic)), std::string::npos);
}

// Pings do not count as upstream content: a stream that only pings is still
// cut by upstream_content_idle.
TEST_P(Streaming, PingsDoNotHideAStall) {
  auto opt = small_options();
  opt.stream_keepalive = Ms(40);
  opt.upstream_content_idle = Ms(400);
  GatewayRig rig(opt);
  RawClient c(rig.port);
  ASSERT_TRUE(c.send(d().request(d().body("hold-ping", "x", true))));
  auto call = rig.provider->held(0);
  ASSERT_TRUE(call);
  ASSERT_TRUE(call->emit(ir::MessageStart{"m", "x", 0}));
  auto r = c.read_response(Ms(5000));
  ASSERT_TRUE(r.has_value());
  EXPECT_NE(r->body.find("timeout_error"), std::string::npos) << r->body;
  EXPECT_TRUE(call->cancelled());
}

// stop() while a stream runs: /ready (pipelined behind it) says 503, the
// stream completes since the upstream finishes before the drain deadline,
// then the connection closes and wait() returns.
TEST_P(Streaming, GracefulStopDrainsStream) {
  GatewayRig rig;
  RawClient c(rig.port);
  ASSERT_TRUE(c.send(d().request(d().body("hold-drain", "x", true)) + http_get("/ready")));
  auto call = rig.provider->held(0);
  ASSERT_TRUE(call);
  ASSERT_TRUE(call->emit(ir::MessageStart{"m", "x", 0}));
  ASSERT_TRUE(call->emit(ir::TextDelta{"before stop"}));
  ASSERT_TRUE(c.read_until_contains("before stop"));
  rig.gateway->stop();
  ASSERT_TRUE(call->emit(ir::TextDelta{"after stop"}));
  ASSERT_TRUE(call->emit(stop_finish()));
  ASSERT_TRUE(call->finish());
  auto r = c.read_response();
  ASSERT_TRUE(r.has_value());
  EXPECT_EQ(r->status, 200);
  EXPECT_NE(r->body.find("after stop"), std::string::npos);
  EXPECT_NE(r->body.find(stream_end(d().anthropic)), std::string::npos);
  auto ready = c.read_response();
  ASSERT_TRUE(ready.has_value());
  EXPECT_EQ(ready->status, 503);
  EXPECT_EQ(ready->body, R"({"status":"not ready"})");
  // Closed once answered, not at the drain deadline (2 s). (Whether the 503
  // says `connection: close` depends on whether the session's drain ran
  // before it was dispatched: stop() reaches sessions asynchronously.)
  EXPECT_TRUE(c.wait_closed(Ms(1000)));
  auto t0 = SteadyClock::now();
  rig.gateway->wait();
  EXPECT_LT(SteadyClock::now() - t0, Ms(1000));
  EXPECT_FALSE(call->cancelled());
  RawClient late(rig.port);
  EXPECT_FALSE(late.connected()) << "the listener is still open after wait()";
}

// A stream still running at the drain deadline is cut: the connection
// closes without the stream's end, and the upstream call is cancelled.
TEST_P(Streaming, DrainDeadlineCutsStream) {
  auto opt = small_options();
  opt.drain_deadline = Ms(300);
  GatewayRig rig(opt);
  RawClient c(rig.port);
  ASSERT_TRUE(c.send(d().request(d().body("hold-cut", "x", true))));
  auto call = rig.provider->held(0);
  ASSERT_TRUE(call);
  ASSERT_TRUE(call->emit(ir::MessageStart{"m", "x", 0}));
  ASSERT_TRUE(call->emit(ir::TextDelta{"running"}));
  ASSERT_TRUE(c.read_until_contains("running"));
  auto t0 = SteadyClock::now();
  rig.gateway->stop();
  EXPECT_TRUE(c.wait_closed(Ms(3000)));
  auto took = SteadyClock::now() - t0;
  EXPECT_GE(took, Ms(250));
  EXPECT_LT(took, Ms(3000));
  EXPECT_TRUE(call->wait_cancelled(Ms(3000)));
  EXPECT_EQ(c.buffer().find("0\r\n\r\n"), std::string::npos) << "the cut stream was terminated";
  rig.gateway->wait();
  EXPECT_EQ(rig.metric("toolwire_active_streams"), 0);
}

// Idle keep-alive connections close at once on stop().
TEST_P(Streaming, StopClosesIdleConnections) {
  GatewayRig rig;
  RawClient c(rig.port);
  ASSERT_TRUE(c.send(d().request(d().body(d().model(), "x"))));
  ASSERT_TRUE(c.read_response().has_value());
  auto t0 = SteadyClock::now();
  rig.gateway->stop();
  EXPECT_TRUE(c.wait_closed(Ms(3000)));
  EXPECT_LT(SteadyClock::now() - t0, Ms(1000));
  rig.gateway->wait();
}

// Once an exchange ended the gateway lets go of its model call (and with it
// the connection's state): whole, streamed, refused upstream, disconnected.
TEST_P(Streaming, FinishedCallsAreReleased) {
  GatewayRig rig;
  {
    RawClient c(rig.port);
    ASSERT_TRUE(c.send(d().request(d().body(d().model(), "a"))));
    ASSERT_TRUE(c.read_response().has_value());
    ASSERT_TRUE(c.send(d().request(d().body(d().model(), "b", true))));
    ASSERT_TRUE(c.read_response().has_value());
    ASSERT_TRUE(c.send(d().request(d().body("hold-f", "c", true))));
    auto call = rig.provider->held(0);
    ASSERT_TRUE(call);
    call->fail(make_error(ErrorCode::unavailable, "down"));
    auto r = c.read_response();
    ASSERT_TRUE(r.has_value());
    EXPECT_EQ(r->status, d().anthropic ? 529 : 503);
    // The connection stays open: its calls must be released all the same.
    EXPECT_TRUE(GatewayRig::eventually([&] { return rig.provider->live_handles() == 0; }))
        << rig.provider->live_handles() << " call handles still held";
  }
  RawClient gone(rig.port);
  ASSERT_TRUE(gone.send(d().request(d().body("hold-g", "d", true))));
  auto call = rig.provider->held(1);
  ASSERT_TRUE(call);
  gone.close();
  EXPECT_TRUE(call->wait_cancelled(Ms(3000)));
  EXPECT_TRUE(GatewayRig::eventually([&] { return rig.provider->live_handles() == 0; }));
}

TEST_P(Streaming, MetricsMove) {
  GatewayRig rig;
  std::string route =
      "route=\"" + std::string(d().anthropic ? "/v1/messages" : "/v1/chat/completions") + "\"";
  double before_ok = rig.metric("toolwire_requests_total", route);
  double in_before = rig.metric("toolwire_bytes_received_total");
  double out_before = rig.metric("toolwire_bytes_sent_total");
  RawClient c(rig.port);
  ASSERT_TRUE(c.send(d().request(d().body(d().model(), "count me"))));
  ASSERT_TRUE(c.read_response().has_value());
  ASSERT_TRUE(c.send(d().request(d().body(d().model(), "count me", true))));
  ASSERT_TRUE(c.read_response().has_value());
  ASSERT_TRUE(c.send(d().request(d().body("no-such-model"))));
  ASSERT_TRUE(c.read_response().has_value());
  // Counted just after the answer is queued: wait for the last one.
  EXPECT_TRUE(GatewayRig::eventually(
      [&] { return rig.metric("toolwire_requests_total", route) - before_ok == 3; }));
  EXPECT_EQ(rig.metric("toolwire_requests_total", "status=\"200\""), 2);
  EXPECT_EQ(rig.metric("toolwire_requests_total", "model=\"unknown\",status=\"404\""), 1);
  EXPECT_EQ(rig.metric("toolwire_upstream_attempts_total", "upstream=\"test\""), 2);
  EXPECT_GT(rig.metric("toolwire_bytes_received_total"), in_before);
  EXPECT_GT(rig.metric("toolwire_bytes_sent_total"), out_before);
  // The same text over HTTP.
  ASSERT_TRUE(c.send(http_get("/metrics")));
  auto m = c.read_response();
  ASSERT_TRUE(m.has_value());
  EXPECT_EQ(m->status, 200);
  EXPECT_NE(m->body.find("toolwire_requests_total{" + route), std::string::npos) << m->body;
  EXPECT_NE(m->body.find("toolwire_open_connections 1"), std::string::npos) << m->body;
}

TEST_P(Streaming, HealthReadyModels) {
  GatewayRig rig;
  RawClient c(rig.port);
  ASSERT_TRUE(
      c.send(http_get("/health") + http_get("/ready") +
             http_get("/v1/models", d().anthropic ? "anthropic-version: 2023-06-01\r\n" : "")));
  auto h = c.read_response();
  auto r = c.read_response();
  auto m = c.read_response();
  ASSERT_TRUE(h && r && m);
  EXPECT_EQ(h->status, 200);
  EXPECT_EQ(r->status, 200);
  EXPECT_EQ(r->body, R"({"status":"ready"})");
  EXPECT_EQ(m->status, 200);
  auto j = nlohmann::json::parse(m->body);
  EXPECT_TRUE(j["data"].is_array());
  if (d().anthropic)
    EXPECT_TRUE(j.contains("has_more"));
  else
    EXPECT_EQ(j["object"], "list");
}

INSTANTIATE_TEST_SUITE_P(Dialects, Streaming, ::testing::ValuesIn(dialects()),
                         [](const auto& info) { return info.param.name; });

}  // namespace
}  // namespace toolwire::testing
