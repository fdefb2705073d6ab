#include <gtest/gtest.h>

#include <atomic>
#include <condition_variable>
#include <filesystem>
#include <future>
#include <mutex>
#include <thread>

#include "test_tools.h"
#include "toolwire/tools/executor.h"

using namespace toolwire;
using namespace toolwire::tools;
using std::chrono::milliseconds;
using tools_test::call;
using tools_test::text_of;

namespace {

// A tool that sleeps (cooperatively) and records the peak concurrency.
struct Probe {
  std::atomic<int> now{0}, peak{0};
  std::atomic<bool> exclusive_overlap{false};
  std::atomic<int> exclusive_now{0};

  ToolSpec sleeper(std::string name, milliseconds d, bool exclusive = false) {
    ToolSpec s;
    s.name = std::move(name);
    s.exclusive = exclusive;
    s.input_schema = R"({"type":"object","properties":{"n":{"type":"integer"}}})";
    s.handler = SyncHandler([this, d, exclusive](const nlohmann::json& a, ToolContext& ctx) {
      int cur = ++now;
      int p = peak.load();
      while (cur > p && !peak.compare_exchange_weak(p, cur)) {
      }
      if (exclusive) ++exclusive_now;
      if (exclusive_now > 0 && cur > 1) exclusive_overlap = true;
      bool cancelled = ctx.cancel.wait_for(d);
      if (exclusive) --exclusive_now;
      --now;
      if (cancelled) return ToolOutput::error("cancelled");
      return ToolOutput::text(std::to_string(a.value("n", -1)));
    });
    return s;
  }
};

}  // namespace

TEST(Executor, BoundedConcurrencyAndCallOrder) {
  Registry reg;
  Probe probe;
  ASSERT_TRUE(reg.add(probe.sleeper("sleep", milliseconds(30))).ok());
  Executor ex(reg, {.max_concurrency = 4});
  std::vector<ir::ToolCallPart> calls;
  for (int i = 0; i < 16; ++i)
    calls.push_back(call("id" + std::to_string(i), "sleep", "{\"n\":" + std::to_string(i) + "}"));
  auto t0 = Clock::now();
  auto results = ex.run(calls);
  auto took = Clock::now() - t0;
  ASSERT_EQ(results.size(), calls.size());
  for (int i = 0; i < 16; ++i) {
    EXPECT_EQ(results[i].call_id, "id" + std::to_string(i));
    EXPECT_EQ(text_of(results[i]), std::to_string(i));
  }
  EXPECT_EQ(probe.peak.load(), 4);
  // 16 calls / 4 workers * 30 ms = 120 ms; serial would be 480 ms.
  EXPECT_GE(took, milliseconds(115));
  EXPECT_LT(took, milliseconds(400));
}

TEST(Executor, ErrorsStayInPlace) {
  Registry reg;
  Probe probe;
  ASSERT_TRUE(reg.add(probe.sleeper("sleep", milliseconds(1))).ok());
  Executor ex(reg, {.max_concurrency = 2});
  std::vector<ir::ToolCallPart> calls = {
      call("a", "sleep", R"({"n":1})"), call("b", "nope", "{}"), call("c", "sleep", R"({"n":"x"})"),
      call("d", "sleep", "{bad"), call("e", "sleep", R"({"n":5})")};
  auto r = ex.run(calls);
  ASSERT_EQ(r.size(), 5u);
  EXPECT_FALSE(r[0].is_error);
  EXPECT_TRUE(r[1].is_error);
  EXPECT_NE(text_of(r[1]).find("available tools: sleep"), std::string::npos);
  EXPECT_TRUE(r[2].is_error);
  EXPECT_NE(text_of(r[2]).find("/n: "), std::string::npos) << text_of(r[2]);
  EXPECT_TRUE(r[3].is_error);
  EXPECT_EQ(text_of(r[4]), "5");
  for (size_t i = 0; i < r.size(); ++i) EXPECT_EQ(r[i].call_id, calls[i].id);
}

