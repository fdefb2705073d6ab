#include "wire.h"

#include <algorithm>
#include <filesystem>
#include <fstream>
#include <nlohmann/json.hpp>
#include <sstream>

namespace toolwire::testing {

using nlohmann::json;

const dialects::Codec& openai() { return *dialects::find_codec("openai_chat"); }
const dialects::Codec& anthropic() { return *dialects::find_codec("anthropic_messages"); }

std::vector<const dialects::Codec*> codecs() { return dialects::all_codecs(); }

std::string openai_sse_from_chunk_lines(const std::string& text) {
  std::istringstream in(text);
  std::string line, out;
  while (std::getline(in, line)) {
    if (line.empty() || line[0] != '{') continue;  // blank lines and the "...." elision
    out += "data: " + line + "\n\n";
  }
  return out + "data: [DONE]\n\n";
}

std::string openai_sse_from_tool_call_deltas(const std::string& jsonl) {
  auto chunk = [](json delta, json finish) {
    json c = {{"id", "chatcmpl-fixture"},
              {"object", "chat.completion.chunk"},
              {"created", 1700000000},
              {"model", "gpt-4o"},
              {"choices", json::array({{{"index", 0},
                                        {"delta", delta},
                                        {"logprobs", nullptr},
                                        {"finish_reason", finish}}})}};
    return "data: " + c.dump() + "\n\n";
  };
  std::string out = chunk({{"role", "assistant"}, {"content", nullptr}}, nullptr);
  std::istringstream in(jsonl);
  std::string line;
  while (std::getline(in, line)) {
    if (line.empty()) continue;
    json deltas = json::parse(line);
    out += deltas.is_null() ? chunk(json::object(), "tool_calls")
                            : chunk({{"tool_calls", deltas}}, nullptr);
  }
  return out + "data: [DONE]\n\n";
}

Decoded decode_stream(const dialects::Codec& codec, const std::string& bytes, size_t chunk) {
  StreamResult r = decode_stream_chunked(codec, bytes, chunk);
  return {std::move(r.events), r.status ? std::string() : r.status.error().to_string()};
}

ir::Response accumulate(const std::vector<ir::StreamEvent>& events) {
  ir::StreamAccumulator acc;
  for (const auto& e : events) acc.add(e);
  return std::move(acc).take();
}

}  // namespace toolwire::testing
