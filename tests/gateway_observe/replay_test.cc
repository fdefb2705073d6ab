// Record, then replay with the upstream gone: `record:` in front of a mock
// upstream of each of the five dialects (a client of the same dialect, so
// each dialect's ingress and egress are both on the tape), then `replay:`
// from the folder with the upstream stopped — the same answers, whole and
// streamed, byte for byte; with pacing, at the recorded pace. A request
// that matches nothing gets 502 in the caller's dialect, naming the nearest
// recording and the difference. No key reaches the folder.
#include <gtest/gtest.h>

#include <chrono>
#include <cstdlib>
#include <filesystem>
#include <fstream>
#include <sstream>

#include "gateway_rig.h"
#include "mock_upstream.h"
#include "toolwire/gateway/config.h"
#include "toolwire/transport/http_client.h"

namespace toolwire::testing {
namespace {

namespace fs = std::filesystem;
using nlohmann::json;

constexpr const char* kSecret = "sk-replay-SECRET-4242";

struct DialectRoute {
  const char* codec;    // the upstream's and the client's dialect
  const char* profile;  // the built-in profile of that dialect
  const char* base;     // the mock's base URL path
  std::string path(bool stream) const {
    std::string c = codec;
    if (c == "openai_chat") return "/v1/chat/completions";
    if (c == "anthropic_messages") return "/v1/messages";
    if (c == "openai_responses") return "/v1/responses";
    if (c == "gemini")
      return stream ? "/v1beta/models/m-1:streamGenerateContent?alt=sse"
                    : "/v1beta/models/m-1:generateContent";
    return stream ? "/model/m-1/converse-stream" : "/model/m-1/converse";
  }
  std::string body(bool stream, std::string_view user = "hello") const {
    std::string c = codec, u(user), s = stream ? R"(,"stream":true)" : "";
    if (c == "openai_chat")
      return R"({"model":"m-1","messages":[{"role":"user","content":")" + u + R"("}])" + s + "}";
    if (c == "anthropic_messages")
      return R"({"model":"m-1","max_tokens":64,"messages":[{"role":"user","content":")" + u +
             R"("}])" + s + "}";
    if (c == "openai_responses") return R"({"model":"m-1","input":")" + u + R"(")" + s + "}";
    if (c == "gemini") return R"({"contents":[{"role":"user","parts":[{"text":")" + u + R"("}]}]})";
    return R"({"messages":[{"role":"user","content":[{"text":")" + u + R"("}]}]})";
  }
  std::string request(bool stream, std::string_view user = "hello") const {
    std::string h =
        std::string(codec) == "anthropic_messages" ? "anthropic-version: 2023-06-01\r\n" : "";
    return http_post(path(stream), body(stream, user), h);
  }
};

void PrintTo(const DialectRoute& d, std::ostream* os) { *os << d.codec; }

std::vector<ir::StreamEvent> turn() {
  return {ir::MessageStart{"msg_1", "up-model", 0},
          ir::TextDelta{"Recorded "},
          ir::TextDelta{"once, "},
          ir::TextDelta{"replayed "},
          ir::TextDelta{"always."},
          ir::UsageEvent{ir::Usage{7, 4, {}, {}}},
          ir::Finish{ir::FinishReason{ir::FinishReason::Kind::stop, "stop"}}};
}

// A gateway built from YAML through build_gateway, as `toolwire serve --config`.
struct Served {
  transport::HttpClient client;
  gateway::BuiltGateway built;
  std::unique_ptr<gateway::Gateway> gateway;

  Status start(const std::string& yaml) {
    auto cfg = gateway::load_config_string(yaml, "test.yaml");
    if (!cfg) return cfg.error();
    auto b = gateway::build_gateway(*cfg, client);
    if (!b) return b.error();
    built = std::move(*b);
    gateway::GatewayOptions o = cfg->options;
    o.host = "127.0.0.1";
    o.port = 0;
    o.threads = 2;
    o.log = [](std::string_view) {};
    gateway = std::make_unique<gateway::Gateway>(o, built.router);
    return gateway->start();
  }
  ~Served() {
    if (gateway) {
      gateway->stop();
      gateway->wait();
    }
  }
  uint16_t port() const { return gateway->port(); }
};