TEST(Executor, TimeoutGivesErrorAndCancelsHandler) {
  Registry reg;
  std::atomic<bool> saw_cancel{false};
  ToolSpec slow;
  slow.name = "slow";
  slow.timeout = milliseconds(50);
  slow.handler = SyncHandler([&](const nlohmann::json&, ToolContext& ctx) {
    saw_cancel = ctx.cancel.wait_for(std::chrono::seconds(10));
    return ToolOutput::text("finished");
  });
  ASSERT_TRUE(reg.add(std::move(slow)).ok());
  Probe probe;
  ASSERT_TRUE(reg.add(probe.sleeper("fast", milliseconds(1))).ok());
  Executor ex(reg, {.max_concurrency = 2});
  std::vector<ir::ToolCallPart> calls = {call("s", "slow", "{}"), call("f", "fast", R"({"n":2})")};
  auto t0 = Clock::now();
  auto r = ex.run(calls);
  auto took = Clock::now() - t0;
  EXPECT_LT(took, milliseconds(1000));
  EXPECT_GE(took, milliseconds(45));
  ASSERT_TRUE(r[0].is_error);
  EXPECT_EQ(text_of(r[0]), "tool 'slow' timed out after 50 ms");
  EXPECT_EQ(r[0].call_id, "s");
  EXPECT_EQ(text_of(r[1]), "2");
  for (int i = 0; i < 200 && !saw_cancel; ++i) std::this_thread::sleep_for(milliseconds(5));
  EXPECT_TRUE(saw_cancel.load());
}

TEST(Executor, DefaultTimeoutAppliesAndStartsWhenTheCallStarts) {
  Registry reg;
  Probe probe;
  ASSERT_TRUE(reg.add(probe.sleeper("sleep", milliseconds(40))).ok());
  // 6 calls, 1 worker, 100 ms timeout: each call's deadline starts with the
  // call, so none times out although the batch takes 240 ms.
  Executor ex(reg, {.max_concurrency = 1, .default_timeout = milliseconds(100)});
  std::vector<ir::ToolCallPart> calls(6, call("x", "sleep", "{}"));
  for (const auto& r : ex.run(calls)) EXPECT_FALSE(r.is_error) << text_of(r);
  Executor tight(reg, {.max_concurrency = 1, .default_timeout = milliseconds(10)});
  auto r = tight.run_one(call("y", "sleep", "{}"));
  EXPECT_TRUE(r.is_error);
  EXPECT_EQ(text_of(r), "tool 'sleep' timed out after 10 ms");
}

TEST(Executor, ExclusiveToolNeverOverlaps) {
  Registry reg;
  Probe probe;
  ASSERT_TRUE(reg.add(probe.sleeper("shared", milliseconds(20))).ok());
  ASSERT_TRUE(reg.add(probe.sleeper("solo", milliseconds(20), /*exclusive=*/true)).ok());
  Executor ex(reg, {.max_concurrency = 4});
  std::vector<ir::ToolCallPart> calls;
  for (int i = 0; i < 12; ++i)
    calls.push_back(call(std::to_string(i), i % 3 == 1 ? "solo" : "shared", "{}"));
  auto r = ex.run(calls);
  for (const auto& x : r) EXPECT_FALSE(x.is_error) << text_of(x);
  EXPECT_FALSE(probe.exclusive_overlap.load());
  EXPECT_GE(probe.peak.load(), 2);  // the shared ones still ran together
}

TEST(Executor, ConcurrentBatchesShareThePoolAndExclusivity) {
  Registry reg;
  Probe probe;
  ASSERT_TRUE(reg.add(probe.sleeper("shared", milliseconds(10))).ok());
  ASSERT_TRUE(reg.add(probe.sleeper("solo", milliseconds(10), true)).ok());
  Executor ex(reg, {.max_concurrency = 3});
  std::vector<std::thread> threads;
  std::atomic<int> errors{0};
  for (int t = 0; t < 4; ++t)
    threads.emplace_back([&, t] {
      std::vector<ir::ToolCallPart> calls;
      for (int i = 0; i < 8; ++i)
        calls.push_back(call(std::to_string(t * 100 + i), i == 3 ? "solo" : "shared", "{}"));
      auto r = ex.run(calls);
      for (size_t i = 0; i < r.size(); ++i)
        if (r[i].is_error || r[i].call_id != calls[i].id) ++errors;
    });
  for (auto& th : threads) th.join();
  EXPECT_EQ(errors.load(), 0);
  EXPECT_LE(probe.peak.load(), 3);
  EXPECT_FALSE(probe.exclusive_overlap.load());
}

