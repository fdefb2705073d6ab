// The asynchronous agent loop (AgentRun): steps run only inside functions
// posted to the caller's scheduler; remote results come from other threads;
// a stuck local tool times out without holding the run; cancel works in
// every state; a thousand runs wait for remote results on one thread.
#include <gtest/gtest.h>

#include <atomic>
#include <chrono>
#include <condition_variable>
#include <deque>
#include <filesystem>
#include <future>
#include <mutex>
#include <thread>

#include "fake_provider.h"
#include "toolwire/agent/agent_run.h"
#include "toolwire/agent/history.h"
#include "toolwire/agent/run_loop.h"

namespace toolwire::agent {
namespace {

using namespace std::chrono_literals;
using testing::calls_turn;
using testing::FakeProvider;
using testing::text_turn;
using Clock = std::chrono::steady_clock;

// Threads of this process. Compared with <=: a thread another test joined may
// leave /proc a moment later, but none may be added.
size_t thread_count() {
  size_t n = 0;
  for ([[maybe_unused]] const auto& e : std::filesystem::directory_iterator("/proc/self/task")) ++n;
  return n;
}

// A scheduler the test drives by hand: posted functions wait in a queue until
// drained on the test thread; timers fire only when the test says so.
struct ManualQueue {
  std::mutex mu;
  std::condition_variable cv;
  std::deque<std::function<void()>> queue;
  struct Timer {
    std::chrono::milliseconds delay{0};
    std::function<void()> fn;
    bool cancelled = false;
  };
  std::vector<std::shared_ptr<Timer>> timers;
  std::atomic<bool> inside{false};  // a posted function or timer is running
  std::thread::id owner = std::this_thread::get_id();
  std::atomic<int> misplaced{0};  // post_after / timer cancel outside a step

  Scheduler scheduler() {
    Scheduler s;
    s.post = [this](std::function<void()> f) {
      {
        std::lock_guard<std::mutex> lock(mu);
        queue.push_back(std::move(f));
      }
      cv.notify_all();
    };
    s.post_after = [this](std::chrono::milliseconds d, std::function<void()> f) {
      if (!in_step()) ++misplaced;
      auto t = std::make_shared<Timer>(Timer{d, std::move(f), false});
      std::lock_guard<std::mutex> lock(mu);
      timers.push_back(t);
      return TimerHandle([this, t] {
        if (!in_step()) ++misplaced;
        t->cancelled = true;
      });
    };
    return s;
  }

  bool in_step() const { return inside.load() && std::this_thread::get_id() == owner; }

  std::function<void()> pop() {
    std::lock_guard<std::mutex> lock(mu);
    if (queue.empty()) return {};
    auto f = std::move(queue.front());
    queue.pop_front();
    return f;
  }
  void run(const std::function<void()>& f) {
    inside = true;
    f();
    inside = false;
  }
  size_t size() {
    std::lock_guard<std::mutex> lock(mu);
    return queue.size();
  }
  // Runs what is queued, also what that posts.
  size_t drain() {
    size_t n = 0;
    while (auto f = pop()) {
      run(f);
      ++n;
    }
    return n;
  }
  // Drains, waiting for posts from other threads, until `done` (bounded).
  bool drain_until(const std::function<bool()>& done, std::chrono::seconds limit = 10s) {
    auto deadline = Clock::now() + limit;
    while (!done()) {
      std::function<void()> f;
      {
        std::unique_lock<std::mutex> lock(mu);
        if (!cv.wait_until(lock, deadline, [&] { return !queue.empty(); })) return done();
        f = std::move(queue.front());
        queue.pop_front();
      }
      run(f);
    }
    return true;
  }
  // Fires every live timer now (as if its delay passed).
  size_t fire_timers() {
    std::vector<std::shared_ptr<Timer>> ts;
    {
      std::lock_guard<std::mutex> lock(mu);
      ts.swap(timers);
    }
    size_t n = 0;
    for (auto& t : ts)
      if (!t->cancelled && t->fn) {
        run(t->fn);
        ++n;
      }
    return n;
  }
};

// A provider that keeps each call open until the test finishes it.
class ManualProvider final : public provider::Provider {
 public:
  struct Call {
    provider::EventCallback on_event;
    provider::DoneCallback done;
    std::shared_ptr<std::atomic<bool>> cancelled = std::make_shared<std::atomic<bool>>(false);
  };
  std::string_view name() const override { return "manual"; }
  const provider::Capabilities& capabilities() const override { return caps_; }
  provider::ProviderCall generate(ir::Request r, provider::DoneCallback done) override {
    return stream(std::move(r), {}, std::move(done));
  }
  provider::ProviderCall stream(ir::Request, provider::EventCallback on_event,
                                provider::DoneCallback done) override {
    Call c{std::move(on_event), std::move(done)};
    auto flag = c.cancelled;
    std::lock_guard<std::mutex> lock(mu_);
    calls_.push_back(std::move(c));
    return provider::ProviderCall([flag] { flag->store(true); });
  }
  Call call(size_t i) {
    std::lock_guard<std::mutex> lock(mu_);
    return calls_.at(i);
  }
  size_t count() {
    std::lock_guard<std::mutex> lock(mu_);
    return calls_.size();
  }

