// Bedrock Converse benchmark: request translation OpenAI → Bedrock and
// Bedrock → OpenAI of a generated ~64 KB tool-calling conversation, stream
// translation between OpenAI SSE and ConverseStream's binary event stream,
// each next to its baseline in the same run (the same bytes parsed and
// re-serialized with nlohmann::json; for the binary stream, frames split by
// toolwire's parser and each payload through nlohmann), and the event-stream
// framing alone (encode and decode throughput).
//
//   build-rel/bench/bedrock_codec_bench --benchmark_repetitions=5
//     --benchmark_report_aggregates_only=true
#include <benchmark/benchmark.h>

#include <nlohmann/json.hpp>
#include <string>
#include <vector>

#include "toolwire/dialects/codec.h"
#include "toolwire/dialects/framing/eventstream.h"

namespace {

using nlohmann::json;
using toolwire::Warnings;
namespace dialects = toolwire::dialects;

const dialects::Codec& openai() { return *dialects::find_codec("openai_chat"); }
const dialects::Codec& bedrock() { return *dialects::find_codec("bedrock_converse"); }

std::string prose(int words, int salt) {
  static const char* const kWords[] = {
      "the",   "report",   "shows",  "revenue", "for",     "Q3",          "grew",
      "by",    "12%",      "versus", "last",    "year,",   "while",       "costs",
      "in",    "München",  "stayed", "flat;",   "see",     "\"table 4\"", "and",
      "notes", "appendix", "—",      "pricing", "tiers\n", "again."};
  constexpr int n = sizeof(kWords) / sizeof(kWords[0]);
  std::string out;
  for (int i = 0; i < words; ++i) {
    if (i) out += ' ';
    out += kWords[(i * 7 + salt * 13) % n];
  }
  return out;
}

// 20 tools with nested schemas, 30 turns of text + 1-2 calls + results.
std::string openai_request() {
  json tools = json::array();
  for (int i = 0; i < 20; ++i) {
    json schema = {
        {"type", "object"},
        {"properties",
         {{"query", {{"type", "string"}, {"description", "What to look for; " + prose(8, i)}}},
          {"limit", {{"type", "integer"}, {"minimum", 1}, {"maximum", 100}}},
          {"mode", {{"type", "string"}, {"enum", {"fast", "thorough"}}}},
          {"filters",
           {{"type", "object"},
            {"properties",
             {{"from", {{"type", "string"}, {"format", "date"}}},
              {"tags", {{"type", "array"}, {"items", {{"type", "string"}}}}}}}}}}},
        {"required", {"query"}}};
    tools.push_back(
        {{"type", "function"},
         {"function",
          {{"name", "tool_" + std::to_string(i) + "_search"},
           {"description", "Searches source " + std::to_string(i) + ". " + prose(25, i)},
           {"parameters", schema}}}});
  }
  json messages = json::array();
  messages.push_back({{"role", "system"}, {"content", "You are an analyst. " + prose(120, 1)}});
  int call = 0;
  for (int t = 0; t < 30; ++t) {
    messages.push_back({{"role", "user"}, {"content", prose(40 + t % 7, t)}});
    json calls = json::array();
    const int n_calls = 1 + t % 2;
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
  return json{{"model", "gpt-4o"},     {"messages", messages},          {"tools", tools},
              {"tool_choice", "auto"}, {"max_completion_tokens", 2048}, {"temperature", 0.2}}
      .dump();
}

// 200 text deltas, then one call whose arguments come in 2,000 fragments.
std::string openai_stream() {
  using oj = nlohmann::ordered_json;
  auto chunk = [](oj delta, oj finish = nullptr) {
    oj c = {{"id", "chatcmpl-bench"},
            {"object", "chat.completion.chunk"},
            {"created", 1700000000},
            {"model", "gpt-4o"},
            {"system_fingerprint", "fp_44709d6fcb"},
            {"choices", oj::array({{{"index", 0},
                                    {"delta", delta},
                                    {"logprobs", nullptr},
                                    {"finish_reason", finish}}})}};
    return "data: " + c.dump() + "\n\n";
  };
  auto call = [](oj c) { return oj{{"tool_calls", oj::array({c})}}; };
  std::string sse = chunk({{"role", "assistant"}, {"content", ""}});
  for (int i = 0; i < 200; ++i) sse += chunk({{"content", prose(2, i) + " "}});
  sse += chunk(call({{"index", 0},
                     {"id", "call_bench"},
                     {"type", "function"},
                     {"function", {{"name", "write_file"}, {"arguments", ""}}}}));
  for (int i = 0; i < 2000; ++i)
    sse += chunk(call({{"index", 0}, {"function", {{"arguments", prose(2, i) + " "}}}}));
  sse += chunk(oj::object(), "tool_calls");
  return sse + "data: [DONE]\n\n";
}

std::string translate(const dialects::Codec& from, const dialects::Codec& to,
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
  std::string bedrock_req;
  std::string openai_sse = openai_stream();
  std::string bedrock_stream = translate(openai(), bedrock(), openai_sse);
  Payloads() {
    Warnings w;
    auto out = dialects::translate_request(openai(), bedrock(), openai_req, w);
    if (out) bedrock_req = *out;
  }
};
const Payloads& payloads() {
  static const Payloads p;
  return p;
}

// range(0): 0 = OpenAI source, 1 = Bedrock source.
const std::string& request_of(int64_t d) {
  return d == 0 ? payloads().openai_req : payloads().bedrock_req;
}
const std::string& stream_of(int64_t d) {
  return d == 0 ? payloads().openai_sse : payloads().bedrock_stream;
}
const dialects::Codec& from_of(int64_t d) { return d == 0 ? openai() : bedrock(); }
const dialects::Codec& to_of(int64_t d) { return d == 0 ? bedrock() : openai(); }

void label(benchmark::State& state, const std::string& bytes, const char* what) {
  state.SetBytesProcessed(static_cast<int64_t>(state.iterations()) *
                          static_cast<int64_t>(bytes.size()));
  state.counters["payload_bytes"] = static_cast<double>(bytes.size());
  state.SetLabel(what);
}

void BM_Bedrock_Request_Translate(benchmark::State& state) {
  const std::string& bytes = request_of(state.range(0));
  if (bytes.empty()) return state.SkipWithError("no payload");
  for (auto _ : state) {
    Warnings w;
    auto out =
        dialects::translate_request(from_of(state.range(0)), to_of(state.range(0)), bytes, w);
    if (!out) state.SkipWithError(out.error().to_string().c_str());
    benchmark::DoNotOptimize(out);
  }
  label(state, bytes, state.range(0) == 0 ? "openai -> bedrock" : "bedrock -> openai");
}
BENCHMARK(BM_Bedrock_Request_Translate)->Arg(0)->Arg(1);

// Baseline: the same bytes through nlohmann::json parse + dump.
void BM_Bedrock_Request_NlohmannRoundTrip(benchmark::State& state) {
  const std::string& bytes = request_of(state.range(0));
  for (auto _ : state) {
    std::string out = json::parse(bytes).dump();
    benchmark::DoNotOptimize(out);
  }
  label(state, bytes, state.range(0) == 0 ? "openai bytes" : "bedrock bytes");
}
BENCHMARK(BM_Bedrock_Request_NlohmannRoundTrip)->Arg(0)->Arg(1);

// Decode alone, fed in 16 KB reads.
void BM_Bedrock_Stream_Decode(benchmark::State& state) {
  const std::string& bytes = stream_of(state.range(0));
  std::vector<toolwire::ir::StreamEvent> events;
  for (auto _ : state) {
    auto dec = from_of(state.range(0)).make_stream_decoder();
    for (size_t i = 0; i < bytes.size(); i += 16384) {
      events.clear();
      if (!dec->feed(std::string_view(bytes).substr(i, 16384), events))
        state.SkipWithError("feed failed");
    }
    events.clear();
    if (!dec->finish(events)) state.SkipWithError("finish failed");
    benchmark::DoNotOptimize(events);
  }
  label(state, bytes, state.range(0) == 0 ? "openai sse" : "bedrock event stream");
}
BENCHMARK(BM_Bedrock_Stream_Decode)->Arg(0)->Arg(1);

// Decode + translate + encode, fed in 16 KB reads like `toolwire convert`.
void BM_Bedrock_Stream_Translate(benchmark::State& state) {
  const std::string& bytes = stream_of(state.range(0));
  if (bytes.empty()) return state.SkipWithError("no payload");
  std::vector<toolwire::ir::StreamEvent> events;
  std::string out;
  for (auto _ : state) {
    auto dec = from_of(state.range(0)).make_stream_decoder();
    auto enc = to_of(state.range(0)).make_stream_encoder();
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
  label(state, bytes, state.range(0) == 0 ? "openai sse -> bedrock" : "bedrock -> openai sse");
  state.counters["events_out_bytes"] = static_cast<double>(out.size());
}
BENCHMARK(BM_Bedrock_Stream_Translate)->Arg(0)->Arg(1);

// Baseline: every event's JSON parsed and re-serialized with nlohmann (for
// the binary stream: frames split by toolwire's parser, payloads through
// nlohmann, and framed again).
class PayloadRoundTrip final : public dialects::EventStreamSink {
 public:
  std::string out;
  toolwire::Status on_message(const dialects::EventStreamMessageView& m) override {
    const std::string dumped = json::parse(m.payload).dump();
    dialects::append_event_stream_message(out, m.headers, dumped);
    return toolwire::Status::Ok();
  }
};

void BM_Bedrock_Stream_NlohmannRoundTrip(benchmark::State& state) {
  const std::string& bytes = stream_of(state.range(0));
  for (auto _ : state) {
    if (state.range(0) == 0) {
      std::string out;
      size_t pos = 0;
      while ((pos = bytes.find("data: ", pos)) != std::string::npos) {
        const size_t end = bytes.find('\n', pos);
        std::string_view data(bytes.data() + pos + 6, end - pos - 6);
        pos = end;
        if (data == "[DONE]") continue;
        out += json::parse(data).dump();
      }
      benchmark::DoNotOptimize(out);
    } else {
      dialects::EventStreamParser parser;
      PayloadRoundTrip sink;
      if (!parser.feed(bytes, sink)) state.SkipWithError("parse failed");
      benchmark::DoNotOptimize(sink.out);
    }
  }
  label(state, bytes, state.range(0) == 0 ? "openai sse" : "bedrock event stream");
}
BENCHMARK(BM_Bedrock_Stream_NlohmannRoundTrip)->Arg(0)->Arg(1);

// ---- the framing alone ----------------------------------------------------

// range(0): payload bytes per message (a delta event is ~80; 16 KB a large one).
std::string framed_messages(size_t payload, size_t total) {
  std::string out;
  const std::string body(payload, 'x');
  while (out.size() < total)
    dialects::append_event_stream_message(out,
                                          {{":event-type", "contentBlockDelta"},
                                           {":content-type", "application/json"},
                                           {":message-type", "event"}},
                                          body);
  return out;
}

void BM_EventStream_Encode(benchmark::State& state) {
  const std::string body(static_cast<size_t>(state.range(0)), 'x');
  const dialects::EventStreamHeaderView headers[] = {{":event-type", "contentBlockDelta"},
                                                     {":content-type", "application/json"},
                                                     {":message-type", "event"}};
  std::string out;
  size_t bytes = 0;
  for (auto _ : state) {
    out.clear();
    for (int i = 0; i < 256; ++i) dialects::append_event_stream_message(out, headers, body);
    bytes += out.size();
    benchmark::DoNotOptimize(out);
  }
  state.SetBytesProcessed(static_cast<int64_t>(bytes));
  state.counters["messages/s"] = benchmark::Counter(256.0 * static_cast<double>(state.iterations()),
                                                    benchmark::Counter::kIsRate);
}
BENCHMARK(BM_EventStream_Encode)->Arg(80)->Arg(16384);

class CountSink final : public dialects::EventStreamSink {
 public:
  size_t n = 0;
  toolwire::Status on_message(const dialects::EventStreamMessageView& m) override {
    n += m.payload.size();
    return toolwire::Status::Ok();
  }
};

void BM_EventStream_Decode(benchmark::State& state) {
  const std::string bytes = framed_messages(static_cast<size_t>(state.range(0)), 1u << 20);
  for (auto _ : state) {
    dialects::EventStreamParser parser;
    CountSink sink;
    for (size_t i = 0; i < bytes.size(); i += 16384)
      if (!parser.feed(std::string_view(bytes).substr(i, 16384), sink))
        state.SkipWithError("parse failed");
    benchmark::DoNotOptimize(sink.n);
  }
  state.SetBytesProcessed(static_cast<int64_t>(state.iterations()) *
                          static_cast<int64_t>(bytes.size()));
}
BENCHMARK(BM_EventStream_Decode)->Arg(80)->Arg(16384);

void BM_Crc32(benchmark::State& state) {
  const std::string bytes(1u << 20, 'q');
  for (auto _ : state) benchmark::DoNotOptimize(dialects::crc32(bytes));
  state.SetBytesProcessed(static_cast<int64_t>(state.iterations()) * (1 << 20));
}
BENCHMARK(BM_Crc32);

}  // namespace

BENCHMARK_MAIN();
