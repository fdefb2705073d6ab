// MCP overhead: one tools/call through toolwire's MCP server (parse, id
// bookkeeping, executor hop, schema validation, result mapping, serialize)
// next to calling the registry directly and the executor alone; a round trip
// to a stdio server (`toolwire mcp serve`, a child process) and to the
// gateway's /mcp over HTTP.
//
//   cmake -S . -B build -DTOOLWIRE_BENCH=ON && ninja -C build mcp_bench toolwire
//   TOOLWIRE_BINARY=build/src/cli/toolwire build/bench/mcp_bench  (docs/benchmarks.md, "MCP")
#include <benchmark/benchmark.h>

#include <condition_variable>
#include <cstdlib>
#include <filesystem>
#include <fstream>
#include <mutex>

#include "toolwire/gateway/gateway.h"
#include "toolwire/gateway/routing.h"
#include "toolwire/mcp/client.h"
#include "toolwire/mcp/server.h"
#include "toolwire/provider/scripted.h"
#include "toolwire/tools/executor.h"
#include "toolwire/tools/registry.h"

namespace {

using namespace toolwire;
using nlohmann::json;

std::shared_ptr<tools::Registry> echo_registry() {
  auto reg = std::make_shared<tools::Registry>();
  tools::ToolSpec echo;
  echo.name = "echo";
  echo.input_schema =
      R"({"type":"object","properties":{"message":{"type":"string"}},"required":["message"]})";
  echo.handler = tools::SyncHandler([](const json& a, tools::ToolContext&) {
    return tools::ToolOutput::text(a["message"].get<std::string>());
  });
  (void)reg->add(std::move(echo));
  return reg;
}

const ir::ToolCallPart kCall{"c1", "echo", R"({"message":"hello"})"};

void BM_RegistryDispatch(benchmark::State& state) {
  auto reg = echo_registry();
  for (auto _ : state) benchmark::DoNotOptimize(reg->dispatch(kCall));
}
BENCHMARK(BM_RegistryDispatch);

void BM_ExecutorRunOne(benchmark::State& state) {
  auto reg = echo_registry();
  tools::Executor ex(*reg, {.max_concurrency = 1});
  for (auto _ : state) benchmark::DoNotOptimize(ex.run_one(kCall));
}
BENCHMARK(BM_ExecutorRunOne)->UseRealTime();

// A tools/call frame in, the answer frame out, in process.
void BM_McpServerToolsCall(benchmark::State& state) {
  auto reg = echo_registry();
  std::mutex mu;
  std::condition_variable cv;
  std::string answer;
  mcp::ServerOptions o;
  o.max_concurrency = 1;
  mcp::Server server(*reg, o, [&](std::string frame) {
    std::lock_guard lock(mu);
    answer = std::move(frame);
    cv.notify_one();
  });
  const std::string frame =
      R"({"jsonrpc":"2.0","id":7,"method":"tools/call","params":{"name":"echo",)"
      R"("arguments":{"message":"hello"}}})";
  for (auto _ : state) {
    server.handle_frame(frame);
    std::unique_lock lock(mu);
    cv.wait(lock, [&] { return !answer.empty(); });
    answer.clear();
  }
  server.shutdown();
}
BENCHMARK(BM_McpServerToolsCall)->UseRealTime();

std::shared_ptr<mcp::Client> stdio_client() {
  const char* bin = std::getenv("TOOLWIRE_BINARY");
  if (!bin) return nullptr;
  static std::filesystem::path dir = [] {
    auto d = std::filesystem::temp_directory_path() / "tw_mcp_bench";
    std::filesystem::create_directories(d);
    std::ofstream(d / "a.txt") << "hello\n";
    return d;
  }();
  mcp::ClientOptions o;
  o.server.argv = {bin, "mcp", "serve", "--workspace", dir.string()};
  auto c = mcp::Client::create(o);
  if (!c->connect().ok()) return nullptr;
  return c;
}

void BM_StdioPing(benchmark::State& state) {
  auto c = stdio_client();
  if (!c) return state.SkipWithError("set TOOLWIRE_BINARY to the toolwire executable");
  for (auto _ : state)
    if (!c->ping().ok()) return state.SkipWithError("ping failed");
  c->close();
}
BENCHMARK(BM_StdioPing)->UseRealTime();

void BM_StdioToolsCall(benchmark::State& state) {
  auto c = stdio_client();
  if (!c) return state.SkipWithError("set TOOLWIRE_BINARY to the toolwire executable");
  for (auto _ : state) {
    auto r = c->call_tool("read", {{"path", "a.txt"}});
    if (!r.ok() || r->is_error) return state.SkipWithError("tools/call failed");
  }
  c->close();
}
BENCHMARK(BM_StdioToolsCall)->UseRealTime();

// toolwire's client → the gateway's /mcp (HTTP/1.1 on loopback, one POST each).
void BM_GatewayHttpToolsCall(benchmark::State& state) {
  auto script = provider::parse_script(R"({"rules":[]})");
  auto router = std::make_shared<gateway::PatternRouter>();
  auto* p = router->own(std::make_unique<provider::ScriptedProvider>(std::move(*script)));
  router->add_route({.pattern = "*", .aliases = {}, .targets = {{p, "", "scripted"}}});
  gateway::GatewayOptions go;
  go.port = 0;
  go.threads = 1;
  go.log_requests = false;
  go.log = [](std::string_view) {};
  gateway::Gateway gw(go, router);
  gw.set_mcp_tools(echo_registry());
  if (!gw.start().ok()) return state.SkipWithError("gateway did not start");
  mcp::ClientOptions o;
  o.http.url = "http://127.0.0.1:" + std::to_string(gw.port()) + "/mcp";
  auto c = mcp::Client::create(o);
  if (!c->connect().ok()) return state.SkipWithError("connect failed");
  for (auto _ : state) {
    auto r = c->call_tool("echo", {{"message", "hello"}});
    if (!r.ok() || r->is_error) return state.SkipWithError("tools/call failed");
  }
  c->close();
  gw.stop();
  gw.wait();
}
BENCHMARK(BM_GatewayHttpToolsCall)->UseRealTime();

}  // namespace

BENCHMARK_MAIN();
