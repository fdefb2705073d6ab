// The agent loop over a programmable provider: rounds, parallel and failing
// tools, limits, the end-turn tool, cancellation and the history window.
#include <gtest/gtest.h>

#include <atomic>
#include <chrono>
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
using Clock = std::chrono::steady_clock;

tools::ToolSpec sleepy_tool(std::string name, std::chrono::milliseconds d,
                            std::atomic<int>* runs = nullptr) {
  tools::ToolSpec s;
  s.name = std::move(name);
  s.description = "sleeps";
  s.handler = tools::SyncHandler([d, runs](const nlohmann::json&, tools::ToolContext& ctx) {
    if (runs) ++*runs;
    if (ctx.cancel.wait_for(d)) return tools::ToolOutput::error("interrupted");
    return tools::ToolOutput::text("slept");
  });
  return s;
}

tools::ToolSpec echo_tool() {
  tools::ToolSpec s;
  s.name = "echo";
  s.description = "echo";
  s.input_schema = R"({"type":"object","properties":{"x":{"type":"string"}},"required":["x"]})";
  s.handler = tools::SyncHandler([](const nlohmann::json& a, tools::ToolContext&) {
    return tools::ToolOutput::text("echo:" + a["x"].get<std::string>());
  });
  return s;
}

std::vector<ir::ToolResultPart> results_in(const ir::Message& m) {
  std::vector<ir::ToolResultPart> out;
  for (const auto& p : m.parts)
    if (auto* r = std::get_if<ir::ToolResultPart>(&p)) out.push_back(*r);
  return out;
}

struct Recorder {
  std::vector<Event> events;
  EventSink sink() {
    return [this](const Event& e) { events.push_back(e); };
  }
  template <class T>
  std::vector<T> all() const {
    std::vector<T> out;
    for (const auto& e : events)
      if (auto* t = std::get_if<T>(&e)) out.push_back(*t);
    return out;
  }
};

TEST(AgentLoop, FinalTextStreamsDeltasThenStops) {
  FakeProvider p([](const ir::Request&, int) { return text_turn("Hello there"); });
  tools::Registry reg;
  Agent agent(p, reg);
  Recorder rec;
  RunResult r = agent.run("hi", rec.sink());
  EXPECT_EQ(r.reason, StopReason::final_text);
  EXPECT_EQ(r.text, "Hello there");
  EXPECT_EQ(r.rounds, 1);
  ASSERT_EQ(rec.all<TextDeltaEvent>().size(), 2u);
  EXPECT_EQ(rec.all<TextDeltaEvent>()[0].text + rec.all<TextDeltaEvent>()[1].text, "Hello there");
  ASSERT_TRUE(std::holds_alternative<FinalAnswerEvent>(rec.events.back()));
  ASSERT_EQ(rec.all<RoundFinishedEvent>().size(), 1u);
  EXPECT_EQ(rec.all<RoundFinishedEvent>()[0].usage.output_tokens, 5);
  ASSERT_EQ(agent.history().size(), 2u);
  EXPECT_EQ(agent.history()[1].role, ir::Role::assistant);
  EXPECT_EQ(*r.usage.input_tokens, 10);
}

TEST(AgentLoop, ParallelCallsRunConcurrentlyAndKeepCallOrder) {
  std::atomic<int> runs{0};
  FakeProvider p([](const ir::Request&, int no) {
    if (no == 1)
      return calls_turn(
          {{"c1", "slow_a", "{}"}, {"c2", "slow_b", "{}"}, {"c3", "echo", R"({"x":"y"})"}});
    return text_turn("done");
  });
  tools::Registry reg;
  ASSERT_TRUE(reg.add(sleepy_tool("slow_a", 300ms, &runs)).ok());
  ASSERT_TRUE(reg.add(sleepy_tool("slow_b", 300ms, &runs)).ok());
  ASSERT_TRUE(reg.add(echo_tool()).ok());
  Agent agent(p, reg);
  Recorder rec;
  auto t0 = Clock::now();
  RunResult r = agent.run("go", rec.sink());
  auto took = Clock::now() - t0;
  EXPECT_EQ(r.reason, StopReason::final_text);
  EXPECT_EQ(r.rounds, 2);
  EXPECT_EQ(runs.load(), 2);
  EXPECT_LT(took, 550ms) << "two 300 ms tools should overlap";
  ASSERT_EQ(rec.all<ToolCallEvent>().size(), 3u);
  ASSERT_EQ(rec.all<ToolResultEvent>().size(), 3u);
  // The tool message keeps call order whatever the finishing order was.
  ASSERT_EQ(agent.history().size(), 4u);
  auto res = results_in(agent.history()[2]);
  ASSERT_EQ(res.size(), 3u);
  EXPECT_EQ(res[0].call_id, "c1");
  EXPECT_EQ(res[1].call_id, "c2");
  EXPECT_EQ(res[2].call_id, "c3");
  EXPECT_EQ(result_text(res[2]), "echo:y");
  // The second request carried the results back to the model.
  auto reqs = p.requests();
  ASSERT_EQ(reqs.size(), 2u);
  EXPECT_EQ(reqs[1].messages.size(), 3u);
  EXPECT_EQ(reqs[1].tools.size(), 3u);
  EXPECT_TRUE(check_history(agent.history()).ok());
}