std::string yaml(const DialectRoute& d, const std::string& base_url, const std::string& tail) {
  return "upstreams:\n  up:\n    profile: " + std::string(d.profile) +
         "\n    base_url: " + base_url +
         "\n    api_key_env: TW_REPLAY_TEST_KEY\n    max_attempts: 1\n" +
         "routes:\n  - model: '*'\n    upstreams: [up]\n" + tail;
}

class Replay : public ::testing::TestWithParam<DialectRoute> {
 protected:
  void SetUp() override {
    dir_ = fs::temp_directory_path() /
           ("tw-replay-" + std::to_string(::getpid()) + "-" + GetParam().codec);
    fs::remove_all(dir_);
    setenv("TW_REPLAY_TEST_KEY", kSecret, 1);
    setenv("AWS_ACCESS_KEY_ID", "AKIDREPLAY", 1);
  }
  void TearDown() override {
    fs::remove_all(dir_);
    unsetenv("TW_REPLAY_TEST_KEY");
    unsetenv("AWS_ACCESS_KEY_ID");
  }

  // Records a whole and a streamed answer; the upstream is gone afterwards.
  void record(std::vector<HttpResponse>& out, std::chrono::milliseconds gap = {}) {
    const DialectRoute& d = GetParam();
    MockHttpServer upstream;
    Upstream wire(d.codec);
    upstream.enqueue(wire.whole(turn()));
    upstream.enqueue(wire.stream(turn(), gap));
    Served s;
    Status st = s.start(yaml(d, upstream.url(d.base), "record:\n  dir: " + dir_.string() + "\n"));
    ASSERT_TRUE(st.ok()) << st.error().to_string();
    for (bool stream : {false, true}) {
      RawClient c(s.port());
      ASSERT_TRUE(c.send(d.request(stream)));
      auto r = c.read_response();
      ASSERT_TRUE(r.has_value());
      ASSERT_EQ(r->status, 200) << r->body;
      out.push_back(*r);
    }
    ASSERT_EQ(upstream.requests().size(), 2u);
    upstream.stop();
  }

  std::string replay_yaml(bool pacing = false) const {
    // The upstream's address is the old one: nothing listens there now.
    return yaml(
        GetParam(), "http://127.0.0.1:9" + std::string(GetParam().base),
        "replay:\n  dir: " + dir_.string() + "\n  pacing: " + (pacing ? "true" : "false") + "\n");
  }

  fs::path dir_;
};

// What differs between two runs of the same gateway whatever the upstream
// said: the answer's creation time where the gateway writes its own, the ids
// its response store mints for each answer (Responses: resp_/msg_<hex>), and
// those of calls a text-format upstream wrote as text (call_<hex>_N).
std::string stable(std::string body) {
  for (const char* prefix : {"\"resp_", "\"msg_", "\"call_"}) {
    for (size_t at = body.find(prefix); at != std::string::npos; at = body.find(prefix, at + 1)) {
      size_t v = at + std::strlen(prefix), end = v;
      while (end < body.size() && std::isxdigit(static_cast<unsigned char>(body[end]))) ++end;
      if (end - v >= 16) body.replace(v, end - v, "X");
    }
  }
  for (const char* key : {"\"created\":", "\"created_at\":"}) {
    for (size_t at = body.find(key); at != std::string::npos; at = body.find(key, at + 1)) {
      size_t v = at + std::strlen(key), end = v;
      while (end < body.size() && std::isdigit(static_cast<unsigned char>(body[end]))) ++end;
      body.replace(v, end - v, "0");
    }
  }
  // Gemini's createTime is the gateway's stamp too, an RFC 3339 string.
  const std::string create_time = "\"createTime\":\"";
  for (size_t at = body.find(create_time); at != std::string::npos;
       at = body.find(create_time, at + 1)) {
    size_t v = at + create_time.size(), end = body.find('"', v);
    if (end != std::string::npos) body.replace(v, end - v, "T");
  }
  return body;
}

