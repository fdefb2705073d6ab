// Agent loop overhead: one user turn of two rounds (a tool call, then text)
// through agent::Agent, against the same work done by hand (two scripted
// model calls and one registry dispatch) in the same run. The ratio is what
// the loop adds: inbox, events, history, the executor's worker hand-off.
//
//   build/bench/agent_bench --benchmark_counters_tabular=true
#include <benchmark/benchmark.h>

#include "toolwire/agent/agent.h"
#include "toolwire/provider/scripted.h"

namespace {

using namespace toolwire;

const char* kScript = R"js({
  "rules": [
    {"user_pattern": "weather in (\\w+)", "calls": [{"name": "get_weather", "arguments": {"city": "$1"}}]},
    {"after_tool": "get_weather", "reply": "It is {{result}} there."}
  ]
})js";

tools::Registry make_registry() {
  tools::Registry reg;
  tools::ToolSpec s;
  s.name = "get_weather";
  s.input_schema =
      R"({"type":"object","properties":{"city":{"type":"string"}},"required":["city"]})";
  s.handler = tools::SyncHandler([](const nlohmann::json& a, tools::ToolContext&) {
    return tools::ToolOutput::text("sunny in " + a["city"].get<std::string>());
  });
  (void)reg.add(std::move(s));
  return reg;
}

// Baseline: the same two model calls and one tool dispatch, no loop.
void BM_ByHand(benchmark::State& state) {
  provider::ScriptedProvider model(*provider::parse_script(kScript));
  tools::Registry reg = make_registry();
  for (auto _ : state) {
    ir::Request req;
    req.tools = reg.definitions();
    req.messages.push_back(ir::Message{ir::Role::user, {ir::TextPart{"weather in Oslo"}}, {}});
    auto g1 = model.stream_sync(req, [](const ir::StreamEvent&) {});
    auto call = std::get<ir::ToolCallPart>(g1->response.parts.back());
    req.messages.push_back(ir::Message{ir::Role::assistant, g1->response.parts, {}});
    req.messages.push_back(ir::Message{ir::Role::tool, {reg.dispatch(call)}, {}});
    auto g2 = model.stream_sync(req, [](const ir::StreamEvent&) {});
    benchmark::DoNotOptimize(g2);
  }
  state.SetItemsProcessed(state.iterations());
}
BENCHMARK(BM_ByHand);

void BM_AgentTurn(benchmark::State& state) {
  provider::ScriptedProvider model(*provider::parse_script(kScript));
  tools::Registry reg = make_registry();
  agent::Agent a(model, reg);
  size_t events = 0;
  for (auto _ : state) {
    a.set_history({});
    auto r = a.run("weather in Oslo", [&](const agent::Event&) { ++events; });
    benchmark::DoNotOptimize(r);
  }
  state.SetItemsProcessed(state.iterations());
  state.counters["events_per_turn"] =
      static_cast<double>(events) / static_cast<double>(state.iterations());
}
BENCHMARK(BM_AgentTurn);

}  // namespace

BENCHMARK_MAIN();
