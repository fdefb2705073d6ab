// JSON string escaping, the one loop every encoder's output goes through:
// each escaper variant this CPU runs (src/core/json_escape.h) next to the
// portable SSE2 one and to nlohmann::json's dump of the same string, on three
// kinds of text of ~12 KB: prose (quotes and line breaks every ~60 bytes),
// JSON text (tool arguments or JSON tool results sent inside a string: an
// escape every ~6 bytes) and clean ASCII.
//
//   build/bench/escape_bench --benchmark_repetitions=6 --benchmark_enable_random_interleaving=true
//       --benchmark_report_aggregates_only=true     (one command line)
//
// Results: docs/benchmarks/codecs.md.
#include <benchmark/benchmark.h>

#include <nlohmann/json.hpp>
#include <string>

#include "core/json_escape.h"

namespace {

using toolwire::detail::EscapeIsa;

std::string text_of(int kind) {
  std::string s;
  while (s.size() < 12000) {
    if (kind == 0)
      s += "The report shows revenue for Q3 grew by 12% in M\xc3\xbcnchen; see \"table 4\" and the "
           "appendix\n";
    else if (kind == 1)
      s +=
          R"({"query":"revenue by region","limit":10,"mode":"thorough","filters":{"tags":["q3","eu"]}},)";
    else
      s += "the quarterly report shows revenue and costs by region and product line for every "
           "month ";
  }
  return s;
}
const char* kind_name(int kind) {
  return kind == 0 ? "prose" : kind == 1 ? "json text" : "clean ascii";
}

void BM_Escape(benchmark::State& state) {
  const auto isa = static_cast<EscapeIsa>(state.range(0));
  const std::string in = text_of(static_cast<int>(state.range(1)));
  if (!toolwire::detail::escape_isa_available(isa)) {
    state.SkipWithError("this CPU cannot run this variant");
    return;
  }
  std::string out;
  out.reserve(in.size() * 3);
  for (auto _ : state) {
    out.clear();
    toolwire::detail::append_escaped_with(isa, out, in);
    benchmark::DoNotOptimize(out.data());
  }
  state.SetBytesProcessed(static_cast<int64_t>(state.iterations()) *
                          static_cast<int64_t>(in.size()));
  state.SetLabel(std::string(isa == EscapeIsa::avx512 ? "avx512"
                             : isa == EscapeIsa::avx2 ? "avx2"
                                                      : "sse2") +
                 ", " + kind_name(static_cast<int>(state.range(1))));
}
BENCHMARK(BM_Escape)->ArgsProduct({{static_cast<int>(EscapeIsa::portable),
                                    static_cast<int>(EscapeIsa::avx2),
                                    static_cast<int>(EscapeIsa::avx512)},
                                   {0, 1, 2}});

// Baseline: nlohmann::json's serializer on the same string.
void BM_Escape_Nlohmann(benchmark::State& state) {
  const nlohmann::json in = text_of(static_cast<int>(state.range(0)));
  const size_t bytes = in.get_ref<const std::string&>().size();
  for (auto _ : state) {
    std::string out = in.dump();
    benchmark::DoNotOptimize(out.data());
  }
  state.SetBytesProcessed(static_cast<int64_t>(state.iterations()) * static_cast<int64_t>(bytes));
  state.SetLabel(kind_name(static_cast<int>(state.range(0))));
}
BENCHMARK(BM_Escape_Nlohmann)->Arg(0)->Arg(1)->Arg(2);

}  // namespace

BENCHMARK_MAIN();
