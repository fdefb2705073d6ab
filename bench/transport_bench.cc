// transport_bench — HttpClient against baselines on the same mock upstream,
// in the same run:
//   * per request: HttpClient::fetch vs libcurl easy (one reused handle) vs
//     the `curl` command line tool (a process per request);
//   * per streamed SSE event: HttpClient::start + on_body vs libcurl easy vs `curl -N`;
//   * 1,000 concurrent slow streams on the one loop thread: resident memory
//     and CPU, against 1,000 threads each running curl_easy_perform.
// The mock server runs in a forked child process, so the client's memory and
// CPU are measured alone (getrusage RUSAGE_SELF; RUSAGE_CHILDREN for `curl`).
// A ratio summary is printed at the end. Run:
//   build/bench/transport_bench --benchmark_counters_tabular=true
#include <benchmark/benchmark.h>
#include <curl/curl.h>
#include <sys/resource.h>
#include <sys/wait.h>
#include <unistd.h>

#include <algorithm>
#include <atomic>
#include <condition_variable>
#include <cstdio>
#include <cstdlib>
#include <fstream>
#include <functional>
#include <map>
#include <mutex>
#include <string>
#include <thread>
#include <vector>

#include "mock_http_server.h"
#include "toolwire/transport/http_client.h"

using namespace toolwire::transport;
using toolwire::testing::MockHttpServer;
using toolwire::testing::MockRequest;
using toolwire::testing::MockResponse;
using Clock = std::chrono::steady_clock;

