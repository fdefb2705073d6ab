// The gateway in front of a real HTTP provider (codec + transport + profile)
// talking to a mock upstream on 127.0.0.1: every client dialect against
// every upstream dialect, whole and streamed; a client that leaves in the
// middle of a stream (the upstream connection is closed); a stalled upstream.
#include <gtest/gtest.h>

#include "upstream_gateway.h"

namespace toolwire::testing {
namespace {

struct Mode {
  DialectCase client;
  const char* upstream_codec;  // "openai_chat" | "anthropic_messages"
  const char* profile;         // "openai_compatible" | "anthropic"
  const char* base_path;
  std::string name() const {
    return client.name + "_to_" +
           (std::string(upstream_codec) == "openai_chat" ? "openai" : "anthropic");
  }
};

void PrintTo(const Mode& m, std::ostream* os) { *os << m.name(); }

std::vector<Mode> modes() {
  std::vector<Mode> out;
  for (const auto& d : dialects()) {
    out.push_back({d, "openai_chat", "openai_compatible", "/v1"});
    out.push_back({d, "anthropic_messages", "anthropic", ""});
  }
  return out;
}

std::vector<ir::StreamEvent> long_turn(int n) {
  std::vector<ir::StreamEvent> ev{ir::MessageStart{"msg_up", "up-model", 0}};
  for (int i = 0; i < n; ++i) ev.push_back(ir::TextDelta{"t" + std::to_string(i) + " "});
  ev.push_back(ir::UsageEvent{ir::Usage{3, n, {}, {}}});
  ev.push_back(ir::Finish{ir::FinishReason{ir::FinishReason::Kind::stop, "stop"}});
  return ev;
}

class MixedModes : public ::testing::TestWithParam<Mode> {
 protected:
  void start(gateway::GatewayOptions opt = small_options()) {
    ASSERT_EQ(rig_.start(GetParam().profile, GetParam().base_path, std::move(opt)), "");
  }
  const DialectCase& d() const { return GetParam().client; }
  uint16_t port() const { return rig_.port(); }