 private:
  provider::Capabilities caps_;
  std::mutex mu_;
  std::vector<Call> calls_;
};

ir::Message user(std::string text) {
  return ir::Message{ir::Role::user, {ir::TextPart{std::move(text)}}, {}};
}

RemoteTool remote(std::string name) {
  RemoteTool t;
  t.definition.name = std::move(name);
  t.definition.description = "runs elsewhere";
  return t;
}

std::vector<ir::ToolResultPart> results_in(const ir::Message& m) {
  std::vector<ir::ToolResultPart> out;
  for (const auto& p : m.parts)
    if (auto* r = std::get_if<ir::ToolResultPart>(&p)) out.push_back(*r);
  return out;
}

tools::ToolSpec waiting_tool(std::string name, std::chrono::milliseconds d) {
  tools::ToolSpec s;
  s.name = std::move(name);
  s.handler = tools::SyncHandler([d](const nlohmann::json&, tools::ToolContext& ctx) {
    if (ctx.cancel.wait_for(d)) return tools::ToolOutput::error("interrupted");
    return tools::ToolOutput::text("waited");
  });
  return s;
}

// What one run reported, checked to have happened inside a step only.
struct Outcome {
  ManualQueue* q = nullptr;
  std::vector<Event> events;
  int completions = 0;
  int outside = 0;  // events or completion seen outside a posted function
  RunResult result;
  std::vector<ir::Message> history;