TEST(Executor, BatchCancelStopsEverything) {
  Registry reg;
  Probe probe;
  ASSERT_TRUE(reg.add(probe.sleeper("sleep", std::chrono::seconds(10))).ok());
  Executor ex(reg, {.max_concurrency = 2});
  BatchOptions opts;
  opts.cancel = CancellationToken();
  std::thread canceller([tok = *opts.cancel] {
    std::this_thread::sleep_for(milliseconds(30));
    tok.cancel();
  });
  std::vector<ir::ToolCallPart> calls(5, call("z", "sleep", "{}"));
  auto t0 = Clock::now();
  auto r = ex.run(calls, opts);
  canceller.join();
  EXPECT_LT(Clock::now() - t0, std::chrono::seconds(2));
  for (const auto& x : r) {
    EXPECT_TRUE(x.is_error);
    EXPECT_EQ(text_of(x), "tool 'sleep' cancelled");
  }
}

TEST(Executor, SessionDataReachesHandlers) {
  Registry reg;
  ToolSpec s;
  s.name = "whoami";
  s.handler = SyncHandler([](const nlohmann::json&, ToolContext& ctx) {
    const std::string* user = ctx.session_data<std::string>();
    return ToolOutput::text(user ? *user : "nobody");
  });
  ASSERT_TRUE(reg.add(std::move(s)).ok());
  Executor ex(reg);
  BatchOptions opts;
  opts.session = std::make_shared<std::any>(std::string("ada"));
  EXPECT_EQ(text_of(ex.run_one(call("1", "whoami", "{}"), opts)), "ada");
  EXPECT_EQ(text_of(ex.run_one(call("2", "whoami", "{}"))), "nobody");
}

namespace {

// A tool that blocks, ignoring its token, until the test lets it go.
struct Gate {
  std::promise<void> open;
  std::shared_future<void> opened = open.get_future().share();
  std::atomic<int> runs{0};
  ToolSpec spec(std::string name) {
    ToolSpec s;
    s.name = std::move(name);
    s.handler = SyncHandler([this, f = opened](const nlohmann::json&, ToolContext&) {
      ++runs;
      f.wait_for(std::chrono::seconds(20));
      return ToolOutput::text("late");
    });
    return s;
  }
};

size_t thread_count() {
  size_t n = 0;
  for ([[maybe_unused]] const auto& e : std::filesystem::directory_iterator("/proc/self/task")) ++n;
  return n;
}

// Collects on_done calls; wait() is bounded.
struct Results {
  std::mutex mu;
  std::condition_variable cv;
  std::vector<std::pair<int, ir::ToolResultPart>> got;
  ResultCallback cb(int tag) {
    return [this, tag](ir::ToolResultPart r) {
      {
        std::lock_guard<std::mutex> lock(mu);
        got.emplace_back(tag, std::move(r));
      }
      cv.notify_all();
    };
  }
  bool wait(size_t n) {
    std::unique_lock<std::mutex> lock(mu);
    return cv.wait_for(lock, std::chrono::seconds(10), [&] { return got.size() >= n; });
  }
  size_t count(int tag) {
    std::lock_guard<std::mutex> lock(mu);
    size_t n = 0;
    for (auto& [t, r] : got) n += t == tag;
    return n;
  }
  std::string text(int tag) {
    std::lock_guard<std::mutex> lock(mu);
    for (auto& [t, r] : got)
      if (t == tag) return text_of(r);
    return "";
  }
};

}  // namespace