  UpstreamGateway rig_;
  Upstream wire_{GetParam().upstream_codec};
};

TEST_P(MixedModes, WholeAndStreamed) {
  start();
  rig_.upstream.enqueue(wire_.whole(long_turn(3)));
  rig_.upstream.enqueue(wire_.stream(long_turn(3)));
  RawClient c(port());
  ASSERT_TRUE(c.send(d().request(d().body("any-model", "hello"))));
  auto whole = c.read_response();
  ASSERT_TRUE(whole.has_value());
  EXPECT_EQ(whole->status, 200) << whole->body;
  EXPECT_NE(whole->body.find("t0 t1 t2 "), std::string::npos) << whole->body;
  ASSERT_TRUE(c.send(d().request(d().body("any-model", "hello", true))));
  auto streamed = c.read_response();
  ASSERT_TRUE(streamed.has_value());
  EXPECT_EQ(streamed->status, 200);
  EXPECT_EQ(streamed->header("content-type"), "text/event-stream");
  EXPECT_NE(streamed->body.find("t2 "), std::string::npos) << streamed->body;
  EXPECT_NE(streamed->body.find(d().anthropic ? "message_stop" : "[DONE]"), std::string::npos);
  // The upstream saw its own dialect with the pinned model.
  auto reqs = rig_.upstream.requests();
  ASSERT_EQ(reqs.size(), 2u);
  ir::Request up = wire_.decode(reqs[0]);
  EXPECT_EQ(up.model, "up-model");
  EXPECT_EQ(last_user_text(up), "hello");
}

// The upstream's own error comes back in the caller's dialect with its status.
TEST_P(MixedModes, UpstreamErrorTranslated) {
  start();
  Error e = make_error(ErrorCode::invalid_argument, "upstream says no");
  e.http_status = 400;
  rig_.upstream.enqueue(MockResponse::json(400, wire_.codec().encode_error(e).body));
  RawClient c(port());
  ASSERT_TRUE(c.send(d().request(d().body("any-model"))));
  expect_error_shape(c.read_response(), d().anthropic, 400, "upstream says no");
}

// An upstream that refuses the gateway's own key is the gateway's failure,
// not the caller's: 502 in the caller's dialect, never a 401 (its SDK would
// blame its own key).
TEST_P(MixedModes, UpstreamKeyRefusedIsABadGateway) {
  start();
  Error e = make_error(ErrorCode::unauthenticated, "Incorrect API key provided");
  e.http_status = 401;
  rig_.upstream.enqueue(MockResponse::json(401, wire_.codec().encode_error(e).body));
  RawClient c(port());
  ASSERT_TRUE(c.send(d().request(d().body("any-model"))));
  auto r = c.read_response();
  expect_error_shape(r, d().anthropic, 502, "answered 401 (its key was refused)");
  EXPECT_EQ(r->body.find("invalid_api_key"), std::string::npos) << r->body;
}

// An upstream rate-limiting the gateway, after the gateway gave up: 503 with
// the upstream's retry-after, never a 429 (every SDK would retry at once).
TEST_P(MixedModes, UpstreamRateLimitIsUnavailableWithItsRetryAfter) {
  start();
  Error e = make_error(ErrorCode::resource_exhausted, "Rate limit reached");
  e.http_status = 429;
  MockResponse m = MockResponse::json(429, wire_.codec().encode_error(e).body);
  m.header("retry-after", "7");
  rig_.upstream.enqueue(std::move(m));
  RawClient c(port());
  ASSERT_TRUE(c.send(d().request(d().body("any-model"))));
  auto r = c.read_response();
  ASSERT_TRUE(r.has_value());
  EXPECT_EQ(r->status, 503) << r->body;
  EXPECT_EQ(r->header("retry-after"), "7");
  EXPECT_EQ(r->body.find("rate_limit_error"), std::string::npos) << r->body;
}

// The client leaves while the upstream is still streaming (50 events, 100 ms
// apart): the transfer is cancelled, so the upstream connection closes long
// before the stream would have ended.
TEST_P(MixedModes, ClientDisconnectClosesUpstream) {
  start();
  rig_.upstream.enqueue(wire_.stream(long_turn(50), Ms(100)));
  {
    RawClient c(port());
    ASSERT_TRUE(c.send(d().request(d().body("any-model", "x", true))));
    ASSERT_TRUE(c.read_until_contains("t1 ", Ms(5000))) << c.buffer();
  }
  auto t0 = SteadyClock::now();
  EXPECT_TRUE(rig_.upstream.wait_for_idle(Ms(3000)));
  EXPECT_LT(SteadyClock::now() - t0, Ms(3000));
  std::string m = rig_.gateway().metrics_text();
  EXPECT_TRUE(GatewayRig::eventually([&] {
    m = rig_.gateway().metrics_text();
    return m.find("toolwire_active_streams 0") != std::string::npos;
  }));
}

TEST_P(MixedModes, StalledUpstream) {
  auto opt = small_options();
  opt.upstream_content_idle = Ms(300);
  start(opt);
  auto pieces = wire_.sse_pieces(long_turn(3));
  MockResponse r = MockResponse::sse_stream();
  r.chunk(pieces[0]);
  r.chunk(pieces[1]);
  r.stall();
  rig_.upstream.enqueue(std::move(r));
  RawClient c(port());
  auto t0 = SteadyClock::now();
  ASSERT_TRUE(c.send(d().request(d().body("any-model", "x", true))));
  auto resp = c.read_response(Ms(5000));
  ASSERT_TRUE(resp.has_value());
  EXPECT_LT(SteadyClock::now() - t0, Ms(3000));
  EXPECT_NE(resp->body.find("t0 "), std::string::npos) << resp->body;
  EXPECT_NE(resp->body.find("timeout_error"), std::string::npos) << resp->body;
}

INSTANTIATE_TEST_SUITE_P(Modes, MixedModes, ::testing::ValuesIn(modes()),
                         [](const auto& info) { return info.param.name(); });

}  // namespace
}  // namespace toolwire::testing
