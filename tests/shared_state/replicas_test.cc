// Two `toolwire serve` replicas sharing one redis-server, behind HAProxy
// (round-robin), all started here on 127.0.0.1 with free ports and stopped by
// PID: a key's limits hold across the replicas, an answer made on one is
// continued on the other, and a Redis restart gives clear errors, then
// recovery. Every wait is bounded and waits for an event (a log line, a
// request seen), never a fixed time.
#include <gtest/gtest.h>
#include <netinet/in.h>
#include <sys/socket.h>
#include <unistd.h>

#include <cstdlib>
#include <filesystem>
#include <fstream>
#include <memory>
#include <nlohmann/json.hpp>
#include <string>

#include "mock_http_server.h"
#include "raw_client.h"
#include "subprocess.h"

namespace toolwire::testing {
namespace {

namespace fs = std::filesystem;
using json = nlohmann::json;
constexpr Ms kWait{15'000};

std::string find_program(const std::string& name) {
  std::string path = std::getenv("PATH") ? std::getenv("PATH") : "";
  path += ":/usr/sbin:/sbin:/usr/local/sbin";
  size_t start = 0;
  while (start <= path.size()) {
    size_t end = path.find(':', start);
    if (end == std::string::npos) end = path.size();
    fs::path p = fs::path(path.substr(start, end - start)) / name;
    if (!p.parent_path().empty() && ::access(p.c_str(), X_OK) == 0) return p.string();
    start = end + 1;
  }
  return {};
}

// A port free now: bound to 0, read, closed (for the programs that cannot
// bind port 0 themselves and report it).
uint16_t free_port() {
  int fd = ::socket(AF_INET, SOCK_STREAM | SOCK_CLOEXEC, 0);
  sockaddr_in a{};
  a.sin_family = AF_INET;
  a.sin_addr.s_addr = htonl(INADDR_LOOPBACK);
  socklen_t n = sizeof a;
  ::bind(fd, reinterpret_cast<sockaddr*>(&a), sizeof a);
  ::getsockname(fd, reinterpret_cast<sockaddr*>(&a), &n);
  ::close(fd);
  return ntohs(a.sin_port);
}

size_t count(const std::string& text, std::string_view what) {
  size_t n = 0;
  for (size_t at = text.find(what); at != std::string::npos; at = text.find(what, at + 1)) ++n;
  return n;
}

// redis-server in the foreground, nothing persisted; ready when it says so.
class Redis {
 public:
  Redis(std::string bin, uint16_t port) : bin_(std::move(bin)), port_(port) {}
  bool start() {
    proc_ = std::make_unique<Subprocess>(
        std::vector<std::string>{bin_, "--port", std::to_string(port_), "--bind", "127.0.0.1",
                                 "--save", "", "--appendonly", "no", "--protected-mode", "no"});
    return proc_->started() &&
           proc_->read_until(
               [](const std::string& out) {
                 return out.find("Ready to accept connections") != std::string::npos;
               },
               kWait);
  }
  void stop() {
    if (!proc_) return;
    ::kill(proc_->pid(), SIGTERM);
    EXPECT_EQ(proc_->wait(kWait), 0) << proc_->out();
    proc_.reset();
  }
  std::string url() const { return "redis://127.0.0.1:" + std::to_string(port_) + "/0"; }

 private:
  std::string bin_;
  uint16_t port_;
  std::unique_ptr<Subprocess> proc_;
};

// One `toolwire serve --config FILE --redis URL` on a port of its own.
class Replica {
 public:
  Replica(const fs::path& config, const std::string& redis)
      : proc_({TOOLWIRE_BINARY, "serve", "--config", config.string(), "--listen", "127.0.0.1:0",
               "--redis", redis}) {}
  // Listening, and connected to Redis.
  bool ready() {
    if (!proc_.read_until(
            [&](const std::string& out) {
              return out.find("listening on") != std::string::npos && connects_now() >= 1;
            },
            kWait))
      return false;
    auto at = proc_.out().rfind(':');
    port_ = static_cast<uint16_t>(std::atoi(proc_.out().c_str() + at + 1));
    return port_ != 0;
  }
  // Waits until the replica logged its n-th connection to Redis.
  bool connected_times(size_t n) {
    return proc_.read_until([&](const std::string&) { return connects_now() >= n; }, kWait);
  }
  // Waits until the replica logged `line`.
  bool logged(std::string_view line) {
    return proc_.read_until(
        [&](const std::string&) { return proc_.err().find(line) != std::string::npos; }, kWait);
  }
  uint16_t port() const { return port_; }
  std::string err() const { return proc_.err(); }
  // SIGKILL: no drain, no release of anything it holds.
  void kill() {
    ::kill(proc_.pid(), SIGKILL);
    proc_.wait(kWait);
    killed_ = true;
  }
  ~Replica() {
    if (killed_) return;
    ::kill(proc_.pid(), SIGTERM);
    EXPECT_EQ(proc_.wait(kWait), 0) << proc_.err();
  }

 private:
  size_t connects_now() const { return count(proc_.err(), "redis: connected to"); }
  Subprocess proc_;
  uint16_t port_ = 0;
  bool killed_ = false;
};

// HAProxy, round-robin over the replicas, in the foreground.
class Balancer {
 public:
  Balancer(const std::string& bin, const fs::path& dir, const std::vector<uint16_t>& backends)
      : port_(free_port()) {
    fs::path cfg = dir / "haproxy.cfg";
    std::ofstream f(cfg);
    f << "global\n  maxconn 200\ndefaults\n  mode http\n  timeout connect 2s\n"
         "  timeout client 30s\n  timeout server 30s\nfrontend fe\n  bind 127.0.0.1:"
      << port_ << "\n  default_backend be\nbackend be\n  balance roundrobin\n";
    for (size_t i = 0; i < backends.size(); ++i)
      f << "  server r" << i << " 127.0.0.1:" << backends[i] << "\n";
    f.close();
    proc_ = std::make_unique<Subprocess>(std::vector<std::string>{bin, "-db", "-f", cfg.string()});
  }
  // HAProxy says nothing once it listens; a connection that is taken says it.
  bool ready() {
    auto deadline = SteadyClock::now() + kWait;
    while (SteadyClock::now() < deadline) {
      RawClient c(port_);
      if (c.connected()) return true;
      // Not bound yet: wait for HAProxy to write or exit, at most 20 ms.
      if (proc_->read_until([](const std::string&) { return false; }, Ms(20)) ||
          (proc_->out().find("ALERT") != std::string::npos))
        return false;
    }
    return false;
  }
  uint16_t port() const { return port_; }
  ~Balancer() {
    ::kill(proc_->pid(), SIGTERM);
    proc_->wait(kWait);
  }

 private:
  uint16_t port_;
  std::unique_ptr<Subprocess> proc_;
};

std::optional<HttpResponse> call(uint16_t port, std::string_view method, std::string_view path,
                                 const std::string& body, const std::string& key = "") {
  RawClient c(port);
  if (!c.connected()) return std::nullopt;
  std::string req = std::string(method) + " " + std::string(path) +
                    " HTTP/1.1\r\nHost: 127.0.0.1\r\nConnection: close\r\n";
  if (!key.empty()) req += "Authorization: Bearer " + key + "\r\n";
  if (!body.empty())
    req +=
        "Content-Type: application/json\r\nContent-Length: " + std::to_string(body.size()) + "\r\n";
  req += "\r\n" + body;
  if (!c.send(req)) return std::nullopt;
  return c.read_response(kWait);
}

int status_of(const std::optional<HttpResponse>& r) { return r ? r->status : -1; }

std::string chat(const std::string& text, bool stream = false) {
  return json{{"model", "gpt-test"},
              {"stream", stream},
              {"messages", {{{"role", "user"}, {"content", text}}}}}
      .dump();
}

constexpr const char* kAnswer =
    R"({"id":"c1","object":"chat.completion","created":1,"model":"m","choices":[{"index":0,)"
    R"("message":{"role":"assistant","content":"the first answer"},"finish_reason":"stop"}],)"
    R"("usage":{"prompt_tokens":1,"completion_tokens":1,"total_tokens":2}})";

class Replicas : public ::testing::Test {
 protected:
  void SetUp() override {
    redis_bin_ = find_program("redis-server");
    haproxy_bin_ = find_program("haproxy");
    if (redis_bin_.empty() || haproxy_bin_.empty())
      GTEST_SKIP() << "redis-server or haproxy not installed (scripts/setup.sh installs both)";
    dir_ = fs::temp_directory_path() /
           ("toolwire-replicas-" + std::to_string(::getpid()) + "-" +
            ::testing::UnitTest::GetInstance()->current_test_info()->name());
    fs::create_directories(dir_);
    setenv("TOOLWIRE_TEST_UPSTREAM_KEY", "upstream-secret", 1);
    setenv("NO_PROXY", "127.0.0.1", 1);
    setenv("no_proxy", "127.0.0.1", 1);
    // The upstream: a whole answer, or a stream that waits for release().
    upstream_.set_handler([](const MockRequest& req) {
      if (req.body.find("\"stream\":true") == std::string::npos)
        return MockResponse::json(200, kAnswer);
      MockResponse r = MockResponse::sse_stream();
      r.sse(
          R"({"id":"c2","object":"chat.completion.chunk","created":1,"model":"m","choices":[{"index":0,"delta":{"role":"assistant","content":"streamed"},"finish_reason":null}]})");
      if (req.body.find("hold") != std::string::npos) r.hold();
      r.sse(
          R"({"id":"c2","object":"chat.completion.chunk","created":1,"model":"m","choices":[{"index":0,"delta":{},"finish_reason":"stop"}]})");
      r.sse("[DONE]");
      return r;
    });
    redis_ = std::make_unique<Redis>(redis_bin_, free_port());
    ASSERT_TRUE(redis_->start()) << "redis-server did not start";
  }

  void TearDown() override {
    upstream_.release();
    balancer_.reset();
    a_.reset();
    b_.reset();
    if (redis_) redis_->stop();
    upstream_.stop();
    if (!dir_.empty()) fs::remove_all(dir_);
  }

  // Two replicas with these keys (YAML list items), behind the balancer.
  void start(const std::string& keys, const std::string& redis_extra = "") {
    fs::path cfg = dir_ / "gw.yaml";
    std::ofstream(cfg) << "log_requests: false\n"
                       << "keys:\n"
                       << keys << "upstreams:\n  up:\n    profile: openai\n    base_url: "
                       << upstream_.url("/v1")
                       << "\n    api_key_env: TOOLWIRE_TEST_UPSTREAM_KEY\n    max_attempts: 1\n"
                       << "routes:\n  - model: '*'\n    upstreams: [up]\n"
                       << "redis:\n  url: redis://127.0.0.1:1/0\n  timeout_ms: 1000\n"
                       << redis_extra;
    // --redis wins over the file's redis.url (which names nothing listening).
    a_ = std::make_unique<Replica>(cfg, redis_->url());
    b_ = std::make_unique<Replica>(cfg, redis_->url());
    ASSERT_TRUE(a_->ready()) << a_->err();
    ASSERT_TRUE(b_->ready()) << b_->err();
    balancer_ = std::make_unique<Balancer>(haproxy_bin_, dir_, std::vector{a_->port(), b_->port()});
    ASSERT_TRUE(balancer_->ready()) << "haproxy did not start";
  }

  static std::string key(const std::string& name, const std::string& secret,
                         const std::string& limits) {
    Subprocess hash({TOOLWIRE_BINARY, "serve", "--hash-key"});
    hash.write_stdin(secret + "\n");
    EXPECT_EQ(hash.wait(kWait), 0);
    std::string h = hash.out();
    while (!h.empty() && h.back() == '\n') h.pop_back();
    return "  - name: " + name + "\n    sha256: \"" + h + "\"\n" + limits;
  }

  // Streams through `r` until one is served (200), for at most `limit`.
  bool stream_within(Replica& r, Ms limit) {
    auto until = SteadyClock::now() + limit;
    while (SteadyClock::now() < until) {
      auto resp = call(r.port(), "POST", "/v1/chat/completions", chat("next", true), "team-secret");
      if (status_of(resp) == 200) return true;
      if (status_of(resp) != 429) return false;
    }
    return false;
  }

  std::string redis_bin_, haproxy_bin_;
  fs::path dir_;
  MockHttpServer upstream_;
  std::unique_ptr<Redis> redis_;
  std::unique_ptr<Replica> a_, b_;
  std::unique_ptr<Balancer> balancer_;
};

// requests_per_minute 4 is the key's, not each replica's: of 8 requests
// round-robin over two replicas, 4 pass (in process, each replica would let
// 4 through: all 8).
TEST_F(Replicas, RequestsPerMinuteAcrossReplicas) {
  start(key("team", "team-secret", "    requests_per_minute: 4\n"));
  int ok = 0, limited = 0;
  std::string retry_after;
  for (int i = 0; i < 8; ++i) {
    auto r = call(balancer_->port(), "POST", "/v1/chat/completions", chat("hi"), "team-secret");
    ASSERT_TRUE(r) << i;
    if (r->status == 200) ++ok;
    if (r->status == 429) {
      ++limited;
      retry_after = r->header("retry-after");
      EXPECT_NE(r->body.find("rate limit of key 'team'"), std::string::npos) << r->body;
    }
  }
  EXPECT_EQ(ok, 4);
  EXPECT_EQ(limited, 4);
  EXPECT_FALSE(retry_after.empty());
  // Both replicas answered (round-robin): each saw requests.
  EXPECT_EQ(upstream_.request_count(), 4u);
  // Neither the key nor its hash is in Redis's key names (checked on the replicas' metrics:
  // the shared limiter ran there).
  auto ma = call(a_->port(), "GET", "/metrics", "");
  auto mb = call(b_->port(), "GET", "/metrics", "");
  ASSERT_TRUE(ma && mb);
  EXPECT_EQ(ma->body.find("toolwire_redis_commands_total 0\n"), std::string::npos);
  EXPECT_EQ(mb->body.find("toolwire_redis_commands_total 0\n"), std::string::npos);
}

// max_concurrent_streams 1: a stream open on replica A takes the key's one
// slot, so a stream on B is refused (429) until A's ends.
TEST_F(Replicas, StreamSlotsAcrossReplicas) {
  start(key("team", "team-secret", "    max_concurrent_streams: 1\n"));
  RawClient held(a_->port());
  std::string body = chat("hold", true);
  ASSERT_TRUE(
      held.send("POST /v1/chat/completions HTTP/1.1\r\nHost: x\r\nAuthorization: Bearer "
                "team-secret\r\nContent-Type: application/json\r\nContent-Length: " +
                std::to_string(body.size()) + "\r\n\r\n" + body));
  ASSERT_TRUE(upstream_.wait_for_requests(1, kWait));  // A holds its lease now
  auto refused =
      call(b_->port(), "POST", "/v1/chat/completions", chat("second", true), "team-secret");
  EXPECT_EQ(status_of(refused), 429) << (refused ? refused->body : "");
  if (refused) {
    EXPECT_NE(refused->body.find("already has 1 streams open"), std::string::npos);
  }
  upstream_.release();
  auto first = held.read_response(kWait);
  ASSERT_TRUE(first);
  EXPECT_EQ(first->status, 200);
  EXPECT_NE(first->body.find("streamed"), std::string::npos);
  // A releases its lease as its stream ends (one ZREM after the last
  // byte): B may stream again at once, long before the lease (30 s) ran out.
  EXPECT_TRUE(stream_within(*b_, Ms(2000)));
}

// A replica that dies holding a slot gives it back when its lease runs out
// (stream_lease_ms 1000); while it lives, it renews the lease.
TEST_F(Replicas, DeadReplicasSlotComesBack) {
  start(key("team", "team-secret", "    max_concurrent_streams: 1\n"), "  stream_lease_ms: 1000\n");
  RawClient held(a_->port());
  std::string body = chat("hold", true);
  ASSERT_TRUE(
      held.send("POST /v1/chat/completions HTTP/1.1\r\nHost: x\r\nAuthorization: Bearer "
                "team-secret\r\nContent-Type: application/json\r\nContent-Length: " +
                std::to_string(body.size()) + "\r\n\r\n" + body));
  ASSERT_TRUE(upstream_.wait_for_requests(1, kWait));
  // Past two lease lengths, the live stream still holds its slot (renewed).
  auto until = SteadyClock::now() + Ms(2200);
  int refused = 0;
  while (SteadyClock::now() < until) {
    auto r = call(b_->port(), "POST", "/v1/chat/completions", chat("b", true), "team-secret");
    ASSERT_EQ(status_of(r), 429) << "the live stream lost its slot";
    ++refused;
  }
  EXPECT_GT(refused, 0);
  a_->kill();
  auto killed = SteadyClock::now();
  EXPECT_TRUE(stream_within(*b_, Ms(5000)));
  EXPECT_GT(SteadyClock::now() - killed, Ms(300));  // the lease ran out; nobody released it
}

// previous_response_id: an answer made on A is continued on B, with the
// whole conversation sent upstream; another key does not find it.
TEST_F(Replicas, ResponseContinuedOnTheOtherReplica) {
  start(key("team", "team-secret", "") + key("other", "other-secret", ""));
  auto first = call(a_->port(), "POST", "/v1/responses",
                    R"({"model":"gpt-test","input":"my name is Ann"})", "team-secret");
  ASSERT_EQ(status_of(first), 200) << (first ? first->body : "");
  std::string id = json::parse(first->body)["id"];
  std::string next =
      json{{"model", "gpt-test"}, {"input", "what is my name?"}, {"previous_response_id", id}}
          .dump();
  auto second = call(b_->port(), "POST", "/v1/responses", next, "team-secret");
  ASSERT_EQ(status_of(second), 200) << (second ? second->body : "");
  ASSERT_EQ(upstream_.request_count(), 2u);
  json sent = json::parse(upstream_.requests()[1].body);
  ASSERT_EQ(sent["messages"].size(), 3u) << sent.dump();
  EXPECT_EQ(sent["messages"][0]["content"], "my name is Ann");
  EXPECT_EQ(sent["messages"][1]["content"], "the first answer");
  EXPECT_EQ(sent["messages"][2]["content"], "what is my name?");
  // A continuation of a continuation, back on A.
  std::string id2 = json::parse(second->body)["id"];
  auto third =
      call(a_->port(), "POST", "/v1/responses",
           json{{"model", "gpt-test"}, {"input", "and?"}, {"previous_response_id", id2}}.dump(),
           "team-secret");
  ASSERT_EQ(status_of(third), 200);
  EXPECT_EQ(json::parse(upstream_.requests()[2].body)["messages"].size(), 5u);
  // To another key the id does not exist.
  auto stranger = call(b_->port(), "POST", "/v1/responses", next, "other-secret");
  EXPECT_EQ(status_of(stranger), 400);
  if (stranger) {
    EXPECT_NE(stranger->body.find("not found"), std::string::npos) << stranger->body;
  }
}

// Redis goes away mid-run: /ready says so, a continuation gets a clear 503
// in the caller's dialect, limits fall back to each replica's own counters
// (counted); Redis back on the same port: the replicas reconnect, and all of
// it works again.
TEST_F(Replicas, RedisRestartedMidRun) {
  start(key("team", "team-secret", "    requests_per_minute: 1000\n"));
  auto first = call(a_->port(), "POST", "/v1/responses", R"({"model":"gpt-test","input":"one"})",
                    "team-secret");
  ASSERT_EQ(status_of(first), 200);
  std::string id = json::parse(first->body)["id"];
  std::string next =
      json{{"model", "gpt-test"}, {"input", "two"}, {"previous_response_id", id}}.dump();

  redis_->stop();
  ASSERT_TRUE(a_->logged("redis: connection to"));
  ASSERT_TRUE(b_->logged("redis: connection to"));
  auto ready = call(b_->port(), "GET", "/ready", "");
  EXPECT_EQ(status_of(ready), 503);
  if (ready) {
    EXPECT_NE(ready->body.find("redis"), std::string::npos);
  }
  auto lost = call(b_->port(), "POST", "/v1/responses", next, "team-secret");
  EXPECT_EQ(status_of(lost), 503);
  if (lost) {
    EXPECT_NE(lost->body.find("response store (Redis) is unavailable"), std::string::npos)
        << lost->body;
    EXPECT_NO_THROW((void)json::parse(lost->body)["error"]["message"]);
  }
  // Limits fail open: served, counted, logged.
  auto plain = call(balancer_->port(), "POST", "/v1/chat/completions", chat("x"), "team-secret");
  EXPECT_EQ(status_of(plain), 200);
  auto m = call(a_->port(), "GET", "/metrics", "");
  auto mb = call(b_->port(), "GET", "/metrics", "");
  ASSERT_TRUE(m && mb);
  std::string fell = "toolwire_shared_state_fallback_total{feature=\"requests_per_minute\"} 1";
  EXPECT_TRUE(m->body.find(fell) != std::string::npos || mb->body.find(fell) != std::string::npos);

  ASSERT_TRUE(redis_->start());
  ASSERT_TRUE(a_->connected_times(2)) << a_->err();
  ASSERT_TRUE(b_->connected_times(2)) << b_->err();
  EXPECT_EQ(status_of(call(b_->port(), "GET", "/ready", "")), 200);
  // The restarted Redis (nothing persisted) lost the stored answer: a clear
  // 400, not a 503; new answers are shared again.
  auto gone = call(b_->port(), "POST", "/v1/responses", next, "team-secret");
  EXPECT_EQ(status_of(gone), 400);
  auto fresh = call(a_->port(), "POST", "/v1/responses", R"({"model":"gpt-test","input":"three"})",
                    "team-secret");
  ASSERT_EQ(status_of(fresh), 200);
  std::string id3 = json::parse(fresh->body)["id"];
  auto cont =
      call(b_->port(), "POST", "/v1/responses",
           json{{"model", "gpt-test"}, {"input", "four"}, {"previous_response_id", id3}}.dump(),
           "team-secret");
  EXPECT_EQ(status_of(cont), 200) << (cont ? cont->body : "");
}

// limits_on_failure: closed — without Redis, a limited key's request is
// refused with 503 in the caller's dialect instead of served.
TEST_F(Replicas, LimitsFailClosedWhenConfigured) {
  start(key("team", "team-secret", "    requests_per_minute: 1000\n"),
        "  limits_on_failure: closed\n");
  redis_->stop();
  ASSERT_TRUE(a_->logged("redis: connection to"));
  auto r =
      call(a_->port(), "POST", "/v1/messages",
           R"({"model":"claude-x","max_tokens":10,"messages":[{"role":"user","content":"x"}]})",
           "team-secret");
  EXPECT_EQ(status_of(r), 503);
  if (r) {
    EXPECT_NE(r->body.find("\"type\":\"error\""), std::string::npos)
        << r->body;  // Anthropic's shape
    EXPECT_NE(r->body.find("rate limiter (Redis) is unavailable"), std::string::npos) << r->body;
  }
  EXPECT_EQ(upstream_.request_count(), 0u);
}

}  // namespace
}  // namespace toolwire::testing
