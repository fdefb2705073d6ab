// The per-request cost of a key's requests_per_minute check: the in-process
// token bucket against the shared one (one EVALSHA to Redis, docs/deploy.md),
// side by side in one run. Needs a redis-server: bench/shared_limits.sh
// starts one on a free port and passes it in TOOLWIRE_BENCH_REDIS; without
// it the shared cases are skipped.
//
//   SharedLimiter/1   one request at a time: the round trip's latency
//   SharedLimiter/64  64 in flight (as under load): pipelined on one connection
#include <benchmark/benchmark.h>

#include <boost/asio/executor_work_guard.hpp>
#include <boost/asio/io_context.hpp>
#include <condition_variable>
#include <cstdlib>
#include <mutex>
#include <thread>

#include "gateway/shared_state/shared_state.h"
#include "toolwire/gateway/auth.h"

namespace {

using namespace toolwire;
using namespace toolwire::gateway;

KeyConfig bench_key() {
  KeyConfig c;
  c.name = "bench";
  c.sha256_hex = sha256_hex("bench-secret");
  c.requests_per_minute = 1'000'000'000;  // never refuses: the check's cost alone
  return c;
}

void InProcessLimiter(benchmark::State& state) {
  GatewayKey key(bench_key());
  for (auto _ : state) {
    auto wait = key.take_request(std::chrono::steady_clock::now());
    benchmark::DoNotOptimize(wait);
  }
  state.counters["time_per_req"] =
      benchmark::Counter(static_cast<double>(state.iterations()),
                         benchmark::Counter::kIsRate | benchmark::Counter::kInvert);
  state.counters["round_trips_per_req"] = 0;
}
BENCHMARK(InProcessLimiter);

// One io_context thread, as the gateway's pool, and one SharedState on it.
struct Shared {
  boost::asio::io_context ioc;
  boost::asio::executor_work_guard<boost::asio::io_context::executor_type> work{ioc.get_executor()};
  std::shared_ptr<shared_state::SharedState> state;
  std::thread thread;
  bool ok = false;
  explicit Shared(const char* url) {
    SharedStateOptions o;
    o.redis_url = url;
    o.prefix = "toolwire-bench:";
    state = std::make_shared<shared_state::SharedState>(ioc, o, nullptr);
    state->start();
    thread = std::thread([this] { ioc.run(); });
    for (int i = 0; i < 200 && !state->connected(); ++i)
      std::this_thread::sleep_for(std::chrono::milliseconds(10));  // setup only, not measured
    ok = state->connected();
  }
  ~Shared() {
    state->stop();
    work.reset();
    ioc.stop();
    thread.join();
  }
};

void SharedLimiter(benchmark::State& state) {
  const char* url = std::getenv("TOOLWIRE_BENCH_REDIS");
  if (!url) return state.SkipWithError("TOOLWIRE_BENCH_REDIS not set (bench/shared_limits.sh)");
  static Shared shared(url);
  if (!shared.ok) return state.SkipWithError("Redis not reachable");
  GatewayKey key(bench_key());
  const int64_t n = state.range(0);
  std::mutex mu;
  std::condition_variable cv;
  int64_t finished = 0, failed = 0;
  for (auto _ : state) {
    {
      std::lock_guard lock(mu);
      finished = 0;
    }
    for (int64_t i = 0; i < n; ++i)
      shared.state->take_request(key, [&](Result<std::optional<int>> r) {
        std::lock_guard lock(mu);
        if (!r || *r) ++failed;
        if (++finished == n) cv.notify_all();
      });
    std::unique_lock lock(mu);
    cv.wait(lock, [&] { return finished == n; });
  }
  state.counters["time_per_req"] =
      benchmark::Counter(static_cast<double>(state.iterations() * n),
                         benchmark::Counter::kIsRate | benchmark::Counter::kInvert);
  state.counters["round_trips_per_req"] = 1;
  state.counters["failed"] = static_cast<double>(failed);
}
BENCHMARK(SharedLimiter)->Arg(1)->Arg(64)->UseRealTime();

}  // namespace

BENCHMARK_MAIN();