TEST(AgentLoop, SequentialWhenParallelCallsAreOff) {
  FakeProvider p([](const ir::Request&, int no) {
    if (no == 1) return calls_turn({{"c1", "slow_a", "{}"}, {"c2", "slow_b", "{}"}});
    return text_turn("done");
  });
  tools::Registry reg;
  ASSERT_TRUE(reg.add(sleepy_tool("slow_a", 150ms)).ok());
  ASSERT_TRUE(reg.add(sleepy_tool("slow_b", 150ms)).ok());
  AgentOptions opt;
  opt.parallel_tool_calls = false;
  Agent agent(p, reg, opt);
  auto t0 = Clock::now();
  RunResult r = agent.run("go");
  EXPECT_GE(Clock::now() - t0, 290ms);
  EXPECT_EQ(r.reason, StopReason::final_text);
  ASSERT_TRUE(p.requests()[0].parallel_tool_calls.has_value());
  EXPECT_FALSE(*p.requests()[0].parallel_tool_calls);
}

TEST(AgentLoop, FailingToolBecomesAnErrorResultAndTheLoopGoesOn) {
  FakeProvider p([](const ir::Request&, int no) {
    if (no == 1)
      return calls_turn({{"c1", "boom", "{}"},
                         {"c2", "echo", R"({"wrong":1})"},
                         {"c3", "nope", "{}"},
                         {"c4", "echo", "{not json"}});
    return text_turn("recovered");
  });
  tools::Registry reg;
  tools::ToolSpec boom;
  boom.name = "boom";
  boom.handler =
      tools::SyncHandler([](const nlohmann::json&, tools::ToolContext&) -> tools::ToolOutput {
        throw std::runtime_error("disk on fire");
      });
  ASSERT_TRUE(reg.add(std::move(boom)).ok());
  ASSERT_TRUE(reg.add(echo_tool()).ok());
  Agent agent(p, reg);
  RunResult r = agent.run("go");
  EXPECT_EQ(r.reason, StopReason::final_text);
  EXPECT_EQ(r.text, "recovered");
  auto res = results_in(agent.history()[2]);
  ASSERT_EQ(res.size(), 4u);
  for (const auto& x : res) EXPECT_TRUE(x.is_error) << result_text(x);
  EXPECT_NE(result_text(res[0]).find("disk on fire"), std::string::npos);
  // The model saw the errors in its next request.
  auto second = p.requests()[1];
  auto sent = results_in(second.messages.back());
  ASSERT_EQ(sent.size(), 4u);
  EXPECT_TRUE(sent[1].is_error);
}

TEST(AgentLoop, RoundLimitStopsWithAValidHistory) {
  FakeProvider p([](const ir::Request&, int no) {
    return calls_turn({{"c" + std::to_string(no), "echo", R"({"x":"again"})"}});
  });
  tools::Registry reg;
  ASSERT_TRUE(reg.add(echo_tool()).ok());
  AgentOptions opt;
  opt.max_rounds = 3;
  Agent agent(p, reg, opt);
  Recorder rec;
  RunResult r = agent.run("loop forever", rec.sink());
  EXPECT_EQ(r.reason, StopReason::round_limit);
  EXPECT_EQ(r.rounds, 3);
  EXPECT_EQ(p.requests().size(), 3u);
  EXPECT_EQ(rec.all<RoundFinishedEvent>().size(), 3u);
  EXPECT_EQ(rec.all<FinalAnswerEvent>().back().reason, StopReason::round_limit);
  EXPECT_TRUE(check_history(agent.history()).ok())
      << check_history(agent.history()).error().to_string();
  EXPECT_EQ(agent.history().back().role, ir::Role::tool);
}

TEST(AgentLoop, DefaultRoundLimitIsEight) {
  FakeProvider p([](const ir::Request&, int no) {
    return calls_turn({{"c" + std::to_string(no), "echo", R"({"x":"a"})"}});
  });
  tools::Registry reg;
  ASSERT_TRUE(reg.add(echo_tool()).ok());
  Agent agent(p, reg);
  EXPECT_EQ(agent.run("x").rounds, 8);
}

