#include "wire.h"

#include <algorithm>
#include <filesystem>
#include <fstream>
#include <nlohmann/json.hpp>
#include <sstream>

namespace toolwire::testing {

using nlohmann::json;

const codec::Codec& openai() { return *codec::find_codec("openai_chat"); }
const codec::Codec& anthropic() { return *codec::find_codec("anthropic_messages"); }

std::vector<const codec::Codec*> codecs() { return codec::all_codecs(); }

std::string fixture_prefix(const codec::Codec& codec) {
  std::string p(codec.name());
  std::replace(p.begin(), p.end(), '_', '-');
  return p + "-";
}

std::string read_fixture(const std::string& name) {
  std::ifstream in(std::string(TOOLWIRE_TEST_DATA) + "/wire/" + name, std::ios::binary);
  std::stringstream s;
  s << in.rdbuf();
  return s.str();
}

std::vector<std::string> fixtures_matching(const std::string& prefix, const std::string& suffix) {
  std::vector<std::string> names;
  for (const auto& entry :
       std::filesystem::directory_iterator(std::string(TOOLWIRE_TEST_DATA) + "/wire")) {
    std::string name = entry.path().filename().string();
    if (name.starts_with(prefix) && name.ends_with(suffix)) names.push_back(name);
  }
  std::sort(names.begin(), names.end());
  return names;
}

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

Decoded decode_stream(const codec::Codec& codec, const std::string& bytes, size_t chunk) {
  Decoded d;
  auto decoder = codec.make_stream_decoder();
  if (chunk == 0) chunk = bytes.size() ? bytes.size() : 1;
  for (size_t i = 0; i < bytes.size(); i += chunk) {
    Status st = decoder->feed(std::string_view(bytes).substr(i, chunk), d.events);
    if (!st) {
      d.error = st.error().to_string();
      return d;
    }
  }
  Status st = decoder->finish(d.events);
  if (!st) d.error = st.error().to_string();
  return d;
}

std::string encode_stream(const codec::Codec& codec, const std::vector<ir::StreamEvent>& events,
                          Warnings* warnings) {
  auto encoder = codec.make_stream_encoder();
  std::string out;
  for (const auto& e : events) encoder->encode(e, out);
  if (warnings)
    warnings->insert(warnings->end(), encoder->warnings().begin(), encoder->warnings().end());
  return out;
}

ir::Response accumulate(const std::vector<ir::StreamEvent>& events) {
  ir::StreamAccumulator acc;
  for (const auto& e : events) acc.add(e);
  return std::move(acc).take();
}

bool has_warning(const Warnings& warnings, const std::string& code, const std::string& path) {
  return std::any_of(warnings.begin(), warnings.end(), [&](const Warning& w) {
    return w.code == code && (path.empty() || w.path == path);
  });
}

std::string warnings_text(const Warnings& warnings) {
  std::string out;
  for (const auto& w : warnings) out += w.code + " at " + w.path + ": " + w.message + "\n";
  return out;
}

}  // namespace toolwire::testing