TEST_P(Replay, SameAnswersWithTheUpstreamGone) {
  std::vector<HttpResponse> recorded;
  record(recorded);
  if (HasFatalFailure()) return;
  // Two files, and no key in either.
  size_t files = 0;
  for (const auto& f : fs::directory_iterator(dir_)) {
    ++files;
    std::ifstream in(f.path());
    std::stringstream ss;
    ss << in.rdbuf();
    EXPECT_EQ(ss.str().find(kSecret), std::string::npos) << f.path();
    EXPECT_EQ(ss.str().find("AKIDREPLAY"), std::string::npos) << f.path();
  }
  EXPECT_EQ(files, 2u);

  unsetenv("TW_REPLAY_TEST_KEY");  // CI replays without the key
  Served s;
  Status st = s.start(replay_yaml());
  ASSERT_TRUE(st.ok()) << st.error().to_string();
  for (int round = 0; round < 2; ++round)  // the last answer serves again
    for (bool stream : {false, true}) {
      RawClient c(s.port());
      ASSERT_TRUE(c.send(GetParam().request(stream)));
      auto r = c.read_response();
      ASSERT_TRUE(r.has_value());
      const HttpResponse& want = recorded[stream ? 1 : 0];
      EXPECT_EQ(r->status, want.status) << r->body;
      EXPECT_EQ(r->header("content-type"), want.header("content-type"));
      EXPECT_EQ(stable(r->body), stable(want.body)) << (stream ? "streamed" : "whole");
    }
}

TEST_P(Replay, AMismatchNamesTheNearestRecording) {
  std::vector<HttpResponse> recorded;
  record(recorded);
  if (HasFatalFailure()) return;
  Served s;
  ASSERT_TRUE(s.start(replay_yaml()).ok());
  RawClient c(s.port());
  ASSERT_TRUE(c.send(GetParam().request(false, "goodbye")));
  auto r = c.read_response();
  ASSERT_TRUE(r.has_value());
  EXPECT_EQ(r->status, 502) << r->body;
  // The caller's dialect's error shape, whatever it is: one JSON object.
  json j = json::parse(r->body, nullptr, false);
  ASSERT_TRUE(j.is_object()) << r->body;
  std::string codec = GetParam().codec;
  if (codec == "openai_chat" || codec == "openai_responses" || codec == "anthropic_messages")
    expect_error_shape(r, codec == "anthropic_messages", 502, "no recorded exchange matches");
  EXPECT_NE(r->body.find("no recorded exchange matches POST"), std::string::npos) << r->body;
  EXPECT_NE(r->body.find("the nearest is 000001-"), std::string::npos) << r->body;
  EXPECT_NE(r->body.find("hello"), std::string::npos) << r->body;
  EXPECT_NE(r->body.find("goodbye"), std::string::npos) << r->body;
  EXPECT_EQ(r->body.find("127.0.0.1"), std::string::npos) << r->body;
}

TEST_P(Replay, PacingKeepsTheRecordedTiming) {
  std::vector<HttpResponse> recorded;
  record(recorded, std::chrono::milliseconds(40));
  if (HasFatalFailure()) return;
  Served s;
  ASSERT_TRUE(s.start(replay_yaml(true)).ok());
  RawClient c(s.port());
  auto t0 = std::chrono::steady_clock::now();
  ASSERT_TRUE(c.send(GetParam().request(true)));
  auto r = c.read_response();
  auto took = std::chrono::steady_clock::now() - t0;
  ASSERT_TRUE(r.has_value());
  EXPECT_EQ(stable(r->body), stable(recorded[1].body));
  // Several events, each 40 ms after the one before: well over 100 ms.
  EXPECT_GE(took, std::chrono::milliseconds(100));
}

INSTANTIATE_TEST_SUITE_P(EveryDialect, Replay,
                         ::testing::Values(DialectRoute{"openai_chat", "openai", "/v1"},
                                           DialectRoute{"anthropic_messages", "anthropic", ""},
                                           DialectRoute{"openai_responses", "openai_responses",
                                                        "/v1"},
                                           DialectRoute{"gemini", "gemini", ""},
                                           DialectRoute{"bedrock_converse", "bedrock", ""}),
                         [](const auto& info) { return std::string(info.param.codec); });