  EventSink sink() {
    return [this](const Event& e) {
      if (q && !q->in_step()) ++outside;
      events.push_back(e);
    };
  }
  RunCompletion done() {
    return [this](RunResult r, std::vector<ir::Message> h) {
      if (q && !q->in_step()) ++outside;
      ++completions;
      result = std::move(r);
      history = std::move(h);
    };
  }
  template <class T>
  size_t count() const {
    size_t n = 0;
    for (const auto& e : events) n += std::holds_alternative<T>(e);
    return n;
  }
  bool final_last() const {
    return !events.empty() && std::holds_alternative<FinalAnswerEvent>(events.back()) &&
           count<FinalAnswerEvent>() == 1;
  }
};

struct Fixture {
  tools::Registry registry;
  std::unique_ptr<tools::Executor> executor;
  ManualQueue q;
  Outcome out;
  AgentOptions opt;
  Fixture() {
    out.q = &q;
    opt.log = [](std::string_view) {};
  }
  void make_executor(size_t workers = 2) {
    executor = std::make_unique<tools::Executor>(registry, tools::ExecutorOptions{workers, 30s});
  }
  std::shared_ptr<AgentRun> start(provider::Provider& p, std::vector<ir::Message> prior = {}) {
    if (!executor) make_executor();
    return AgentRun::start(AgentRunParams{.provider = p,
                                          .registry = registry,
                                          .executor = *executor,
                                          .scheduler = q.scheduler(),
                                          .options = opt,
                                          .history = std::move(prior),
                                          .user = user("go"),
                                          .on_event = out.sink(),
                                          .on_done = out.done()});
  }
};

TEST(AgentRun, StepsRunOnlyInsidePostedFunctions) {
  FakeProvider p([](const ir::Request&, int no) {
    if (no == 1) return calls_turn({{"c1", "echo", R"({"x":"a"})"}, {"r1", "phone", "{}"}});
    return text_turn("all done");
  });
  p.event_delay = 1ms;  // provider callbacks come from the provider's thread
  Fixture f;
  tools::ToolSpec echo;
  echo.name = "echo";
  echo.handler = tools::SyncHandler([](const nlohmann::json& a, tools::ToolContext&) {
    return tools::ToolOutput::text("echo:" + a.value("x", ""));
  });
  ASSERT_TRUE(f.registry.add(std::move(echo)).ok());
  f.opt.remote_tools = {remote("phone")};
  std::vector<ir::Message> prior = {user("earlier"),
                                    ir::Message{ir::Role::assistant, {ir::TextPart{"hi"}}, {}}};
  auto run = f.start(p, prior);
  // Nothing ran inside start(): one step is queued, the model was not asked.
  EXPECT_EQ(f.q.size(), 1u);
  EXPECT_TRUE(p.requests().empty());
  EXPECT_TRUE(f.out.events.empty());

  ASSERT_TRUE(f.q.drain_until([&] { return !run->pending_remote_calls().empty(); }));
  EXPECT_EQ(run->pending_remote_calls(), std::vector<std::string>{"r1"});
  std::thread phone(
      [&] { EXPECT_TRUE(run->submit_result("r1", tools::ToolOutput::text("ring")).ok()); });
  phone.join();
  ASSERT_TRUE(f.q.drain_until([&] { return f.out.completions > 0; }));
  f.q.drain();

  EXPECT_EQ(f.out.outside, 0);
  EXPECT_EQ(f.q.misplaced.load(), 0);
  EXPECT_EQ(f.out.completions, 1);
  EXPECT_TRUE(run->finished());
  EXPECT_EQ(f.out.result.reason, StopReason::final_text);
  EXPECT_EQ(f.out.result.text, "all done");
  EXPECT_EQ(f.out.result.rounds, 2);
  EXPECT_TRUE(f.out.final_last());
  EXPECT_EQ(f.out.count<ToolCallEvent>(), 2u);
  EXPECT_EQ(f.out.count<ToolResultEvent>(), 2u);
  // prior (2) + user + assistant(calls) + tool + assistant(text)
  ASSERT_EQ(f.out.history.size(), 6u);
  EXPECT_TRUE(check_history(f.out.history).ok());
  auto res = results_in(f.out.history[4]);
  ASSERT_EQ(res.size(), 2u);
  EXPECT_EQ(result_text(res[0]), "echo:a");
  EXPECT_EQ(result_text(res[1]), "ring");
  // The remote call's timer was cancelled when its result came.
  EXPECT_EQ(f.q.fire_timers(), 0u);
}

// hand_back_unknown_calls (a gateway's mixed mode): a turn calling a local
// tool and a tool the run does not have runs the local one, then ends with
// the other handed back; the client's tools are offered before the
// registry's, and a turn of handed-back calls only adds no tool message.
TEST(AgentRun, UnknownCallsAreHandedBackAfterTheTurnsLocalCalls) {
  FakeProvider p([](const ir::Request& r, int) {
    if (r.messages.size() == 1)
      return calls_turn({{"c1", "echo", R"({"x":"a"})"}, {"k1", "ask_user", "{}"}});
    return calls_turn({{"k2", "ask_user", "{}"}});
  });
  Fixture f;
  tools::ToolSpec echo;
  echo.name = "echo";
  echo.handler = tools::SyncHandler([](const nlohmann::json& a, tools::ToolContext&) {
    return tools::ToolOutput::text("echo:" + a.value("x", ""));
  });
  ASSERT_TRUE(f.registry.add(std::move(echo)).ok());
  ir::ToolDefinition ask;
  ask.name = "ask_user";
  f.opt.client_tools = {ask};
  f.opt.hand_back_unknown_calls = true;
  auto run = f.start(p);
  ASSERT_TRUE(f.q.drain_until([&] { return f.out.completions > 0; }));
  f.q.drain();
  EXPECT_EQ(f.out.outside, 0);
  EXPECT_EQ(f.out.result.reason, StopReason::client_calls);
  EXPECT_EQ(f.out.result.rounds, 1);
  ASSERT_EQ(f.out.result.client_calls.size(), 1u);
  EXPECT_EQ(f.out.result.client_calls[0].id, "k1");
  EXPECT_EQ(f.out.count<ToolCallEvent>(), 1u);  // echo only
  EXPECT_EQ(f.out.count<ToolResultEvent>(), 1u);
  EXPECT_TRUE(f.out.final_last());
  ASSERT_EQ(p.requests().size(), 1u);
  ASSERT_EQ(p.requests()[0].tools.size(), 2u);
  EXPECT_EQ(p.requests()[0].tools[0].name, "ask_user");
  EXPECT_EQ(p.requests()[0].tools[1].name, "echo");
  // user + assistant (both calls) + tool (echo's result only)
  ASSERT_EQ(f.out.history.size(), 3u);
  auto res = results_in(f.out.history[2]);
  ASSERT_EQ(res.size(), 1u);
  EXPECT_EQ(res[0].call_id, "c1");
  EXPECT_EQ(result_text(res[0]), "echo:a");

  // The client's result comes back in the next run's history, no new user message.
  std::vector<ir::Message> next = f.out.history;
  next.push_back(
      ir::Message{ir::Role::tool, {tools::to_result("k1", tools::ToolOutput::text("yes"))}, {}});
  Outcome second;
  second.q = &f.q;
  auto run2 = AgentRun::start(AgentRunParams{.provider = p,
                                             .registry = f.registry,
                                             .executor = *f.executor,
                                             .scheduler = f.q.scheduler(),
                                             .options = f.opt,
                                             .history = next,
                                             .user = std::nullopt,
                                             .on_event = second.sink(),
                                             .on_done = second.done()});
  ASSERT_TRUE(f.q.drain_until([&] { return second.completions > 0; }));
  f.q.drain();
  ASSERT_EQ(p.requests().size(), 2u);
  EXPECT_EQ(p.requests()[1].messages.size(), 4u);
  EXPECT_EQ(second.result.reason, StopReason::client_calls);
  ASSERT_EQ(second.result.client_calls.size(), 1u);
  EXPECT_EQ(second.result.client_calls[0].id, "k2");
  EXPECT_EQ(second.count<ToolCallEvent>(), 0u);
  ASSERT_EQ(second.history.size(), 5u);  // no tool message for a turn handed back whole
  EXPECT_EQ(second.history.back().role, ir::Role::assistant);
}

TEST(AgentRun, RemoteTimeoutIsATimer) {
  FakeProvider p([](const ir::Request&, int no) {
    if (no == 1) return calls_turn({{"r1", "phone", "{}"}});
    return text_turn("ok");
  });
  Fixture f;
  f.opt.remote_tools = {remote("phone")};
  auto run = f.start(p);
  f.q.drain();
  EXPECT_EQ(run->pending_remote_calls().size(), 1u);
  EXPECT_EQ(f.out.completions, 0);
  ASSERT_EQ(f.q.timers.size(), 1u);
  EXPECT_EQ(f.q.timers[0]->delay, 30s);  // AgentOptions::remote_timeout
  EXPECT_EQ(f.q.fire_timers(), 1u);      // "30 s later"
  f.q.drain();
  ASSERT_EQ(f.out.completions, 1);
  auto res = results_in(f.out.history[2]);
  ASSERT_EQ(res.size(), 1u);
  EXPECT_EQ(result_text(res[0]).rfind("tool_result_timeout", 0), 0u);
  Status late = run->submit_result("r1", tools::ToolOutput::text("x"));
  ASSERT_FALSE(late.ok());
  EXPECT_NE(late.error().message.find("timed out"), std::string::npos);
}

TEST(AgentRun, StuckLocalToolTimesOutWithoutHoldingTheRun) {
  FakeProvider p([](const ir::Request&, int no) {
    if (no == 1) return calls_turn({{"s1", "stuck", "{}"}});
    return text_turn("moved on");
  });
  tools::Registry registry;
  std::promise<void> release;
  std::shared_future<void> released = release.get_future().share();
  std::promise<bool> returned_p;  // set when the handler returns: did it see its token cancelled
  std::future<bool> returned_f = returned_p.get_future();
  std::atomic<bool> returned{false};
  tools::ToolSpec stuck;
  stuck.name = "stuck";
  stuck.handler = tools::SyncHandler([&, released](const nlohmann::json&, tools::ToolContext& ctx) {
    released.wait_for(20s);  // ignores its token until the test lets go
    returned = true;
    returned_p.set_value(ctx.cancelled());
    return tools::ToolOutput::text("too late");
  });
  ASSERT_TRUE(registry.add(std::move(stuck)).ok());
  tools::Executor executor(registry, {.max_concurrency = 1});
  const size_t threads_before = thread_count();

  RunLoop loop;
  Outcome out;
  AgentOptions opt;
  opt.tool_timeout = 50ms;
  auto run = AgentRun::start(AgentRunParams{.provider = p,
                                            .registry = registry,
                                            .executor = executor,
                                            .scheduler = loop.scheduler(),
                                            .options = opt,
                                            .history = {},
                                            .user = user("go"),
                                            .on_event = out.sink(),
                                            .on_done = out.done()});
  auto t0 = Clock::now();
  ASSERT_TRUE(loop.run_until([&] { return out.completions > 0; }, Clock::now() + 10s));
  EXPECT_LT(Clock::now() - t0, 5s);
  EXPECT_FALSE(returned.load()) << "the run finished while the handler was still stuck";
  EXPECT_LE(thread_count(), threads_before) << "no thread per run or per call";
  EXPECT_EQ(out.result.reason, StopReason::final_text);
  auto res = results_in(out.history[2]);
  ASSERT_EQ(res.size(), 1u);
  EXPECT_TRUE(res[0].is_error);
  EXPECT_EQ(result_text(res[0]), "tool 'stuck' timed out after 50 ms");

  release.set_value();
  ASSERT_EQ(returned_f.wait_for(10s), std::future_status::ready);
  EXPECT_TRUE(returned_f.get()) << "the deadline cancelled the handler's token";
  loop.poll();
  EXPECT_EQ(out.completions, 1);
  EXPECT_EQ(result_text(results_in(out.history[2])[0]), "tool 'stuck' timed out after 50 ms");
}

TEST(AgentRun, CancelBeforeTheFirstStep) {
  FakeProvider p([](const ir::Request&, int) { return text_turn("never"); });
  Fixture f;
  auto run = f.start(p);
  run->cancel();
  run->cancel();
  f.q.drain();
  EXPECT_EQ(f.out.completions, 1);
  EXPECT_EQ(f.out.result.reason, StopReason::cancelled);
  EXPECT_EQ(f.out.result.rounds, 0);
  EXPECT_TRUE(p.requests().empty());
  ASSERT_EQ(f.out.history.size(), 1u);
  EXPECT_TRUE(check_history(f.out.history).ok());
  EXPECT_TRUE(f.out.final_last());
  EXPECT_EQ(f.out.outside, 0);
}

TEST(AgentRun, CancelDuringTheModelCall) {
  ManualProvider p;
  Fixture f;
  auto run = f.start(p);
  f.q.drain();
  ASSERT_EQ(p.count(), 1u);
  auto call = p.call(0);
  call.on_event(ir::MessageStart{"m", "x", 0});
  call.on_event(ir::TextDelta{"half a"});
  f.q.drain();
  EXPECT_EQ(f.out.count<TextDeltaEvent>(), 1u);
  call.on_event(ir::TextDelta{" turn"});  // queued behind the cancel: never shown
  run->cancel();
  f.q.drain();
  EXPECT_TRUE(call.cancelled->load()) << "the provider call was cancelled";
  EXPECT_EQ(f.out.completions, 1);
  EXPECT_EQ(f.out.result.reason, StopReason::cancelled);
  EXPECT_EQ(f.out.count<TextDeltaEvent>(), 1u);
  ASSERT_EQ(f.out.history.size(), 1u);  // the half turn was dropped
  // The provider's late `done` changes nothing.
  call.done(make_error(ErrorCode::cancelled, "cancelled"));
  f.q.drain();
  EXPECT_EQ(f.out.completions, 1);
  EXPECT_TRUE(f.out.final_last());
  EXPECT_EQ(f.out.outside, 0);
}

TEST(AgentRun, CancelDuringLocalTools) {
  FakeProvider p([](const ir::Request&, int) {
    return calls_turn({{"c1", "wait_a", "{}"}, {"c2", "wait_b", "{}"}, {"c3", "wait_a", "{}"}});
  });
  Fixture f;
  ASSERT_TRUE(f.registry.add(waiting_tool("wait_a", 20s)).ok());
  ASSERT_TRUE(f.registry.add(waiting_tool("wait_b", 20s)).ok());
  f.opt.max_concurrency = 2;  // c3 waits for a slot in this run
  auto run = f.start(p);
  f.q.drain();
  EXPECT_EQ(f.out.count<ToolCallEvent>(), 3u);
  EXPECT_EQ(f.out.completions, 0);
  auto t0 = Clock::now();
  run->cancel();
  ASSERT_TRUE(f.q.drain_until([&] { return f.out.completions > 0; }));
  EXPECT_LT(Clock::now() - t0, 5s);
  EXPECT_EQ(f.out.result.reason, StopReason::cancelled);
  ASSERT_EQ(f.out.history.size(), 3u);
  EXPECT_TRUE(check_history(f.out.history).ok());
  auto res = results_in(f.out.history[2]);
  ASSERT_EQ(res.size(), 3u);
  EXPECT_EQ(result_text(res[0]), "tool 'wait_a' cancelled");
  EXPECT_EQ(result_text(res[1]), "tool 'wait_b' cancelled");
  EXPECT_EQ(result_text(res[2]), "tool 'wait_a' cancelled");
  EXPECT_EQ(f.out.count<RoundFinishedEvent>(), 1u);
  EXPECT_TRUE(f.out.final_last());
  EXPECT_EQ(p.requests().size(), 1u);
  EXPECT_EQ(f.out.outside, 0);
}

TEST(AgentRun, CancelWhileRemoteCallsArePending) {
  FakeProvider p([](const ir::Request&, int) {
    return calls_turn({{"r1", "phone", "{}"}, {"r2", "phone", "{}"}});
  });
  Fixture f;
  f.opt.remote_tools = {remote("phone")};
  auto run = f.start(p);
  f.q.drain();
  EXPECT_EQ(run->pending_remote_calls(), (std::vector<std::string>{"r1", "r2"}));
  EXPECT_TRUE(run->submit_result("r2", tools::ToolOutput::text("answered")).ok());
  run->cancel();
  f.q.drain();
  ASSERT_EQ(f.out.completions, 1);
  EXPECT_EQ(f.out.result.reason, StopReason::cancelled);
  EXPECT_TRUE(run->pending_remote_calls().empty());
  auto res = results_in(f.out.history[2]);
  ASSERT_EQ(res.size(), 2u);
  EXPECT_EQ(result_text(res[0]), "cancelled");
  EXPECT_EQ(result_text(res[1]), "answered");  // accepted before the cancel
  Status late = run->submit_result("r1", tools::ToolOutput::text("x"));
  ASSERT_FALSE(late.ok());
  EXPECT_NE(late.error().message.find("cancelled"), std::string::npos);
  EXPECT_EQ(f.q.fire_timers(), 0u) << "the remote deadlines were disarmed";
  EXPECT_EQ(f.q.misplaced.load(), 0);
  EXPECT_TRUE(check_history(f.out.history).ok());
}

TEST(AgentRun, CancelAfterTheEndDoesNothing) {
  FakeProvider p([](const ir::Request&, int) { return text_turn("done"); });
  Fixture f;
  auto run = f.start(p);
  f.q.drain();
  ASSERT_EQ(f.out.completions, 1);
  run->cancel();
  EXPECT_EQ(f.q.drain(), 0u);
  EXPECT_EQ(f.out.completions, 1);
  EXPECT_EQ(f.out.result.reason, StopReason::final_text);
}

TEST(AgentRun, MaxConcurrencyBoundsOneRunOnASharedPool) {
  std::atomic<int> now{0}, peak{0};
  FakeProvider p([](const ir::Request&, int no) {
    if (no == 1)
      return calls_turn({{"a", "probe", "{}"}, {"b", "probe", "{}"}, {"c", "probe", "{}"}});
    return text_turn("ok");
  });
  Fixture f;
  tools::ToolSpec probe;
  probe.name = "probe";
  probe.handler = tools::SyncHandler([&](const nlohmann::json&, tools::ToolContext& ctx) {
    int cur = ++now;
    int pk = peak.load();
    while (cur > pk && !peak.compare_exchange_weak(pk, cur)) {
    }
    ctx.cancel.wait_for(20ms);
    --now;
    return tools::ToolOutput::text("p");
  });
  ASSERT_TRUE(f.registry.add(std::move(probe)).ok());
  f.make_executor(4);
  f.opt.max_concurrency = 1;
  f.start(p);
  ASSERT_TRUE(f.q.drain_until([&] { return f.out.completions > 0; }));
  EXPECT_EQ(peak.load(), 1);
  EXPECT_EQ(f.out.result.reason, StopReason::final_text);
}

TEST(AgentRun, AThousandRunsWaitOnOneThread) {
  constexpr int kRuns = 1000;
  FakeProvider p([](const ir::Request& req, int) {
    // Round 1 asks the phone; round 2 (the result is last) answers.
    if (req.messages.back().role == ir::Role::tool) return text_turn("thanks");
    return calls_turn({{"r1", "phone", "{}"}});
  });
  tools::Registry registry;
  tools::Executor executor(registry, {.max_concurrency = 1});
  AgentOptions opt;
  opt.remote_tools = {remote("phone")};
  RunLoop loop;
  const size_t threads_before = thread_count();
  std::vector<std::shared_ptr<AgentRun>> runs;
  std::vector<RunResult> results(kRuns);
  std::vector<size_t> history_sizes(kRuns, 0);
  int done = 0;
  bool histories_valid = true;
  for (int i = 0; i < kRuns; ++i)
    runs.push_back(AgentRun::start(AgentRunParams{
        .provider = p,
        .registry = registry,
        .executor = executor,
        .scheduler = loop.scheduler(),
        .options = opt,
        .history = {},
        .user = user("photo " + std::to_string(i)),
        .on_event = {},
        .on_done =
            [&, i](RunResult r, std::vector<ir::Message> h) {
              results[i] = std::move(r);
              history_sizes[i] = h.size();
              histories_valid = histories_valid && check_history(h).ok();
              ++done;
            },
    }));
  loop.poll();
  size_t pending = 0;
  for (auto& r : runs) pending += r->pending_remote_calls().size();
  EXPECT_EQ(pending, static_cast<size_t>(kRuns));
  EXPECT_EQ(done, 0);
  EXPECT_LE(thread_count(), threads_before) << "runs waiting for results hold no thread";

  std::thread phone([&] {
    for (auto& r : runs) EXPECT_TRUE(r->submit_result("r1", tools::ToolOutput::text("jpg")).ok());
  });
  ASSERT_TRUE(loop.run_until([&] { return done == kRuns; }, Clock::now() + 60s));
  phone.join();
  for (int i = 0; i < kRuns; ++i) {
    EXPECT_EQ(results[i].reason, StopReason::final_text) << i;
    EXPECT_EQ(history_sizes[i], 4u) << i;
  }
  EXPECT_TRUE(histories_valid);
  EXPECT_EQ(p.requests().size(), static_cast<size_t>(2 * kRuns));
}

TEST(RunLoop, TimersRunInDeadlineOrderAndCancelledOnesDoNot) {
  RunLoop loop;
  Scheduler s = loop.scheduler();
  std::vector<int> order;
  s.post([&] {
    s.post_after(30ms, [&] { order.push_back(3); });
    TimerHandle h = s.post_after(10ms, [&] { order.push_back(99); });
    s.post_after(20ms, [&] { order.push_back(2); });
    s.post([&] { order.push_back(1); });
    h.cancel();
  });
  ASSERT_TRUE(loop.run_until([&] { return order.size() == 3; }, Clock::now() + 5s));
  EXPECT_EQ(order, (std::vector<int>{1, 2, 3}));
  EXPECT_EQ(loop.poll(), 0u);
}

TEST(RunLoop, PostingAfterTheLoopIsGoneIsDropped) {
  Scheduler s;
  auto alive = std::make_shared<int>(1);
  {
    RunLoop loop;
    s = loop.scheduler();
    s.post([alive] {});  // never run: dropped with the loop
  }
  EXPECT_EQ(alive.use_count(), 1);
  s.post([alive] {});
  EXPECT_EQ(alive.use_count(), 1);
  s.post_after(1ms, [] {}).cancel();
}

}  // namespace
}  // namespace toolwire::agent