namespace {

constexpr int kStreamEvents = 10000;
constexpr int kConcurrent = 1000;
constexpr int kSlowEvents = 20;
constexpr int kSlowGapMs = 50;

std::string g_base;  // http://127.0.0.1:PORT
// benchmark -> samples (one per repetition) of wall / CPU ns per item, for the ratio summary.
std::map<std::string, std::vector<double>> g_wall_runs, g_cpu_runs;

double median(std::vector<double> v) {
  if (v.empty()) return 0;
  std::sort(v.begin(), v.end());
  return v[v.size() / 2];
}

int query_int(const std::string& target, const std::string& key, int dflt) {
  size_t p = target.find(key + "=");
  return p == std::string::npos ? dflt : std::atoi(target.c_str() + p + key.size() + 1);
}

MockResponse serve(const MockRequest& req) {
  if (req.target.starts_with("/small")) return MockResponse::json(200, R"({"id":"x","ok":true})");
  if (req.target.starts_with("/stream") || req.target.starts_with("/slow")) {
    int n = query_int(req.target, "n", 10);
    int gap = query_int(req.target, "ms", 0);
    MockResponse r = MockResponse::sse_stream();
    const std::string ev =
        R"({"type":"content_block_delta","index":0,"delta":{"type":"text_delta","text":"Hello"}})";
    for (int i = 0; i < n; ++i) r.sse(ev, "content_block_delta", std::chrono::milliseconds(gap));
    return r;
  }
  return MockResponse::json(404, "{}");
}

// Forks the mock upstream before any thread exists; it lives until we exit.
void start_server_process() {
  int port_pipe[2], life_pipe[2];
  if (pipe(port_pipe) != 0 || pipe(life_pipe) != 0) std::abort();
  pid_t pid = fork();
  if (pid == 0) {
    close(port_pipe[0]);
    close(life_pipe[1]);
    MockHttpServer server(serve);
    uint16_t port = server.port();
    (void)!write(port_pipe[1], &port, sizeof port);
    char c;
    (void)!read(life_pipe[0], &c, 1);  // EOF when the parent exits
    _exit(0);
  }
  close(port_pipe[1]);
  close(life_pipe[0]);  // life_pipe[1] stays open in the parent on purpose
  uint16_t port = 0;
  if (read(port_pipe[0], &port, sizeof port) != sizeof port) std::abort();
  g_base = "http://127.0.0.1:" + std::to_string(port);
}

double cpu_ns(int who) {
  rusage ru{};
  getrusage(who, &ru);
  auto tv = [](const timeval& t) { return t.tv_sec * 1e9 + t.tv_usec * 1e3; };
  return tv(ru.ru_utime) + tv(ru.ru_stime);
}

long rss_kb() {
  std::ifstream f("/proc/self/status");
  std::string line;
  while (std::getline(f, line)) {
    if (line.starts_with("VmRSS:")) return std::atol(line.c_str() + 6);
  }
  return 0;
}

struct Meter {
  Clock::time_point t0 = Clock::now();
  double c0_self = cpu_ns(RUSAGE_SELF);
  double c0_children = cpu_ns(RUSAGE_CHILDREN);
  void report(benchmark::State& state, const std::string& name, double items) {
    double wall = std::chrono::duration<double, std::nano>(Clock::now() - t0).count();
    double cpu = cpu_ns(RUSAGE_SELF) - c0_self + cpu_ns(RUSAGE_CHILDREN) - c0_children;
    state.counters["wall_us_per_item"] = wall / items / 1e3;
    state.counters["cpu_us_per_item"] = cpu / items / 1e3;
    g_wall_runs[name].push_back(wall / items);
    g_cpu_runs[name].push_back(cpu / items);
  }
};

HttpClient& client() {
  static HttpClient c;
  return c;
}

size_t discard(char*, size_t s, size_t n, void* user) {
  *static_cast<size_t*>(user) += s * n;
  return s * n;
}

int run_curl_cli(const std::string& url, bool stream) {
  pid_t pid = fork();
  if (pid == 0) {
    if (stream) {
      execlp("curl", "curl", "-sSfN", "-o", "/dev/null", url.c_str(), static_cast<char*>(nullptr));
    } else {
      execlp("curl", "curl", "-sSf", "-o", "/dev/null", url.c_str(), static_cast<char*>(nullptr));
    }
    _exit(127);
  }
  int status = 0;
  waitpid(pid, &status, 0);
  return WIFEXITED(status) ? WEXITSTATUS(status) : -1;
}

// ---- per request -------------------------------------------------------------

void BM_Request_HttpClient(benchmark::State& state) {
  HttpRequest req;
  req.url = g_base + "/small";
  Meter m;
  for (auto _ : state) {
    auto r = client().fetch(req);
    if (!r.ok() || r->status != 200) state.SkipWithError("fetch failed");
    benchmark::DoNotOptimize(r);
  }
  m.report(state, "request/HttpClient", static_cast<double>(state.iterations()));
}

// Many requests in flight on the loop: what a gateway sees. Per-request cost
// is wall time / requests and process CPU / requests.
void BM_Request_HttpClient_64InFlight(benchmark::State& state) {
  constexpr int kBatch = 256, kInFlight = 64;
  std::string url = g_base + "/small";
  Meter m;
  for (auto _ : state) {
    std::mutex mu;
    std::condition_variable cv;
    int started = 0, done = 0, failures = 0;
    std::function<void()> launch;
    auto on_complete = [&](const toolwire::Status& s, const HttpStats&) {
      bool more;
      {
        std::lock_guard<std::mutex> lock(mu);
        if (!s.ok()) ++failures;
        ++done;
        more = started < kBatch;
        if (more) ++started;
        if (done == kBatch) cv.notify_one();  // under the lock: the waiter's frame outlives it
      }
      if (more) launch();  // keep kInFlight requests outstanding (runs on the loop thread)
    };
    launch = [&] {
      HttpRequest req;
      req.url = url;
      client().start(std::move(req), HttpCallbacks{{}, {}, on_complete});
    };
    {
      std::lock_guard<std::mutex> lock(mu);
      started = kInFlight;
    }
    for (int i = 0; i < kInFlight; ++i) launch();
    std::unique_lock<std::mutex> lock(mu);
    cv.wait(lock, [&] { return done == kBatch; });
    if (failures) state.SkipWithError("request failed");
  }
  state.SetItemsProcessed(state.iterations() * kBatch);
  m.report(state, "request/HttpClient x64", static_cast<double>(state.iterations()) * kBatch);
}

void BM_Request_CurlEasy(benchmark::State& state) {
  CURL* e = curl_easy_init();
  std::string url = g_base + "/small";
  size_t bytes = 0;
  curl_easy_setopt(e, CURLOPT_URL, url.c_str());
  curl_easy_setopt(e, CURLOPT_WRITEFUNCTION, &discard);
  curl_easy_setopt(e, CURLOPT_WRITEDATA, &bytes);
  curl_easy_setopt(e, CURLOPT_NOSIGNAL, 1L);
  Meter m;
  for (auto _ : state) {
    if (curl_easy_perform(e) != CURLE_OK) state.SkipWithError("curl failed");
  }
  m.report(state, "request/curl_easy", static_cast<double>(state.iterations()));
  curl_easy_cleanup(e);
}

void BM_Request_CurlCli(benchmark::State& state) {
  std::string url = g_base + "/small";
  Meter m;
  for (auto _ : state) {
    if (run_curl_cli(url, false) != 0) state.SkipWithError("curl cli failed");
  }
  m.report(state, "request/curl_cli", static_cast<double>(state.iterations()));
}

// ---- per streamed event ------------------------------------------------------

void BM_Stream_HttpClient(benchmark::State& state) {
  HttpRequest req;
  req.url = g_base + "/stream?n=" + std::to_string(kStreamEvents);
  Meter m;
  for (auto _ : state) {
    std::mutex mu;
    std::condition_variable cv;
    bool done = false;
    bool ok = false;
    size_t bytes = 0;
    HttpCallbacks cb;
    cb.on_body = [&](std::string_view b) {
      bytes += b.size();
      return true;
    };
    cb.on_complete = [&](const toolwire::Status& s, const HttpStats&) {
      std::lock_guard<std::mutex> lock(mu);
      ok = s.ok();
      done = true;
      cv.notify_one();
    };
    client().start(req, std::move(cb));
    std::unique_lock<std::mutex> lock(mu);
    cv.wait(lock, [&] { return done; });
    if (!ok || bytes == 0) state.SkipWithError("stream failed");
  }
  state.SetItemsProcessed(state.iterations() * kStreamEvents);
  m.report(state, "event/HttpClient", static_cast<double>(state.iterations()) * kStreamEvents);
}

void BM_Stream_CurlEasy(benchmark::State& state) {
  CURL* e = curl_easy_init();
  std::string url = g_base + "/stream?n=" + std::to_string(kStreamEvents);
  size_t bytes = 0;
  curl_easy_setopt(e, CURLOPT_URL, url.c_str());
  curl_easy_setopt(e, CURLOPT_WRITEFUNCTION, &discard);
  curl_easy_setopt(e, CURLOPT_WRITEDATA, &bytes);
  curl_easy_setopt(e, CURLOPT_NOSIGNAL, 1L);
  Meter m;
  for (auto _ : state) {
    if (curl_easy_perform(e) != CURLE_OK) state.SkipWithError("curl failed");
  }
  state.SetItemsProcessed(state.iterations() * kStreamEvents);
  m.report(state, "event/curl_easy", static_cast<double>(state.iterations()) * kStreamEvents);
  curl_easy_cleanup(e);
}

void BM_Stream_CurlCli(benchmark::State& state) {
  std::string url = g_base + "/stream?n=" + std::to_string(kStreamEvents);
  Meter m;
  for (auto _ : state) {
    if (run_curl_cli(url, true) != 0) state.SkipWithError("curl cli failed");
  }
  state.SetItemsProcessed(state.iterations() * kStreamEvents);
  m.report(state, "event/curl_cli", static_cast<double>(state.iterations()) * kStreamEvents);
}

// ---- 1,000 concurrent streams ------------------------------------------------

// Samples VmRSS every 20 ms until stopped; keeps the peak.
struct RssSampler {
  std::atomic<bool> stop{false};
  std::atomic<long> peak{0};
  std::thread th{[this] {
    while (!stop.load()) {
      peak.store(std::max(peak.load(), rss_kb()));
      std::this_thread::sleep_for(std::chrono::milliseconds(20));
    }
  }};
  long finish() {
    stop = true;
    th.join();
    return std::max(peak.load(), rss_kb());
  }
};

void report_concurrent(benchmark::State& state, const std::string& name, long base_kb, long peak_kb,
                       double cpu, double wall, int failures) {
  state.counters["rss_peak_MB"] = peak_kb / 1024.0;
  state.counters["rss_added_MB"] = (peak_kb - base_kb) / 1024.0;
  state.counters["cpu_ms"] = cpu / 1e6;
  state.counters["cpu_pct_of_1_core"] = 100.0 * cpu / wall;
  state.counters["failures"] = failures;
  g_wall_runs[name + " rss_added_kB"].push_back(static_cast<double>(peak_kb - base_kb));
  g_cpu_runs[name].push_back(cpu / kConcurrent);
}

void BM_Concurrent1000_HttpClient(benchmark::State& state) {
  std::string url =
      g_base + "/slow?n=" + std::to_string(kSlowEvents) + "&ms=" + std::to_string(kSlowGapMs);
  for (auto _ : state) {
    long base = rss_kb();
    RssSampler sampler;
    Meter m;
    std::mutex mu;
    std::condition_variable cv;
    int done = 0, failures = 0;
    for (int i = 0; i < kConcurrent; ++i) {
      HttpRequest req;
      req.url = url;
      req.idle_timeout = std::chrono::seconds(10);
      HttpCallbacks cb;
      cb.on_complete = [&](const toolwire::Status& s, const HttpStats& st) {
        std::lock_guard<std::mutex> lock(mu);
        if (!s.ok() || st.body_bytes == 0) ++failures;
        if (++done == kConcurrent) cv.notify_one();
      };
      client().start(std::move(req), std::move(cb));
    }
    std::unique_lock<std::mutex> lock(mu);
    cv.wait(lock, [&] { return done == kConcurrent; });
    long peak = sampler.finish();
    double wall = std::chrono::duration<double, std::nano>(Clock::now() - m.t0).count();
    report_concurrent(state, "1000 streams/HttpClient", base, peak, cpu_ns(RUSAGE_SELF) - m.c0_self,
                      wall, failures);
    state.counters["threads"] = 1;
  }
}

void BM_Concurrent1000_ThreadPerRequest(benchmark::State& state) {
  std::string url =
      g_base + "/slow?n=" + std::to_string(kSlowEvents) + "&ms=" + std::to_string(kSlowGapMs);
  for (auto _ : state) {
    long base = rss_kb();
    RssSampler sampler;
    Meter m;
    std::atomic<int> failures{0};
    std::vector<std::thread> threads;
    threads.reserve(kConcurrent);
    for (int i = 0; i < kConcurrent; ++i) {
      threads.emplace_back([&] {
        CURL* e = curl_easy_init();
        size_t bytes = 0;
        curl_easy_setopt(e, CURLOPT_URL, url.c_str());
        curl_easy_setopt(e, CURLOPT_WRITEFUNCTION, &discard);
        curl_easy_setopt(e, CURLOPT_WRITEDATA, &bytes);
        curl_easy_setopt(e, CURLOPT_NOSIGNAL, 1L);
        if (curl_easy_perform(e) != CURLE_OK || bytes == 0) failures++;
        curl_easy_cleanup(e);
      });
    }
    for (auto& t : threads) t.join();
    long peak = sampler.finish();
    double wall = std::chrono::duration<double, std::nano>(Clock::now() - m.t0).count();
    report_concurrent(state, "1000 streams/thread per request", base, peak,
                      cpu_ns(RUSAGE_SELF) - m.c0_self, wall, failures.load());
    state.counters["threads"] = kConcurrent;
  }
}

void print_ratios() {
  auto w = [](const std::string& k) { return median(g_wall_runs[k]); };
  auto c = [](const std::string& k) { return median(g_cpu_runs[k]); };
  auto ratio = [&](const std::string& a, const std::string& b) {
    if (!g_wall_runs.count(a) || !g_wall_runs.count(b)) return;
    std::printf("  %-22s wall %9.2f us  cpu %9.2f us | vs %-16s wall x%.3f  cpu x%.3f\n", a.c_str(),
                w(a) / 1e3, c(a) / 1e3, b.c_str(), w(a) / w(b), c(a) / c(b));
  };
  std::printf(
      "\nratios (HttpClient / baseline, per item, medians of the repetitions; < 1 is cheaper):\n");
  ratio("request/HttpClient", "request/curl_easy");
  ratio("request/HttpClient", "request/curl_cli");
  ratio("request/HttpClient x64", "request/curl_easy");
  ratio("event/HttpClient", "event/curl_easy");
  ratio("event/HttpClient", "event/curl_cli");
  std::string a = "1000 streams/HttpClient", b = "1000 streams/thread per request";
  if (g_cpu_runs.count(a) && g_cpu_runs.count(b)) {
    // Largest over the repetitions: later ones reuse memory the first one left to the allocator.
    auto mx = [](const std::vector<double>& v) {
      return v.empty() ? 0.0 : *std::max_element(v.begin(), v.end());
    };
    double ra = mx(g_wall_runs[a + " rss_added_kB"]), rb = mx(g_wall_runs[b + " rss_added_kB"]);
    std::printf(
        "  1000 streams: HttpClient added %.1f MB, thread-per-request added %.1f MB (x%.2f); "
        "CPU per stream %.0f us vs %.0f us (x%.2f)\n",
        ra / 1024, rb / 1024, ra / rb, c(a) / 1e3, c(b) / 1e3, c(a) / c(b));
  }
}

}  // namespace