TEST(Executor, SubmitReportsOnceAndBadCallsBeforeReturning) {
  Registry reg;
  Probe probe;
  ASSERT_TRUE(reg.add(probe.sleeper("sleep", milliseconds(1))).ok());
  Executor ex(reg, {.max_concurrency = 2});
  Results res;
  CallHandle bad = ex.submit(call("b", "nope", "{}"), {}, res.cb(1));
  EXPECT_TRUE(bad.done());  // lookup failed: settled inside submit()
  EXPECT_EQ(res.count(1), 1u);
  CallHandle good = ex.submit(call("g", "sleep", R"({"n":7})"), {}, res.cb(2));
  ASSERT_TRUE(res.wait(2));
  EXPECT_EQ(res.text(2), "7");
  EXPECT_TRUE(good.done());
  good.cancel();  // too late: no second report
  bad.cancel();
  EXPECT_EQ(res.count(2), 1u);
  EXPECT_EQ(res.count(1), 1u);
}

TEST(Executor, SubmitTimeoutSettlesWhileTheHandlerIsStuckAndNoThreadIsAdded) {
  Registry reg;
  Gate gate;
  ASSERT_TRUE(reg.add(gate.spec("stuck")).ok());
  Executor ex(reg, {.max_concurrency = 1});
  const size_t before = thread_count();
  Results res;
  auto t0 = Clock::now();
  ex.submit(call("s", "stuck", "{}"), {.session = nullptr, .timeout = milliseconds(40)}, res.cb(1));
  ASSERT_TRUE(res.wait(1));
  EXPECT_GE(Clock::now() - t0, milliseconds(35));
  EXPECT_EQ(res.text(1), "tool 'stuck' timed out after 40 ms");
  // The deadline is the shared timer thread's. (<=: a thread joined by an
  // earlier test may leave /proc a moment later.)
  EXPECT_LE(thread_count(), before);
  gate.open.set_value();
  // The handler's late return is dropped; the worker is free again.
  Results more;
  ex.submit(call("s2", "stuck", "{}"), {}, more.cb(2));
  ASSERT_TRUE(more.wait(1));
  EXPECT_EQ(more.text(2), "late");
  EXPECT_EQ(res.count(1), 1u);
}

TEST(Executor, CancelledQueuedCallNeverRunsItsHandler) {
  Registry reg;
  Gate gate;
  ASSERT_TRUE(reg.add(gate.spec("gate")).ok());
  std::atomic<int> second_runs{0};
  ToolSpec counted;
  counted.name = "counted";
  counted.handler = SyncHandler([&](const nlohmann::json&, ToolContext&) {
    ++second_runs;
    return ToolOutput::text("ran");
  });
  ASSERT_TRUE(reg.add(std::move(counted)).ok());
  Executor ex(reg, {.max_concurrency = 1});
  Results res;
  ex.submit(call("1", "gate", "{}"), {}, res.cb(1));
  CallHandle queued = ex.submit(call("2", "counted", "{}"), {}, res.cb(2));
  queued.cancel();  // settles at once, on this thread
  EXPECT_EQ(res.text(2), "tool 'counted' cancelled");
  gate.open.set_value();
  ex.submit(call("3", "counted", "{}"), {}, res.cb(3));  // FIFO: runs after 2 was dropped
  ASSERT_TRUE(res.wait(3));
  EXPECT_EQ(res.text(3), "ran");
  EXPECT_EQ(second_runs.load(), 1);
  EXPECT_EQ(res.count(2), 1u);
}

TEST(Executor, DestructorSettlesCallsThatNeverStarted) {
  Registry reg;
  Probe probe;
  ASSERT_TRUE(reg.add(probe.sleeper("sleep", milliseconds(50))).ok());
  Results res;
  {
    Executor ex(reg, {.max_concurrency = 1});
    ex.submit(call("a", "sleep", R"({"n":1})"), {}, res.cb(1));
    ex.submit(call("b", "sleep", R"({"n":2})"), {}, res.cb(2));
    ex.submit(call("c", "sleep", R"({"n":3})"), {}, res.cb(3));
  }
  ASSERT_TRUE(res.wait(3));
  EXPECT_EQ(res.count(1) + res.count(2) + res.count(3), 3u);
  EXPECT_NE(res.text(3).find("not run: executor shut down"), std::string::npos) << res.text(3);
}
