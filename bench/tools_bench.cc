// Tool dispatch overhead and executor throughput.
//
// BM_Baseline_*: parse the same arguments with nlohmann::json (what any
// handler-side code pays anyway); BM_Dispatch_*: Registry::dispatch =
// lookup + parse + validation + handler call + result. Report the ratio.
// BM_Executor_1000x50ms: 1,000 calls that each sleep 50 ms with limit L;
// expected wall time ~ 50 ms * ceil(1000 / L).
#include <benchmark/benchmark.h>

#include <chrono>
#include <string>
#include <thread>

#include "toolwire/tools/executor.h"
#include "toolwire/tools/registry.h"

using namespace toolwire;
using namespace toolwire::tools;
using nlohmann::json;

namespace {

const char* kSmallSchema =
    R"({"type":"object","properties":{"city":{"type":"string"},"unit":{"type":"string","enum":["c","f"]}},
        "required":["city"],"additionalProperties":false})";
const char* kSmallArgs = R"({"city":"Oslo","unit":"c"})";

// 30 properties: 10 top-level scalars, 2 nested objects of 8 and a list of 4-field items.
std::string big_schema() {
  json props = json::object();
  for (int i = 0; i < 10; ++i)
    props["s" + std::to_string(i)] = {{"type", i % 2 ? "string" : "integer"}};
  json inner = json::object();
  for (int i = 0; i < 8; ++i) inner["f" + std::to_string(i)] = {{"type", "number"}, {"minimum", 0}};
  props["a"] = {{"type", "object"}, {"properties", inner}, {"required", {"f0", "f1"}}};
  props["b"] = {{"type", "object"}, {"properties", inner}, {"additionalProperties", false}};
  json item = {{"type", "object"},
               {"properties",
                {{"k", {{"type", "string"}, {"maxLength", 32}}},
                 {"v", {{"type", "integer"}}},
                 {"on", {{"type", "boolean"}}},
                 {"tag", {{"enum", {"x", "y", "z"}}}}}},
               {"required", {"k", "v"}}};
  props["list"] = {{"type", "array"}, {"items", item}, {"maxItems", 16}};
  return json{{"type", "object"}, {"properties", props}, {"required", {"s0", "a", "list"}}}.dump();
}

std::string big_args() {
  json a = json::object();
  for (int i = 0; i < 10; ++i) a["s" + std::to_string(i)] = i % 2 ? json("text") : json(i);
  json inner = json::object();
  for (int i = 0; i < 8; ++i) inner["f" + std::to_string(i)] = i * 1.5;
  a["a"] = inner;
  a["b"] = inner;
  a["list"] = json::array();
  for (int i = 0; i < 4; ++i)
    a["list"].push_back({{"k", "key"}, {"v", i}, {"on", true}, {"tag", "y"}});
  return a.dump();
}

Registry make_registry() {
  Registry reg;
  for (auto [name, schema] :
       {std::pair<const char*, std::string>{"small", kSmallSchema}, {"big", big_schema()}}) {
    ToolSpec s;
    s.name = name;
    s.input_schema = schema;
    s.handler = SyncHandler([](const json&, ToolContext&) { return ToolOutput::text("ok"); });
    if (!reg.add(std::move(s)).ok()) std::abort();
  }
  // A registry is rarely one tool: lookups happen among a few dozen.
  for (int i = 0; i < 30; ++i) {
    ToolSpec s;
    s.name = "other_" + std::to_string(i);
    s.handler = SyncHandler([](const json&, ToolContext&) { return ToolOutput::text("ok"); });
    (void)reg.add(std::move(s));
  }
  return reg;
}

void baseline(benchmark::State& state, const std::string& args) {
  for (auto _ : state) {
    json j = json::parse(args);
    benchmark::DoNotOptimize(j);
  }
}

void dispatch(benchmark::State& state, const char* tool, const std::string& args) {
  Registry reg = make_registry();
  ir::ToolCallPart call{"call_1", tool, args, true};
  if (reg.dispatch(call).is_error) std::abort();  // the arguments must be valid
  for (auto _ : state) {
    ir::ToolResultPart r = reg.dispatch(call);
    benchmark::DoNotOptimize(r);
  }
}

void BM_Baseline_ParseSmall(benchmark::State& s) { baseline(s, kSmallArgs); }
void BM_Dispatch_Small(benchmark::State& s) { dispatch(s, "small", kSmallArgs); }
void BM_Baseline_Parse30Props(benchmark::State& s) { baseline(s, big_args()); }
void BM_Dispatch_30Props(benchmark::State& s) { dispatch(s, "big", big_args()); }
BENCHMARK(BM_Baseline_ParseSmall);
BENCHMARK(BM_Dispatch_Small);
BENCHMARK(BM_Baseline_Parse30Props);
BENCHMARK(BM_Dispatch_30Props);

void BM_Executor_1000x50ms(benchmark::State& state) {
  Registry reg;
  ToolSpec s;
  s.name = "wait";
  s.handler = SyncHandler([](const json&, ToolContext& ctx) {
    ctx.cancel.wait_for(std::chrono::milliseconds(50));
    return ToolOutput::text("done");
  });
  if (!reg.add(std::move(s)).ok()) std::abort();
  const size_t limit = static_cast<size_t>(state.range(0));
  Executor ex(reg, {.max_concurrency = limit});
  std::vector<ir::ToolCallPart> calls(1000, ir::ToolCallPart{"c", "wait", "{}", true});
  for (auto _ : state) {
    auto r = ex.run(calls);
    benchmark::DoNotOptimize(r);
  }
  double expected_ms = 50.0 * static_cast<double>((1000 + limit - 1) / limit);
  state.counters["expected_ms"] = expected_ms;
}
BENCHMARK(BM_Executor_1000x50ms)
    ->Arg(50)
    ->Arg(100)
    ->Arg(250)
    ->Arg(1000)
    ->Unit(benchmark::kMillisecond)
    ->UseRealTime()
    ->Iterations(1);

}  // namespace

BENCHMARK_MAIN();
