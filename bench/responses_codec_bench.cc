// OpenAI Responses codec benchmark: request translation Chat → Responses,
// Responses → Chat and Responses → Anthropic of a generated ~64 KB
// conversation (20 tools with realistic schemas, 30 turns with function calls
// and their outputs), and the same three translations of a long streamed turn
// (200 text deltas, one call whose arguments come in 2,000 fragments) — each
// next to its baseline in the same run: the source bytes parsed and
// re-serialized with nlohmann::json (what a DOM-based gateway does).
//
//   build-rel/bench/responses_codec_bench --benchmark_format=json > run.json
//   python3 bench/codec_ratios.py run.json
// (the flags of the published runs: docs/benchmarks/openai_responses.md)
//
// Arguments: 0 Chat → Responses, 1 Responses → Chat, 2 Responses → Anthropic.
#include <benchmark/benchmark.h>

#include <nlohmann/json.hpp>
#include <string>
#include <vector>

#include "toolwire/dialects/codec.h"

namespace {

using nlohmann::json;
using toolwire::Warnings;
namespace dialects = toolwire::dialects;

const dialects::Codec& chat() { return *dialects::find_codec("openai_chat"); }
const dialects::Codec& responses() { return *dialects::find_codec("openai_responses"); }
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
  return {{"type", "object"},
          {"properties", props},
          {"required", {"query"}},
          {"additionalProperties", false}};
}

// The conversation as a Chat Completions request (~64 KB).
std::string chat_request() {
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

// The same conversation as a Responses request (through the codecs).
std::string responses_request(const std::string& chat_json) {
  Warnings w;
  auto out = dialects::translate_request(chat(), responses(), chat_json, w);
  return out ? *out : std::string();
}

// The streamed turn in Chat Completions SSE, keys in OpenAI's order.
std::string chat_stream() {
  using Json = nlohmann::ordered_json;
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
  std::string chat_req = chat_request();
  std::string responses_req = responses_request(chat_req);
  std::string chat_sse = chat_stream();
  std::string responses_sse = translate_stream(chat(), responses(), chat_sse);
};
const Payloads& payloads() {
  static const Payloads p;
  return p;
}

struct Route {
  const dialects::Codec* from;
  const dialects::Codec* to;
  const char* name;
};
Route route(int64_t arg) {
  switch (arg) {
    case 0:
      return {&chat(), &responses(), "chat -> responses"};
    case 1:
      return {&responses(), &chat(), "responses -> chat"};
    default:
      return {&responses(), &anthropic(), "responses -> anthropic"};
  }
}
const std::string& request_of(int64_t arg) {
  return arg == 0 ? payloads().chat_req : payloads().responses_req;
}
const std::string& stream_of(int64_t arg) {
  return arg == 0 ? payloads().chat_sse : payloads().responses_sse;
}

void label(benchmark::State& state, const std::string& bytes) {
  state.SetBytesProcessed(static_cast<int64_t>(state.iterations()) *
                          static_cast<int64_t>(bytes.size()));
  state.counters["payload_bytes"] = static_cast<double>(bytes.size());
  state.SetLabel(route(state.range(0)).name);
}

// ---- requests ----------------------------------------------------------------

void BM_Request_Translate(benchmark::State& state) {
  const Route r = route(state.range(0));
  const std::string& bytes = request_of(state.range(0));
  for (auto _ : state) {
    Warnings w;
    auto out = dialects::translate_request(*r.from, *r.to, bytes, w);
    if (!out) state.SkipWithError(out.error().to_string().c_str());
    benchmark::DoNotOptimize(out);
  }
  label(state, bytes);
}
BENCHMARK(BM_Request_Translate)->Arg(0)->Arg(1)->Arg(2);

// Baseline: the source bytes through nlohmann::json parse + dump.
void BM_Request_NlohmannRoundTrip(benchmark::State& state) {
  const std::string& bytes = request_of(state.range(0));
  for (auto _ : state) {
    std::string out = json::parse(bytes).dump();
    benchmark::DoNotOptimize(out);
  }
  label(state, bytes);
}
BENCHMARK(BM_Request_NlohmannRoundTrip)->Arg(0)->Arg(1)->Arg(2);

// ---- streams -----------------------------------------------------------------

// Decode + translate + encode, fed in 16 KB reads like `toolwire convert`.
void BM_Stream_Translate(benchmark::State& state) {
  const Route r = route(state.range(0));
  const std::string& bytes = stream_of(state.range(0));
  std::vector<toolwire::ir::StreamEvent> events;
  std::string out;
  for (auto _ : state) {
    auto dec = r.from->make_stream_decoder();
    auto enc = r.to->make_stream_encoder();
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