TEST(AgentLoop, EndTurnToolEndsTheRun) {
  FakeProvider p([](const ir::Request& req, int no) {
    if (no == 1) return calls_turn({{"c1", "echo", R"({"x":"a"})"}});
    return calls_turn(
        {{"c2", "final_answer", R"({"answer":"42"})"}, {"c3", "echo", R"({"x":"b"})"}});
  });
  tools::Registry reg;
  ASSERT_TRUE(reg.add(echo_tool()).ok());
  AgentOptions opt;
  opt.end_turn_tool = "final_answer";
  Agent agent(p, reg, opt);
  RunResult r = agent.run("what is the answer");
  EXPECT_EQ(r.reason, StopReason::end_turn_tool);
  EXPECT_EQ(r.text, "42");
  EXPECT_EQ(r.rounds, 2);
  EXPECT_EQ(p.requests().size(), 2u);
  // The agent offered the tool, and every call (the end-turn one too) has a result.
  bool offered = false;
  const auto requests = p.requests();  // a copy: ranging over a temporary's member would dangle
  for (const auto& t : requests[0].tools) offered |= t.name == "final_answer";
  EXPECT_TRUE(offered);
  EXPECT_TRUE(check_history(agent.history()).ok());
  auto res = results_in(agent.history().back());
  ASSERT_EQ(res.size(), 2u);
  EXPECT_FALSE(res[0].is_error);
  EXPECT_EQ(result_text(res[1]), "echo:b");
}

TEST(AgentLoop, ProviderErrorIsReportedAndHistoryStaysValid) {
  FakeProvider p([](const ir::Request&, int) {
    return std::vector<ir::StreamEvent>{ir::MessageStart{}, ir::TextDelta{"par"},
                                        ir::ErrorEvent{"overloaded_error", "Overloaded"}};
  });
  tools::Registry reg;
  Agent agent(p, reg);
  Recorder rec;
  RunResult r = agent.run("hi", rec.sink());
  EXPECT_EQ(r.reason, StopReason::error);
  ASSERT_TRUE(r.error.has_value());
  EXPECT_NE(r.error->message.find("Overloaded"), std::string::npos);
  ASSERT_EQ(rec.all<ErrorEvent>().size(), 1u);
  EXPECT_EQ(agent.history().size(), 1u);  // the failed turn left nothing half-written
}

TEST(AgentLoop, CancelDuringToolsSynthesizesResults) {
  FakeProvider p([](const ir::Request&, int) {
    return calls_turn({{"c1", "quick", "{}"}, {"c2", "stuck", "{}"}, {"c3", "phone", "{}"}});
  });
  tools::Registry reg;
  ASSERT_TRUE(reg.add(sleepy_tool("quick", 1ms)).ok());
  ASSERT_TRUE(reg.add(sleepy_tool("stuck", 20s)).ok());
  AgentOptions opt;
  opt.remote_tools = {{ir::ToolDefinition{"phone", "remote", R"({"type":"object"})", {}}, {}}};
  Agent agent(p, reg, opt);
  std::jthread canceller;
  auto t0 = Clock::now();
  RunResult r = agent.run("go", [&](const Event& e) {
    if (std::holds_alternative<ToolCallEvent>(e) && !canceller.joinable())
      canceller = std::jthread([&] {
        std::this_thread::sleep_for(100ms);
        agent.cancel();
      });
  });
  EXPECT_LT(Clock::now() - t0, 5s);
  EXPECT_EQ(r.reason, StopReason::cancelled);
  EXPECT_EQ(p.requests().size(), 1u);
  ASSERT_TRUE(check_history(agent.history()).ok())
      << check_history(agent.history()).error().to_string();
  auto res = results_in(agent.history().back());
  ASSERT_EQ(res.size(), 3u);
  EXPECT_FALSE(res[0].is_error);
  EXPECT_TRUE(res[1].is_error);
  EXPECT_NE(result_text(res[1]).find("cancelled"), std::string::npos);
  EXPECT_TRUE(res[2].is_error);
  EXPECT_EQ(result_text(res[2]), "cancelled");
  EXPECT_TRUE(agent.pending_remote_calls().empty());
  // A late answer to the cancelled remote call is ignored.
  EXPECT_FALSE(agent.submit_result("c3", tools::ToolOutput::text("photo")).ok());
}