BENCHMARK(BM_Request_HttpClient)->UseRealTime()->MinTime(1.0);
BENCHMARK(BM_Request_HttpClient_64InFlight)->UseRealTime()->MinTime(1.0);
BENCHMARK(BM_Request_CurlEasy)->UseRealTime()->MinTime(1.0);
BENCHMARK(BM_Request_CurlCli)->UseRealTime()->MinTime(1.0);
BENCHMARK(BM_Stream_HttpClient)->UseRealTime()->MinTime(1.0);
BENCHMARK(BM_Stream_CurlEasy)->UseRealTime()->MinTime(1.0);
BENCHMARK(BM_Stream_CurlCli)->UseRealTime()->MinTime(1.0);
// The concurrent runs come first in their pair so the baseline's threads do not inflate the
// client's RSS.
BENCHMARK(BM_Concurrent1000_HttpClient)
    ->UseRealTime()
    ->Iterations(1)
    ->Unit(benchmark::kMillisecond);
BENCHMARK(BM_Concurrent1000_ThreadPerRequest)
    ->UseRealTime()
    ->Iterations(1)
    ->Unit(benchmark::kMillisecond);

int main(int argc, char** argv) {
  start_server_process();  // before any thread exists
  curl_global_init(CURL_GLOBAL_DEFAULT);
  benchmark::Initialize(&argc, argv);
  if (benchmark::ReportUnrecognizedArguments(argc, argv)) return 1;
  benchmark::RunSpecifiedBenchmarks();
  benchmark::Shutdown();
  print_ratios();
  return 0;
}
