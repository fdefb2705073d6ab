#include <gtest/gtest.h>

#include <atomic>
#include <thread>

#include "test_tools.h"
#include "toolwire/tools/executor.h"

using namespace toolwire;
using namespace toolwire::tools;
using tools_test::call;
using tools_test::text_of;
using std::chrono::milliseconds;

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
      while (cur > p && !peak.compare_exchange_weak(p, cur)) {}
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
  for (int i = 0; i < 16; ++i) calls.push_back(call("id" + std::to_string(i), "sleep", "{\"n\":" + std::to_string(i) + "}"));
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
  std::vector<ir::ToolCallPart> calls = {call("a", "sleep", R"({"n":1})"), call("b", "nope", "{}"),
                                         call("c", "sleep", R"({"n":"x"})"), call("d", "sleep", "{bad"),
                                         call("e", "sleep", R"({"n":5})")};
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
  for (int i = 0; i < 12; ++i) calls.push_back(call(std::to_string(i), i % 3 == 1 ? "solo" : "shared", "{}"));
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
      for (int i = 0; i < 8; ++i) calls.push_back(call(std::to_string(t * 100 + i), i == 3 ? "solo" : "shared", "{}"));
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