TEST(AgentLoop, CancelMidStreamDropsTheHalfTurnAndTheNextRunWorks) {
  FakeProvider p([](const ir::Request&, int no) {
    if (no == 1) return calls_turn({{"c1", "echo", R"({"x":"never"})"}}, "thinking about it");
    return text_turn("fresh start");
  });
  p.event_delay = 30ms;
  tools::Registry reg;
  ASSERT_TRUE(reg.add(echo_tool()).ok());
  AgentOptions opt;
  opt.log = [](std::string_view) {};
  Agent agent(p, reg, opt);
  Recorder rec;
  RunResult r = agent.run("go", [&](const Event& e) {
    rec.events.push_back(e);
    if (std::holds_alternative<TextDeltaEvent>(e)) agent.cancel();  // from inside the callback
  });
  EXPECT_EQ(r.reason, StopReason::cancelled);
  EXPECT_TRUE(rec.all<ToolCallEvent>().empty());
  EXPECT_TRUE(rec.all<ToolResultEvent>().empty());
  ASSERT_EQ(agent.history().size(), 1u);
  EXPECT_TRUE(check_history(agent.history()).ok());
  RunResult r2 = agent.run("again");
  EXPECT_EQ(r2.reason, StopReason::final_text);
  EXPECT_EQ(r2.text, "fresh start");
}

TEST(AgentLoop, HistoryWindowKeepsToolPairsTogether) {
  FakeProvider p([](const ir::Request& req, int no) {
    // Odd calls make a tool call, even ones answer.
    if (no % 2 == 1)
      return calls_turn({{"c" + std::to_string(no), "echo", R"({"x":"v"})"},
                         {"d" + std::to_string(no), "echo", R"({"x":"w"})"}});
    return text_turn("ok " + std::to_string(no));
  });
  tools::Registry reg;
  ASSERT_TRUE(reg.add(echo_tool()).ok());
  AgentOptions opt;
  opt.max_turns = 2;
  Agent agent(p, reg, opt);
  for (int i = 0; i < 4; ++i)
    ASSERT_EQ(agent.run("turn " + std::to_string(i)).reason, StopReason::final_text);
  EXPECT_EQ(agent.history().size(), 16u);  // the agent keeps everything
  for (const auto& req : p.requests()) {
    ASSERT_FALSE(req.messages.empty());
    EXPECT_EQ(req.messages.front().role, ir::Role::user);
    EXPECT_TRUE(check_history(req.messages, /*allow_open_calls=*/false).ok());
  }
  auto last = p.requests().back();
  // Two turns: [user, assistant(calls), tool, assistant] + [user, assistant(calls), tool].
  EXPECT_EQ(last.messages.size(), 7u);
  EXPECT_EQ(std::get<ir::TextPart>(last.messages.front().parts[0]).text, "turn 2");
}

TEST(History, CheckFindsBrokenHistories) {
  using ir::Message;
  using ir::Role;
  Message user{Role::user, {ir::TextPart{"q"}}, {}};
  Message call{Role::assistant, {ir::ToolCallPart{"a", "t", "{}", true}}, {}};
  Message result{Role::tool, {ir::ToolResultPart{"a", {ir::TextPart{"r"}}, false}}, {}};
  Message stray{Role::tool, {ir::ToolResultPart{"zz", {}, false}}, {}};
  EXPECT_TRUE(check_history({user, call, result}).ok());
  EXPECT_FALSE(check_history({user, call}).ok());
  EXPECT_TRUE(check_history({user, call}, /*allow_open_calls=*/true).ok());
  EXPECT_FALSE(check_history({result, user}).ok());
  auto e = check_history({user, call, result, stray});
  ASSERT_FALSE(e.ok());
  EXPECT_EQ(e.error().path, "$.messages[3].parts[0]");
  EXPECT_FALSE(check_history({user, call, result, result}).ok());
  EXPECT_EQ(window_start({user, call, result, user, call, result}, 1), 3u);
  EXPECT_EQ(window_start({user, call, result, user, call, result}, 5), 0u);
  EXPECT_EQ(window_start({user, call, result}, 0), 0u);
}

TEST(AgentEvents, JsonLines) {
  ToolCallEvent c{2, ir::ToolCallPart{"id1", "read", R"({"path":"a"})", true}, false};
  EXPECT_EQ(
      to_json(c),
      R"({"type":"tool_call","round":2,"id":"id1","name":"read","arguments":{"path":"a"},"remote":false})");
  ToolCallEvent bad{1, ir::ToolCallPart{"id2", "read", "{oops", false}, true};
  EXPECT_EQ(
      to_json(bad),
      R"({"type":"tool_call","round":1,"id":"id2","name":"read","arguments":"{oops","remote":true})");
  FinalAnswerEvent f{StopReason::round_limit, "x\"y", 8};
  EXPECT_EQ(to_json(f), R"({"type":"final_answer","stop":"round_limit","rounds":8,"text":"x\"y"})");
}

}  // namespace
}  // namespace toolwire::agent
