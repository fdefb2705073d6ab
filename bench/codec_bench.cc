// Codec benchmark: decode, and decode + translate + encode, of a generated
// ~64 KB chat request (20 tools with realistic schemas, 30 turns with tool
// calls and results) in OpenAI and Anthropic form, and of a long tool-call
// stream — next to the baseline in the same run: the same bytes parsed and
// re-serialized with nlohmann::json (what a DOM-based gateway does).
//
//   build/bench/codec_bench --benchmark_repetitions=3 --benchmark_report_aggregates_only=true
//
// Results and ratios: docs/benchmarks/codecs.md.
#include <benchmark/benchmark.h>
#include <simdjson.h>

#include <cstdlib>
#include <new>
#include <nlohmann/json.hpp>
#include <string>
#include <vector>

#include "toolwire/dialects/codec.h"

// Every operator new of the process is counted, so each request benchmark can
// report how many heap allocations one operation makes (the `allocs` counter):
// allocation count is what separates a fast decoder from a DOM round trip as
// much as parsing speed does. One non-atomic increment: the benchmarks run on
// one thread. (GCC cannot see that malloc/free are what operator new/delete
// are made of here, and warns at every inlined delete.)
//
// While `g_bump` is set, operator new instead hands out the next bytes of a
// static buffer and delete of those bytes does nothing: the `*_BumpAllocator`
// benchmarks use it to measure what an operation would cost if allocating
// were free. (Session 5 used it to bound what an arena could buy; since
// translate_request runs on a borrowed, arena-backed IR, its row and the
// usual one should agree: the arena leaves nothing for the bump to remove.)
#pragma GCC diagnostic ignored "-Wmismatched-new-delete"
namespace {
uint64_t g_allocations = 0;
bool g_bump = false;
size_t g_bump_used = 0;
alignas(64) char g_bump_buffer[32 << 20];
bool in_bump_buffer(void* p) {
  return static_cast<char*>(p) >= g_bump_buffer &&
         static_cast<char*>(p) < g_bump_buffer + sizeof g_bump_buffer;
}
}  // namespace
void* operator new(std::size_t n) {
  ++g_allocations;
  if (g_bump) {
    const size_t rounded = (n + 15) & ~size_t{15};
    if (rounded <= sizeof g_bump_buffer - g_bump_used) {
      void* p = g_bump_buffer + g_bump_used;
      g_bump_used += rounded;
      return p;
    }
  }
  if (void* p = std::malloc(n ? n : 1)) return p;
  throw std::bad_alloc();
}
void operator delete(void* p) noexcept {
  if (!in_bump_buffer(p)) std::free(p);
}
void operator delete(void* p, std::size_t) noexcept {
  if (!in_bump_buffer(p)) std::free(p);
}

