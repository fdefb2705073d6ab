// Gemini codec benchmark: request translation OpenAI → Gemini and Gemini →
// OpenAI, and stream translation both ways, each next to its baseline in the
// same run: the same bytes parsed and re-serialized with nlohmann::json
// (what a DOM-based gateway does). The payloads are codec_bench.cc's: a
// ~64 KB chat request (20 tools, 30 turns with calls and results) and a long
// streamed turn (200 text deltas, one call in 2,000 argument fragments); the
// Gemini forms are toolwire's own translations of them.
//
//   build-rel/bench/gemini_codec_bench --benchmark_repetitions=3
//       --benchmark_report_aggregates_only=true
//
// Range 0: from OpenAI to Gemini; 1: from Gemini to OpenAI. Range 2 of the
// request benchmarks: OpenAI → Gemini with schemas already inside Gemini's
// subset (no additionalProperties, no "format":"date"), the exporter's fast path.
#include <benchmark/benchmark.h>

#include <nlohmann/json.hpp>
#include <string>
#include <vector>

#include "toolwire/dialects/codec.h"

namespace {

using nlohmann::json;
using toolwire::Warnings;
namespace dialects = toolwire::dialects;

const dialects::Codec& openai() { return *dialects::find_codec("openai_chat"); }
const dialects::Codec& gemini() { return *dialects::find_codec("gemini"); }

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

// `clean`: only keywords Gemini's subset has (what a Gemini-first tool
// author writes); else codec_bench.cc's schema, which the exporter rewrites.
json tool_schema(int i, bool clean) {
  json props = json::object();
  props["query"] = {{"type", "string"}, {"description", "What to look for; " + prose(8, i)}};
  props["limit"] = {
      {"type", "integer"}, {"minimum", 1}, {"maximum", 100}, {"description", "Maximum results"}};
  props["mode"] = {{"type", "string"}, {"enum", {"fast", "thorough", "exhaustive"}}};
  json date = clean ? json{{"type", "string"}} : json{{"type", "string"}, {"format", "date"}};
  props["filters"] = {{"type", "object"},
                      {"properties",
                       {{"from", date},
                        {"to", date},
                        {"tags", {{"type", "array"}, {"items", {{"type", "string"}}}}}}}};
  if (i % 3 == 0) props["include_archived"] = {{"type", "boolean"}, {"default", false}};
  json s = {{"type", "object"}, {"properties", props}, {"required", {"query"}}};
  if (!clean) s["additionalProperties"] = false;
  return s;
}

std::string openai_request(bool clean) {
  json tools = json::array();
  for (int i = 0; i < 20; ++i)
    tools.push_back(
        {{"type", "function"},
         {"function",
          {{"name", "tool_" + std::to_string(i) + "_search"},
           {"description", "Searches data source " + std::to_string(i) + ". " + prose(25, i)},
           {"parameters", tool_schema(i, clean)}}}});
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

std::string openai_stream() {
  using ojson = nlohmann::ordered_json;
  auto chunk = [](ojson delta, ojson finish = nullptr) {
    ojson choice = {
        {"index", 0}, {"delta", delta}, {"logprobs", nullptr}, {"finish_reason", finish}};
    ojson c = {{"id", "chatcmpl-bench"},
               {"object", "chat.completion.chunk"},
               {"created", 1700000000},
               {"model", "gpt-4o"},
               {"system_fingerprint", "fp_44709d6fcb"},
               {"choices", ojson::array({choice})}};
    return "data: " + c.dump() + "\n\n";
  };
  auto call_delta = [](ojson call) { return ojson{{"tool_calls", ojson::array({call})}}; };
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
  sse += chunk(ojson::object(), "tool_calls");
  return sse + "data: [DONE]\n\n";
}

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

std::string translated_request(const std::string& openai_json) {
  Warnings w;
  auto out = dialects::translate_request(openai(), gemini(), openai_json, w);
  return out ? *out : std::string();
}

struct Payloads {
  std::string openai_req = openai_request(false);
  std::string openai_req_clean = openai_request(true);
  std::string gemini_req = translated_request(openai_req);
  std::string openai_sse = openai_stream();
  std::string gemini_sse = translate_stream(openai(), gemini(), openai_sse);
};
const Payloads& payloads() {
  static const Payloads p;
  return p;
}

const std::string& request_of(int64_t range) {
  return range == 1   ? payloads().gemini_req
         : range == 2 ? payloads().openai_req_clean
                      : payloads().openai_req;
}

void label(benchmark::State& state, const std::string& bytes) {
  state.SetBytesProcessed(static_cast<int64_t>(state.iterations()) *
                          static_cast<int64_t>(bytes.size()));
  state.counters["payload_bytes"] = static_cast<double>(bytes.size());
  state.SetLabel(state.range(0) == 0   ? "openai -> gemini"
                 : state.range(0) == 1 ? "gemini -> openai"
                                       : "openai -> gemini, subset schemas");
}

void BM_Gemini_Request_Translate(benchmark::State& state) {
  const std::string& bytes = request_of(state.range(0));
  const dialects::Codec& from = state.range(0) == 1 ? gemini() : openai();
  const dialects::Codec& to = state.range(0) == 1 ? openai() : gemini();
  for (auto _ : state) {
    Warnings w;
    auto out = dialects::translate_request(from, to, bytes, w);
    if (!out) state.SkipWithError(out.error().to_string().c_str());
    benchmark::DoNotOptimize(out);
  }
  label(state, bytes);
}
BENCHMARK(BM_Gemini_Request_Translate)->Arg(0)->Arg(1)->Arg(2);

// Baseline: the same bytes through nlohmann::json parse + dump.
void BM_Gemini_Request_NlohmannRoundTrip(benchmark::State& state) {
  const std::string& bytes = request_of(state.range(0));
  for (auto _ : state) {
    std::string out = json::parse(bytes).dump();
    benchmark::DoNotOptimize(out);
  }
  label(state, bytes);
}
BENCHMARK(BM_Gemini_Request_NlohmannRoundTrip)->Arg(0)->Arg(1)->Arg(2);

const std::string& stream_of(int64_t range) {
  return range == 1 ? payloads().gemini_sse : payloads().openai_sse;
}

// Decode + translate + encode, fed in 16 KB reads like `toolwire convert`.
void BM_Gemini_Stream_Translate(benchmark::State& state) {
  const std::string& bytes = stream_of(state.range(0));
  const dialects::Codec& from = state.range(0) == 1 ? gemini() : openai();
  const dialects::Codec& to = state.range(0) == 1 ? openai() : gemini();
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
}
BENCHMARK(BM_Gemini_Stream_Translate)->Arg(0)->Arg(1);

// Baseline: every event's JSON parsed and re-serialized with nlohmann.
void BM_Gemini_Stream_NlohmannRoundTrip(benchmark::State& state) {
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
BENCHMARK(BM_Gemini_Stream_NlohmannRoundTrip)->Arg(0)->Arg(1);

}  // namespace

BENCHMARK_MAIN();
