// Text-format parsers (src/textformats): a model's output with tool calls,
// streamed ~4 bytes per delta (one token), against the re-parse-everything-
// per-token approach (llama.cpp's: parse the whole output so far on every
// token, then diff) in the same run; the per-token cost at 1 KB vs 32 KB; and
// one-piece throughput.
//
//   build/bench/textformats_bench --benchmark_counters_tabular=true
#include <benchmark/benchmark.h>

#include <string>
#include <vector>

#include "toolwire/textformats/parser.h"

namespace {

using namespace toolwire;

// Prose paragraphs with a hermes call every ~1 KB (a quarter of the bytes are calls).
std::string make_output(size_t size) {
  const std::string prose =
      "The forecast for the coming days looks mixed: rain in the morning, some sun in the "
      "afternoon, and a cool wind from the north. <b>Note</b> that a < b in this table. ";
  const std::string call =
      "<tool_call>\n{\"name\": \"get_weather\", \"arguments\": {\"city\": \"Zürich\", "
      "\"days\": 3, \"options\": {\"units\": \"metric\", \"fields\": [\"temp\", \"wind\", "
      "\"rain\"], \"note\": \"say \\\"hi\\\" {now}\"}}}\n</tool_call>\n";
  std::string out;
  while (out.size() < size) {
    for (int i = 0; i < 4 && out.size() < size; ++i) out += prose;
    out += call;
  }
  return out;
}

std::vector<std::string_view> tokens(const std::string& s) {
  std::vector<std::string_view> t;
  for (size_t i = 0; i < s.size(); i += 4) t.push_back(std::string_view(s).substr(i, 4));
  return t;
}

void report(benchmark::State& state, size_t bytes, size_t ntokens) {
  state.SetBytesProcessed(static_cast<int64_t>(state.iterations() * bytes));
  state.counters["tokens"] = static_cast<double>(ntokens);
  // Seconds per token, shown in ns by --benchmark_counters_tabular.
  state.counters["s_per_token"] =
      benchmark::Counter(static_cast<double>(ntokens) * static_cast<double>(state.iterations()),
                         benchmark::Counter::kIsRate | benchmark::Counter::kInvert);
}

// Incremental: one parser, one feed per token.
void BM_Streamed(benchmark::State& state) {
  std::string out = make_output(static_cast<size_t>(state.range(0)));
  auto toks = tokens(out);
  size_t calls = 0;
  for (auto _ : state) {
    auto p = textformats::make_parser("hermes").value();
    textformats::ParseOutput o;
    o.events.reserve(toks.size() * 2);
    for (std::string_view t : toks) p->feed(t, o);
    p->finish(o);
    calls = 0;
    for (const auto& e : o.events) calls += std::holds_alternative<ir::ToolCallEnd>(e);
    benchmark::DoNotOptimize(o);
  }
  state.counters["calls"] = static_cast<double>(calls);
  report(state, out.size(), toks.size());
}

// Baseline: on every token, parse the whole output so far from scratch (the
// diff against the previous result is not even counted).
void BM_ReparsePerToken(benchmark::State& state) {
  std::string out = make_output(static_cast<size_t>(state.range(0)));
  auto toks = tokens(out);
  for (auto _ : state) {
    size_t seen = 0;
    for (size_t i = 0; i < toks.size(); ++i) {
      seen += toks[i].size();
      auto p = textformats::make_parser("hermes").value();
      textformats::ParseOutput o;
      p->feed(std::string_view(out).substr(0, seen), o);
      p->finish(o);
      benchmark::DoNotOptimize(o);
    }
  }
  report(state, out.size(), toks.size());
}

// The whole output in one feed.
void BM_OnePiece(benchmark::State& state) {
  std::string out = make_output(static_cast<size_t>(state.range(0)));
  for (auto _ : state) {
    auto p = textformats::make_parser("hermes").value();
    textformats::ParseOutput o;
    p->feed(out, o);
    p->finish(o);
    benchmark::DoNotOptimize(o);
  }
  state.SetBytesProcessed(static_cast<int64_t>(state.iterations() * out.size()));
}

// Prose only (no markup byte at all): the memchr path.
void BM_OnePieceProse(benchmark::State& state) {
  std::string out;
  while (out.size() < static_cast<size_t>(state.range(0)))
    out += "The forecast for the coming days looks mixed, with rain and some sun. ";
  for (auto _ : state) {
    auto p = textformats::make_parser("hermes").value();
    textformats::ParseOutput o;
    p->feed(out, o);
    p->finish(o);
    benchmark::DoNotOptimize(o);
  }
  state.SetBytesProcessed(static_cast<int64_t>(state.iterations() * out.size()));
}

BENCHMARK(BM_Streamed)->Arg(1 << 10)->Arg(32 << 10);
BENCHMARK(BM_ReparsePerToken)->Arg(1 << 10)->Arg(32 << 10)->Unit(benchmark::kMillisecond);
BENCHMARK(BM_OnePiece)->Arg(32 << 10)->Arg(1 << 20);
BENCHMARK(BM_OnePieceProse)->Arg(1 << 20);

}  // namespace

BENCHMARK_MAIN();
