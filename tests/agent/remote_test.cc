// Remote tools: the loop emits the call, suspends, and resumes on
// submit_result() or the remote timeout; late and duplicate results are ignored.
#include <gtest/gtest.h>

#include <chrono>
#include <mutex>
#include <thread>

#include "fake_provider.h"
#include "toolwire/agent/agent.h"
#include "toolwire/agent/history.h"

namespace toolwire::agent {
namespace {

using namespace std::chrono_literals;
using testing::calls_turn;
using testing::FakeProvider;
using testing::text_turn;

RemoteTool remote(std::string name) {
  RemoteTool t;
  t.definition.name = std::move(name);
  t.definition.description = "runs on the phone";
  return t;
}

std::vector<ir::ToolResultPart> results_in(const ir::Message& m) {
  std::vector<ir::ToolResultPart> out;
  for (const auto& p : m.parts)
    if (auto* r = std::get_if<ir::ToolResultPart>(&p)) out.push_back(*r);
  return out;
}

struct Log {
  std::mutex mu;
  std::vector<std::string> lines;
  std::function<void(std::string_view)> sink() {
    return [this](std::string_view l) {
      std::lock_guard<std::mutex> lock(mu);
      lines.emplace_back(l);
    };
  }
  bool contains(std::string_view what) {
    std::lock_guard<std::mutex> lock(mu);
    for (const auto& l : lines)
      if (l.find(what) != std::string::npos) return true;
    return false;
  }
};

FakeProvider two_round_model(std::vector<testing::CallSpec> calls) {
  return FakeProvider([calls](const ir::Request&, int no) {
    if (no == 1) return calls_turn(calls);
    return text_turn("thanks");
  });
}

TEST(RemoteTools, AnsweredInTimeFromAnotherThread) {
  auto p = two_round_model({{"r1", "take_photo", R"({"zoom":2})"}});
  tools::Registry reg;
  AgentOptions opt;
  opt.remote_tools = {remote("take_photo")};
  Agent agent(p, reg, opt);
  std::jthread phone;
  std::vector<ToolCallEvent> seen;
  RunResult r = agent.run("take a photo", [&](const Event& e) {
    if (auto* c = std::get_if<ToolCallEvent>(&e)) {
      seen.push_back(*c);
      phone = std::jthread([&agent, id = c->call.id] {
        std::this_thread::sleep_for(50ms);
        EXPECT_TRUE(agent.submit_result(id, tools::ToolOutput::text("photo.jpg")).ok());
      });
    }
  });
  EXPECT_EQ(r.reason, StopReason::final_text);
  ASSERT_EQ(seen.size(), 1u);
  EXPECT_TRUE(seen[0].remote);
  EXPECT_EQ(seen[0].call.arguments, R"({"zoom":2})");
  auto res = results_in(agent.history()[2]);
  ASSERT_EQ(res.size(), 1u);
  EXPECT_FALSE(res[0].is_error);
  EXPECT_EQ(result_text(res[0]), "photo.jpg");
  // The remote tool's definition went to the model.
  ASSERT_EQ(p.requests()[0].tools.size(), 1u);
  EXPECT_EQ(p.requests()[0].tools[0].name, "take_photo");
}

TEST(RemoteTools, AnsweredInsideTheEventCallback) {
  auto p = two_round_model({{"r1", "take_photo", "{}"}});
  tools::Registry reg;
  AgentOptions opt;
  opt.remote_tools = {remote("take_photo")};
  Agent agent(p, reg, opt);
  RunResult r = agent.run("x", [&](const Event& e) {
    if (auto* c = std::get_if<ToolCallEvent>(&e)) {
      EXPECT_TRUE(agent.submit_error(c->call.id, "camera busy").ok());
    }
  });
  EXPECT_EQ(r.reason, StopReason::final_text);
  auto res = results_in(agent.history()[2]);
  ASSERT_EQ(res.size(), 1u);
  EXPECT_TRUE(res[0].is_error);
  EXPECT_EQ(result_text(res[0]), "camera busy");
}

TEST(RemoteTools, TimeoutGivesToolResultTimeoutAndLateResultIsIgnored) {
  auto p = two_round_model({{"r1", "take_photo", "{}"}});
  tools::Registry reg;
  Log log;
  AgentOptions opt;
  opt.remote_tools = {remote("take_photo")};
  opt.remote_timeout = 150ms;
  opt.log = log.sink();
  Agent agent(p, reg, opt);
  auto t0 = std::chrono::steady_clock::now();
  RunResult r = agent.run("x");
  auto took = std::chrono::steady_clock::now() - t0;
  EXPECT_GE(took, 140ms);
  EXPECT_LT(took, 2s);
  EXPECT_EQ(r.reason, StopReason::final_text);
  auto res = results_in(agent.history()[2]);
  ASSERT_EQ(res.size(), 1u);
  EXPECT_TRUE(res[0].is_error);
  EXPECT_EQ(result_text(res[0]).rfind("tool_result_timeout", 0), 0u) << result_text(res[0]);
  // The model saw the timeout.
  EXPECT_EQ(results_in(p.requests()[1].messages.back())[0].call_id, "r1");
  Status late = agent.submit_result("r1", tools::ToolOutput::text("too late"));
  EXPECT_FALSE(late.ok());
  EXPECT_EQ(late.error().code, ErrorCode::failed_precondition);
  EXPECT_TRUE(log.contains("late result for call 'r1'"));
  EXPECT_EQ(result_text(results_in(agent.history()[2])[0]).rfind("tool_result_timeout", 0), 0u);
}

TEST(RemoteTools, PerToolTimeoutOverridesTheDefault) {
  auto p = two_round_model({{"r1", "quick_remote", "{}"}});
  tools::Registry reg;
  AgentOptions opt;
  RemoteTool t = remote("quick_remote");
  t.timeout = 50ms;
  opt.remote_tools = {t};
  opt.remote_timeout = 30s;
  Agent agent(p, reg, opt);
  auto t0 = std::chrono::steady_clock::now();
  agent.run("x");
  EXPECT_LT(std::chrono::steady_clock::now() - t0, 2s);
}

TEST(RemoteTools, DuplicateAndUnknownResultsAreIgnoredAndLogged) {
  auto p = two_round_model({{"r1", "take_photo", "{}"}});
  tools::Registry reg;
  Log log;
  AgentOptions opt;
  opt.remote_tools = {remote("take_photo")};
  opt.log = log.sink();
  Agent agent(p, reg, opt);
  Status first, second, unknown;
  RunResult r = agent.run("x", [&](const Event& e) {
    if (auto* c = std::get_if<ToolCallEvent>(&e)) {
      first = agent.submit_result(c->call.id, tools::ToolOutput::text("one"));
      second = agent.submit_result(c->call.id, tools::ToolOutput::text("two"));
      unknown = agent.submit_result("who", tools::ToolOutput::text("?"));
    }
  });
  EXPECT_TRUE(first.ok());
  EXPECT_FALSE(second.ok());
  EXPECT_FALSE(unknown.ok());
  EXPECT_TRUE(log.contains("duplicate result for call 'r1' ignored"));
  EXPECT_TRUE(log.contains("unknown call 'who'"));
  auto res = results_in(agent.history()[2]);
  ASSERT_EQ(res.size(), 1u);
  EXPECT_EQ(result_text(res[0]), "one");
  // After the run, still a duplicate.
  EXPECT_FALSE(agent.submit_result("r1", tools::ToolOutput::text("three")).ok());
}

TEST(RemoteTools, SeveralPendingAtOnceAnsweredOutOfOrder) {
  auto p = two_round_model(
      {{"r1", "take_photo", "{}"}, {"r2", "get_location", "{}"}, {"r3", "local_echo", "{}"}});
  tools::Registry reg;
  tools::ToolSpec echo;
  echo.name = "local_echo";
  echo.handler = tools::SyncHandler(
      [](const nlohmann::json&, tools::ToolContext&) { return tools::ToolOutput::text("here"); });
  ASSERT_TRUE(reg.add(std::move(echo)).ok());
  AgentOptions opt;
  opt.remote_tools = {remote("take_photo"), remote("get_location")};
  Agent agent(p, reg, opt);
  std::jthread phone;
  std::vector<std::string> pending_seen;
  int remote_calls = 0;
  RunResult r = agent.run("x", [&](const Event& e) {
    auto* c = std::get_if<ToolCallEvent>(&e);
    if (!c || !c->remote || ++remote_calls < 2) return;
    phone = std::jthread([&] {
      std::this_thread::sleep_for(30ms);
      pending_seen = agent.pending_remote_calls();
      EXPECT_TRUE(agent.submit_result("r2", tools::ToolOutput::text("Oslo")).ok());
      std::this_thread::sleep_for(30ms);
      EXPECT_TRUE(agent.submit_result("r1", tools::ToolOutput::text("photo")).ok());
    });
  });
  EXPECT_EQ(r.reason, StopReason::final_text);
  EXPECT_EQ(pending_seen, (std::vector<std::string>{"r1", "r2"}));
  auto res = results_in(agent.history()[2]);
  ASSERT_EQ(res.size(), 3u);
  EXPECT_EQ(res[0].call_id, "r1");
  EXPECT_EQ(result_text(res[0]), "photo");
  EXPECT_EQ(result_text(res[1]), "Oslo");
  EXPECT_EQ(result_text(res[2]), "here");
  EXPECT_TRUE(check_history(agent.history()).ok());
}

TEST(RemoteTools, InvalidArgumentsAreAnsweredWithoutWaiting) {
  auto p = two_round_model({{"r1", "take_photo", "{broken"}});
  tools::Registry reg;
  AgentOptions opt;
  opt.remote_tools = {remote("take_photo")};
  opt.remote_timeout = 10s;
  Agent agent(p, reg, opt);
  auto t0 = std::chrono::steady_clock::now();
  agent.run("x");
  EXPECT_LT(std::chrono::steady_clock::now() - t0, 2s);
  auto res = results_in(agent.history()[2]);
  ASSERT_EQ(res.size(), 1u);
  EXPECT_TRUE(res[0].is_error);
}

}  // namespace
}  // namespace toolwire::agent