namespace {

using nlohmann::json;
using toolwire::Warnings;
namespace dialects = toolwire::dialects;

const dialects::Codec& openai() { return *dialects::find_codec("openai_chat"); }
const dialects::Codec& anthropic() { return *dialects::find_codec("anthropic_messages"); }

// Deterministic filler text, with some non-ASCII and escapes like real chats.
std::string prose(int words, int salt) {
  static const char* const kWords[] = {
      "the",     "report",    "shows", "revenue", "for",         "Q3",    "grew",  "by",
      "12%",     "compared",  "to",    "last",    "year,",       "while", "costs", "in",
      "München", "stayed",    "flat;", "see",     "\"table 4\"", "and",   "the",   "appendix\n",
      "—",       "customers", "asked", "about",   "pricing",     "tiers", "again."};
  constexpr int n = sizeof(kWords) / sizeof(kWords[0]);
  std::string out;
  for (int i = 0; i < words; ++i) {
    if (i) out += ' ';
    out += kWords[(i * 7 + salt * 13) % n];
  }
  return out;
}

json tool_schema(int i) {
  json props = json::object();
  props["query"] = {{"type", "string"}, {"description", "What to look for; " + prose(8, i)}};
  props["limit"] = {
      {"type", "integer"}, {"minimum", 1}, {"maximum", 100}, {"description", "Maximum results"}};
  props["mode"] = {{"type", "string"}, {"enum", {"fast", "thorough", "exhaustive"}}};
  props["filters"] = {{"type", "object"},
                      {"properties",
                       {{"from", {{"type", "string"}, {"format", "date"}}},
                        {"to", {{"type", "string"}, {"format", "date"}}},
                        {"tags", {{"type", "array"}, {"items", {{"type", "string"}}}}}}}};
  if (i % 3 == 0) props["include_archived"] = {{"type", "boolean"}, {"default", false}};
  return {{"type", "object"},
          {"properties", props},
          {"required", {"query"}},
          {"additionalProperties", false}};
}

// The request in OpenAI form, sized to about 64 KB.
std::string openai_request() {
  json tools = json::array();
  for (int i = 0; i < 20; ++i)
    tools.push_back(
        {{"type", "function"},
         {"function",
          {{"name", "tool_" + std::to_string(i) + "_search"},
           {"description", "Searches data source " + std::to_string(i) + ". " + prose(25, i)},
           {"parameters", tool_schema(i)}}}});
  json messages = json::array();
  messages.push_back(
      {{"role", "system"}, {"content", "You are a meticulous analyst. " + prose(120, 1)}});
  int call = 0;
  for (int t = 0; t < 30; ++t) {
    messages.push_back({{"role", "user"}, {"content", prose(40 + t % 7, t)}});
    json calls = json::array();
    int n_calls = 1 + t % 2;
    for (int c = 0; c < n_calls; ++c) {
      json args = {{"query", prose(6, t + c)},
                   {"limit", 10 + c},
                   {"mode", "thorough"},
                   {"filters", {{"from", "2024-01-01"}, {"tags", {"finance", "q3"}}}}};
      calls.push_back({{"id", "call_" + std::to_string(call++) + "_aZ3kP9xQ"},
                       {"type", "function"},
                       {"function",
                        {{"name", "tool_" + std::to_string((t + c) % 20) + "_search"},
                         {"arguments", args.dump()}}}});
    }
    messages.push_back({{"role", "assistant"}, {"content", prose(20, t)}, {"tool_calls", calls}});
    for (int c = 0; c < n_calls; ++c)
      messages.push_back(
          {{"role", "tool"},
           {"tool_call_id", calls[c]["id"]},
           {"content", json({{"rows", 3}, {"summary", prose(70, t * 3 + c)}}).dump()}});
  }
  json req = {{"model", "gpt-4o"},     {"messages", messages},          {"tools", tools},
              {"tool_choice", "auto"}, {"max_completion_tokens", 2048}, {"temperature", 0.2}};
  return req.dump();
}

std::string anthropic_request(const std::string& openai_json) {
  Warnings w;
  auto ir = openai().decode_request(openai_json, w);
  if (!ir) return {};
  auto out = anthropic().encode_request(*ir, w);
  return out ? *out : std::string();
}

// A long streamed turn: 200 text deltas, then one tool call whose arguments
// arrive in 2,000 fragments (a large file write), in OpenAI SSE. Keys are in
// the order OpenAI writes them (id, object, created, model,
// system_fingerprint, choices[{index, delta, logprobs, finish_reason}], as in
// the recorded streams of tests/data/wire); with `sorted_keys` they come
// alphabetically, as nlohmann::json writes them, a layout no real server
// sends that keeps the decoder off its fast path (see docs/benchmarks/codecs.md).
template <class Json>
std::string openai_stream_as() {
  auto chunk = [](Json delta, Json finish = nullptr) {
    Json choice = {
        {"index", 0}, {"delta", delta}, {"logprobs", nullptr}, {"finish_reason", finish}};
    Json c = {{"id", "chatcmpl-bench"},
              {"object", "chat.completion.chunk"},
              {"created", 1700000000},
              {"model", "gpt-4o"},
              {"system_fingerprint", "fp_44709d6fcb"},
              {"choices", Json::array({choice})}};
    return "data: " + c.dump() + "\n\n";
  };
  auto call_delta = [](Json call) { return Json{{"tool_calls", Json::array({call})}}; };
  std::string sse = chunk({{"role", "assistant"}, {"content", ""}});
  for (int i = 0; i < 200; ++i) sse += chunk({{"content", prose(2, i) + " "}});
  sse += chunk(call_delta({{"index", 0},
                           {"id", "call_bench"},
                           {"type", "function"},
                           {"function", {{"name", "write_file"}, {"arguments", ""}}}}));
  sse += chunk(call_delta(
      {{"index", 0}, {"function", {{"arguments", "{\"path\":\"out.md\",\"content\":\""}}}}));
  for (int i = 0; i < 2000; ++i)
    sse += chunk(call_delta({{"index", 0}, {"function", {{"arguments", prose(2, i) + " "}}}}));
  sse += chunk(call_delta({{"index", 0}, {"function", {{"arguments", "\"}"}}}}));
  sse += chunk(Json::object(), "tool_calls");
  return sse + "data: [DONE]\n\n";
}
std::string openai_stream() { return openai_stream_as<nlohmann::ordered_json>(); }
std::string openai_stream_sorted() { return openai_stream_as<json>(); }

std::string translate_stream(const dialects::Codec& from, const dialects::Codec& to,
                             const std::string& bytes) {
  auto dec = from.make_stream_decoder();
  auto enc = to.make_stream_encoder();
  std::vector<toolwire::ir::StreamEvent> events;
  std::string out;
  if (!dec->feed(bytes, events) || !dec->finish(events)) return {};
  for (const auto& e : events) enc->encode(e, out);
  return out;
}

struct Payloads {
  std::string openai_req = openai_request();
  std::string anthropic_req = anthropic_request(openai_req);
  std::string openai_sse = openai_stream();
  std::string anthropic_sse = translate_stream(openai(), anthropic(), openai_sse);
  std::string openai_sse_sorted = openai_stream_sorted();
};
const Payloads& payloads() {
  static const Payloads p;
  return p;
}

const std::string& request_of(int dialect) {
  return dialect == 0 ? payloads().openai_req : payloads().anthropic_req;
}
// Streams: 0 OpenAI, 1 Anthropic, 2 OpenAI with alphabetically sorted keys.
const std::string& stream_of(int dialect) {
  return dialect == 0   ? payloads().openai_sse
         : dialect == 1 ? payloads().anthropic_sse
                        : payloads().openai_sse_sorted;
}
const dialects::Codec& codec_of(int dialect) { return dialect == 1 ? anthropic() : openai(); }
const dialects::Codec& other_codec(int dialect) { return dialect == 1 ? openai() : anthropic(); }

// Heap allocations made by one call of `op` (run once more, after the timing).
template <class Op>
void count_allocations(benchmark::State& state, Op&& op) {
  uint64_t before = g_allocations;
  op();
  state.counters["allocs"] = static_cast<double>(g_allocations - before);
}

void label(benchmark::State& state, const std::string& bytes) {
  state.SetBytesProcessed(static_cast<int64_t>(state.iterations()) *
                          static_cast<int64_t>(bytes.size()));
  state.counters["payload_bytes"] = static_cast<double>(bytes.size());
  state.SetLabel(state.range(0) == 0   ? "openai"
                 : state.range(0) == 1 ? "anthropic"
                                       : "openai, sorted keys");
}

// ---- requests ----------------------------------------------------------------

void BM_Request_Decode(benchmark::State& state) {
  const std::string& bytes = request_of(state.range(0));
  const dialects::Codec& c = codec_of(state.range(0));
  for (auto _ : state) {
    Warnings w;
    auto ir = c.decode_request(bytes, w);
    if (!ir) state.SkipWithError(ir.error().to_string().c_str());
    benchmark::DoNotOptimize(ir);
  }
  count_allocations(state, [&] {
    Warnings w;
    benchmark::DoNotOptimize(c.decode_request(bytes, w));
  });
  label(state, bytes);
}
BENCHMARK(BM_Request_Decode)->Arg(0)->Arg(1);

// Decode in one dialect, encode in the other (range 0: OpenAI → Anthropic).
void BM_Request_Translate(benchmark::State& state) {
  const std::string& bytes = request_of(state.range(0));
  const dialects::Codec& from = codec_of(state.range(0));
  const dialects::Codec& to = codec_of(1 - state.range(0));
  for (auto _ : state) {
    Warnings w;
    auto out = dialects::translate_request(from, to, bytes,
                                           w);  // decode, then encode (raw JSON already verified)
    if (!out) state.SkipWithError(out.error().to_string().c_str());
    benchmark::DoNotOptimize(out);
  }
  count_allocations(state, [&] {
    Warnings w;
    benchmark::DoNotOptimize(dialects::translate_request(from, to, bytes, w));
  });
  label(state, bytes);
}
BENCHMARK(BM_Request_Translate)->Arg(0)->Arg(1);

// Upper bounds: the translation and its baseline with allocation made free
// (the bump buffer above, reset before each operation). What is allocated
// inside the window is released after it. The one translation before the
// loop matters: it lets the decoders' thread-local parsers and indexes reach
// this payload's size on the heap, so that they never grow inside a window
// (a buffer they kept from there would be overwritten by the next operation).
void BM_Request_Translate_BumpAllocator(benchmark::State& state) {
  const std::string& bytes = request_of(state.range(0));
  const dialects::Codec& from = codec_of(state.range(0));
  const dialects::Codec& to = codec_of(1 - state.range(0));
  Warnings warm_w;
  const auto expected = dialects::translate_request(from, to, bytes, warm_w);
  for (auto _ : state) {
    Warnings w;
    g_bump_used = 0;
    g_bump = true;
    auto out = dialects::translate_request(from, to, bytes, w);
    g_bump = false;
    if (!out) state.SkipWithError(out.error().to_string().c_str());
    benchmark::DoNotOptimize(out);
  }
  {  // the same bytes as with the heap, or the measurement is void
    Warnings w;
    g_bump_used = 0;
    g_bump = true;
    auto out = dialects::translate_request(from, to, bytes, w);
    g_bump = false;
    if (!expected || !out || *out != *expected)
      state.SkipWithError("the bump-allocated translation differs");
  }
  label(state, bytes);
}
BENCHMARK(BM_Request_Translate_BumpAllocator)->Arg(0)->Arg(1);

void BM_Request_NlohmannRoundTrip_BumpAllocator(benchmark::State& state) {
  const std::string& bytes = request_of(state.range(0));
  for (auto _ : state) {
    g_bump_used = 0;
    g_bump = true;
    std::string out = json::parse(bytes).dump();
    g_bump = false;
    benchmark::DoNotOptimize(out);
  }
  label(state, bytes);
}
BENCHMARK(BM_Request_NlohmannRoundTrip_BumpAllocator)->Arg(0)->Arg(1);

// Encode alone: the request decoded once, then encoded in the other dialect
// (range 0: the OpenAI request written as Anthropic). With BM_Request_Decode it
// splits BM_Request_Translate into its two halves.
void BM_Request_Encode(benchmark::State& state) {
  const std::string& bytes = request_of(state.range(0));
  Warnings w;
  auto ir = codec_of(state.range(0)).decode_request(bytes, w);
  if (!ir) {
    state.SkipWithError(ir.error().to_string().c_str());
    return;
  }
  const dialects::Codec& to = other_codec(state.range(0));
  const dialects::EncodeOptions verified{.raw_json_verified = true};  // as translate_request does
  for (auto _ : state) {
    auto out = to.encode_request(*ir, w, verified);
    benchmark::DoNotOptimize(out);
  }
  count_allocations(state, [&] { benchmark::DoNotOptimize(to.encode_request(*ir, w, verified)); });
  label(state, bytes);
}
BENCHMARK(BM_Request_Encode)->Arg(0)->Arg(1);

// Baseline: the same bytes through nlohmann::json parse + dump.
void BM_Request_NlohmannRoundTrip(benchmark::State& state) {
  const std::string& bytes = request_of(state.range(0));
  for (auto _ : state) {
    std::string out = json::parse(bytes).dump();
    benchmark::DoNotOptimize(out);
  }
  count_allocations(state, [&] { benchmark::DoNotOptimize(json::parse(bytes).dump()); });
  label(state, bytes);
}
BENCHMARK(BM_Request_NlohmannRoundTrip)->Arg(0)->Arg(1);

// Reference: simdjson's DOM parse alone (the floor a decoder builds on).
void BM_Request_SimdjsonParseOnly(benchmark::State& state) {
  const std::string& bytes = request_of(state.range(0));
  simdjson::dom::parser parser;
  for (auto _ : state) {
    auto doc = parser.parse(bytes.data(), bytes.size());
    benchmark::DoNotOptimize(doc);
  }
  label(state, bytes);
}
BENCHMARK(BM_Request_SimdjsonParseOnly)->Arg(0)->Arg(1);

// ---- streams -----------------------------------------------------------------

// Decode alone, fed in 16 KB reads.
void BM_Stream_Decode(benchmark::State& state) {
  const std::string& bytes = stream_of(state.range(0));
  const dialects::Codec& from = codec_of(state.range(0));
  std::vector<toolwire::ir::StreamEvent> events;
  for (auto _ : state) {
    auto dec = from.make_stream_decoder();
    for (size_t i = 0; i < bytes.size(); i += 16384) {
      events.clear();
      if (!dec->feed(std::string_view(bytes).substr(i, 16384), events))
        state.SkipWithError("feed failed");
    }
    events.clear();
    if (!dec->finish(events)) state.SkipWithError("finish failed");
    benchmark::DoNotOptimize(events);
  }
  label(state, bytes);
}
BENCHMARK(BM_Stream_Decode)->Arg(0)->Arg(1)->Arg(2);

// Decode + translate + encode, fed in 16 KB reads like `toolwire convert`.
void BM_Stream_Translate(benchmark::State& state) {
  const std::string& bytes = stream_of(state.range(0));
  const dialects::Codec& from = codec_of(state.range(0));
  const dialects::Codec& to = other_codec(state.range(0));
  std::vector<toolwire::ir::StreamEvent> events;
  std::string out;
  for (auto _ : state) {
    auto dec = from.make_stream_decoder();
    auto enc = to.make_stream_encoder();
    out.clear();
    for (size_t i = 0; i < bytes.size(); i += 16384) {
      events.clear();
      if (!dec->feed(std::string_view(bytes).substr(i, 16384), events))
        state.SkipWithError("feed failed");
      for (const auto& e : events) enc->encode(e, out);
    }
    events.clear();
    if (!dec->finish(events)) state.SkipWithError("finish failed");
    for (const auto& e : events) enc->encode(e, out);
    benchmark::DoNotOptimize(out);
  }
  label(state, bytes);
  state.counters["events_out_bytes"] = static_cast<double>(out.size());
}
BENCHMARK(BM_Stream_Translate)->Arg(0)->Arg(1)->Arg(2);

// Baseline: every event's JSON parsed and re-serialized with nlohmann.
void BM_Stream_NlohmannRoundTrip(benchmark::State& state) {
  const std::string& bytes = stream_of(state.range(0));
  for (auto _ : state) {
    std::string out;
    size_t pos = 0;
    while ((pos = bytes.find("data: ", pos)) != std::string::npos) {
      size_t end = bytes.find('\n', pos);
      std::string_view data(bytes.data() + pos + 6, end - pos - 6);
      pos = end;
      if (data == "[DONE]") continue;
      out += json::parse(data).dump();
    }
    benchmark::DoNotOptimize(out);
  }
  label(state, bytes);
}
BENCHMARK(BM_Stream_NlohmannRoundTrip)->Arg(0)->Arg(1)->Arg(2);

}  // namespace

BENCHMARK_MAIN();