// A text-format upstream (tool_format: hermes): the model's text is on the
// tape, the calls parsed from it again on replay — the client gets the same
// native tool calls, whole and streamed.
TEST(ReplayTextFormat, TheCallsParsedFromTheTapeAreTheSame) {
  fs::path dir = fs::temp_directory_path() / ("tw-replay-text-" + std::to_string(::getpid()));
  fs::remove_all(dir);
  const std::string hermes =
      "Let me check.\n<tool_call>\n{\"name\": \"get_weather\", \"arguments\": {\"city\": "
      "\"Oslo\"}}\n</tool_call>";
  std::vector<ir::StreamEvent> said{
      ir::MessageStart{"m1", "qwen", 0}, ir::TextDelta{hermes},
      ir::Finish{ir::FinishReason{ir::FinishReason::Kind::stop, "stop"}}};
  const std::string tools =
      R"([{"type":"function","function":{"name":"get_weather","parameters":{"type":"object",)"
      R"("properties":{"city":{"type":"string"}}}}}])";
  auto request = [&](bool stream) {
    return http_post("/v1/chat/completions",
                     R"({"model":"local","messages":[{"role":"user","content":"Oslo?"}],"tools":)" +
                         tools + (stream ? R"(,"stream":true})" : "}"));
  };
  auto config = [&](const std::string& base, const std::string& tail) {
    return "upstreams:\n  local:\n    profile: openai_compatible\n    base_url: " + base +
           "\n    tool_format: hermes\n    max_attempts: 1\nroutes:\n  - model: local\n"
           "    upstreams: [{upstream: local, model: qwen}]\n" +
           tail;
  };
  std::vector<HttpResponse> recorded;
  {
    MockHttpServer upstream;
    Upstream wire("openai_chat");
    upstream.enqueue(wire.whole(said));
    upstream.enqueue(wire.stream(said));
    Served s;
    Status st = s.start(config(upstream.url("/v1"), "record:\n  dir: " + dir.string() + "\n"));
    ASSERT_TRUE(st.ok()) << st.error().to_string();
    for (bool stream : {false, true}) {
      RawClient c(s.port());
      ASSERT_TRUE(c.send(request(stream)));
      auto r = c.read_response();
      ASSERT_TRUE(r.has_value());
      ASSERT_EQ(r->status, 200) << r->body;
      EXPECT_NE(r->body.find("get_weather"), std::string::npos) << r->body;
      EXPECT_NE(r->body.find("tool_calls"), std::string::npos) << r->body;
      recorded.push_back(*r);
    }
    upstream.stop();
  }
  Served s;
  Status st = s.start(config("http://127.0.0.1:9/v1", "replay:\n  dir: " + dir.string() + "\n"));
  ASSERT_TRUE(st.ok()) << st.error().to_string();
  for (bool stream : {false, true}) {
    RawClient c(s.port());
    ASSERT_TRUE(c.send(request(stream)));
    auto r = c.read_response();
    ASSERT_TRUE(r.has_value());
    EXPECT_EQ(r->status, 200) << r->body;
    EXPECT_EQ(stable(r->body), stable(recorded[stream ? 1 : 0].body));
  }
  fs::remove_all(dir);
}

// The folder is checked at start: a malformed file stops the gateway from
// being built, naming the file and the member.
TEST(ReplayFolder, ABadFileIsAnErrorAtStart) {
  fs::path dir = fs::temp_directory_path() / ("tw-replay-bad-" + std::to_string(::getpid()));
  fs::create_directories(dir);
  std::ofstream(dir / "000001-x.json") << R"({"toolwire_recording":1,"request":{}})";
  Served s;
  Status st = s.start(yaml({"openai_chat", "openai", "/v1"}, "http://127.0.0.1:9/v1",
                           "replay:\n  dir: " + dir.string() + "\n"));
  ASSERT_FALSE(st.ok());
  EXPECT_NE(st.error().message.find("000001-x.json"), std::string::npos) << st.error().message;
  EXPECT_NE(st.error().message.find("$.request.method"), std::string::npos) << st.error().message;
  fs::remove_all(dir);
  auto missing = gateway::load_config_string(
      yaml({"openai_chat", "openai", "/v1"}, "http://h/v1", "replay:\n  dir: /nonexistent/x\n"));
  ASSERT_TRUE(missing.ok());
  transport::HttpClient client;
  auto b = gateway::build_gateway(*missing, client);
  ASSERT_FALSE(b.ok());
  EXPECT_NE(b.error().message.find("not a folder"), std::string::npos);
  auto both = gateway::load_config_string(yaml({"openai_chat", "openai", "/v1"}, "http://h/v1",
                                               "record:\n  dir: a\nreplay:\n  dir: b\n"));
  ASSERT_FALSE(both.ok());
  EXPECT_NE(both.error().message.find("exclude each other"), std::string::npos);
}

}  // namespace
}  // namespace toolwire::testing
