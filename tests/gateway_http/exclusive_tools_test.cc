// Server tools through the real gateway run on the route's tools::Executor:
// a scripted upstream whose turn calls two exclusive tools in parallel gets
// them run one after the other; two ordinary tools of one turn still run at
// the same time (so the recorded intervals can show an overlap at all).
#include <gtest/gtest.h>

#include <chrono>
#include <condition_variable>
#include <map>
#include <mutex>
#include <nlohmann/json.hpp>
#include <string>
#include <vector>

#include "raw_client.h"
#include "toolwire/gateway/gateway.h"
#include "toolwire/gateway/routing.h"
#include "toolwire/provider/scripted.h"

namespace toolwire::testing {
namespace {

using nlohmann::json;
using Clock = std::chrono::steady_clock;

constexpr const char* kScript = R"({"rules": [
  {"user_pattern": "^exclusive$", "calls": [{"name": "ex_a", "arguments": {}},
                                            {"name": "ex_b", "arguments": {}}]},
  {"after_tool": "ex_b", "reply": "exclusive: {{result}}"},
  {"user_pattern": "^parallel$", "calls": [{"name": "par_a", "arguments": {}},
                                           {"name": "par_b", "arguments": {}}]},
  {"after_tool": "par_b", "reply": "parallel: {{result}}"}
], "fallback": "plain"})";

// Each tool records when it ran. While running it waits (bounded) for its
// partner to run too: a partner allowed to run alongside starts within that
// window, so overlap, when permitted, is certain rather than lucky.
struct Recorder {
  std::mutex mu;
  std::condition_variable cv;
  std::map<std::string, std::pair<Clock::time_point, Clock::time_point>> ran;
  std::map<std::string, bool> running;

  tools::ToolSpec tool(const std::string& name, const std::string& partner, bool exclusive,
                       std::chrono::milliseconds window) {
    tools::ToolSpec s;
    s.name = name;
    s.description = "records its interval";
    s.exclusive = exclusive;
    s.handler = tools::SyncHandler([this, name, partner, window](const json&, tools::ToolContext&) {
      std::unique_lock lock(mu);
      auto t0 = Clock::now();
      running[name] = true;
      cv.notify_all();
      // The partner runs now, or ran (and ended) since this call began.
      bool met = cv.wait_for(lock, window, [&] {
        return running[partner] || (ran.count(partner) && ran[partner].first >= t0);
      });
      running[name] = false;
      ran[name] = {t0, Clock::now()};
      cv.notify_all();
      return tools::ToolOutput::text(met ? "met" : "alone");
    });
    return s;
  }

  static bool overlap(const std::pair<Clock::time_point, Clock::time_point>& a,
                      const std::pair<Clock::time_point, Clock::time_point>& b) {
    return a.first < b.second && b.first < a.second;
  }
};

class ExclusiveTools : public ::testing::Test {
 protected:
  void SetUp() override {
    auto reg = std::make_shared<tools::Registry>();
    // An exclusive tool waits 300 ms for its partner: long enough to be
    // seen running alongside it, if the gateway let it.
    ASSERT_TRUE(reg->add(rec_.tool("ex_a", "ex_b", true, std::chrono::milliseconds(300))));
    ASSERT_TRUE(reg->add(rec_.tool("ex_b", "ex_a", true, std::chrono::milliseconds(300))));
    ASSERT_TRUE(reg->add(rec_.tool("par_a", "par_b", false, std::chrono::seconds(5))));
    ASSERT_TRUE(reg->add(rec_.tool("par_b", "par_a", false, std::chrono::seconds(5))));
    auto script = provider::parse_script(kScript);
    ASSERT_TRUE(script) << script.error().to_string();
    auto router = std::make_shared<gateway::PatternRouter>();
    auto* p = router->own(std::make_unique<provider::ScriptedProvider>(std::move(*script)));
    auto tools = std::make_shared<gateway::RouteTools>();
    tools->mode = gateway::ToolMode::server;
    tools->registry = reg;
    router->add_route({.pattern = "*", .aliases = {}, .targets = {{p, "", "scripted", tools}}});
    gateway::GatewayOptions opt;
    opt.host = "127.0.0.1";
    opt.port = 0;
    opt.threads = 2;
    opt.tool_threads = 4;
    opt.log = [](std::string_view) {};
    gw_ = std::make_unique<gateway::Gateway>(opt, router);
    ASSERT_TRUE(gw_->start().ok());
  }
  void TearDown() override {
    gw_->stop();
    gw_->wait();
  }

  std::string ask(const std::string& text, bool stream) {
    RawClient c(gw_->port());
    json body = {
        {"model", "m"}, {"stream", stream}, {"messages", {{{"role", "user"}, {"content", text}}}}};
    EXPECT_TRUE(c.send(http_post("/v1/chat/completions", body.dump())));
    auto r = c.read_response();
    if (!r) return "no response";
    EXPECT_EQ(r->status, 200) << r->body;
    return r->body;
  }

  Recorder rec_;
  std::unique_ptr<gateway::Gateway> gw_;
};

TEST_F(ExclusiveTools, TwoExclusiveCallsOfOneTurnNeverOverlap) {
  std::string body = ask("exclusive", false);
  json j = json::parse(body, nullptr, false);
  ASSERT_FALSE(j.is_discarded()) << body;
  // ex_b ran alone: ex_a did not run beside it (the script shows ex_b's result).
  EXPECT_EQ(j["choices"][0]["message"]["content"], "exclusive: alone") << body;
  std::lock_guard lock(rec_.mu);
  ASSERT_EQ(rec_.ran.count("ex_a"), 1u);
  ASSERT_EQ(rec_.ran.count("ex_b"), 1u);
  EXPECT_FALSE(Recorder::overlap(rec_.ran["ex_a"], rec_.ran["ex_b"]));
}

TEST_F(ExclusiveTools, TwoExclusiveCallsNeverOverlapInAStreamEither) {
  std::string body = ask("exclusive", true);
  EXPECT_NE(body.find("exclusive: alone"), std::string::npos) << body;
  std::lock_guard lock(rec_.mu);
  ASSERT_EQ(rec_.ran.count("ex_a"), 1u);
  ASSERT_EQ(rec_.ran.count("ex_b"), 1u);
  EXPECT_FALSE(Recorder::overlap(rec_.ran["ex_a"], rec_.ran["ex_b"]));
}

TEST_F(ExclusiveTools, OrdinaryCallsOfOneTurnOverlap) {
  std::string body = ask("parallel", false);
  json j = json::parse(body, nullptr, false);
  ASSERT_FALSE(j.is_discarded()) << body;
  EXPECT_EQ(j["choices"][0]["message"]["content"], "parallel: met") << body;
  std::lock_guard lock(rec_.mu);
  ASSERT_EQ(rec_.ran.count("par_a"), 1u);
  ASSERT_EQ(rec_.ran.count("par_b"), 1u);
  EXPECT_TRUE(Recorder::overlap(rec_.ran["par_a"], rec_.ran["par_b"]));
}

}  // namespace
}  // namespace toolwire::testing
