#include "codec_kit.h"

#include <gtest/gtest.h>

#include <algorithm>
#include <filesystem>
#include <fstream>
#include <sstream>
#include <type_traits>

namespace toolwire::testing {
namespace {

std::string wire_dir() { return std::string(TOOLWIRE_TEST_DATA) + "/wire"; }

}  // namespace

std::string read_fixture(const std::string& name) {
  std::ifstream in(wire_dir() + "/" + name, std::ios::binary);
  EXPECT_TRUE(in.good()) << "missing fixture " << name;
  std::stringstream s;
  s << in.rdbuf();
  return s.str();
}

std::vector<std::string> fixture_lines(const std::string& name) {
  std::vector<std::string> out;
  std::istringstream in(read_fixture(name));
  std::string line;
  while (std::getline(in, line)) {
    if (line.find_first_not_of(" \t\r") == std::string::npos) continue;
    if (line.starts_with("....")) continue;
    out.push_back(line);
  }
  return out;
}

std::vector<std::string> fixtures_matching(const std::string& prefix, const std::string& suffix) {
  std::vector<std::string> names;
  for (const auto& entry : std::filesystem::directory_iterator(wire_dir())) {
    std::string name = entry.path().filename().string();
    if (name.starts_with(prefix) && name.ends_with(suffix)) names.push_back(name);
  }
  std::sort(names.begin(), names.end());
  return names;
}

std::string fixture_prefix(const dialects::Codec& codec) {
  std::string p(codec.name());
  std::replace(p.begin(), p.end(), '_', '-');
  return p + "-";
}

std::string sse_from_chunks(const std::vector<std::string>& chunks, bool done) {
  std::string out;
  for (const auto& c : chunks) out += "data: " + c + "\n\n";
  if (done) out += "data: [DONE]\n\n";
  return out;
}

StreamResult decode_stream(const dialects::Codec& codec, std::string_view bytes,
                           const std::vector<size_t>& cuts) {
  StreamResult r;
  auto decoder = codec.make_stream_decoder();
  size_t pos = 0;
  for (size_t cut : cuts) {
    r.status = decoder->feed(bytes.substr(pos, cut - pos), r.events);
    pos = cut;
    if (!r.status) return r;
  }
  r.status = decoder->feed(bytes.substr(pos), r.events);
  if (r.status) r.status = decoder->finish(r.events);
  r.warnings = decoder->warnings();
  return r;
}

StreamResult decode_stream_chunked(const dialects::Codec& codec, std::string_view bytes,
                                   size_t chunk) {
  StreamResult r;
  auto decoder = codec.make_stream_decoder();
  if (chunk == 0) chunk = bytes.empty() ? 1 : bytes.size();
  for (size_t i = 0; i < bytes.size(); i += chunk) {
    r.status = decoder->feed(bytes.substr(i, chunk), r.events);
    if (!r.status) return r;
  }
  r.status = decoder->finish(r.events);
  r.warnings = decoder->warnings();
  return r;
}

std::vector<ir::StreamEvent> decode_stream_events(const dialects::Codec& codec,
                                                  std::string_view bytes,
                                                  const std::vector<size_t>& cuts,
                                                  Status* final_status) {
  StreamResult r = decode_stream(codec, bytes, cuts);
  if (final_status)
    *final_status = r.status;
  else
    EXPECT_TRUE(r.status.ok()) << r.status.error().to_string();
  return std::move(r.events);
}

Error decode_request_error(const dialects::Codec& codec, const std::string& body) {
  Warnings w;
  auto r = codec.decode_request(body, w);
  EXPECT_FALSE(r) << "decoded: " << body;
  return r ? Error{} : r.error();
}

std::string encode_stream(const dialects::Codec& codec, const std::vector<ir::StreamEvent>& events,
                          Warnings* warnings) {
  auto encoder = codec.make_stream_encoder();
  std::string out;
  for (const auto& e : events) encoder->encode(e, out);
  if (warnings)
    warnings->insert(warnings->end(), encoder->warnings().begin(), encoder->warnings().end());
  return out;
}

ir::UsageEvent usage(std::optional<int64_t> input_tokens, std::optional<int64_t> output_tokens) {
  ir::UsageEvent e;
  e.usage.input_tokens = input_tokens;
  e.usage.output_tokens = output_tokens;
  return e;
}

std::string describe(const ir::StreamEvent& event) {
  auto n = [](const std::optional<int64_t>& v) { return v ? std::to_string(*v) : "-"; };
  return std::visit(
      [&](const auto& e) -> std::string {
        using T = std::decay_t<decltype(e)>;
        if constexpr (std::is_same_v<T, ir::MessageStart>)
          return "MessageStart{" + e.id + "," + e.model + "," + std::to_string(e.created) + "}";
        else if constexpr (std::is_same_v<T, ir::TextDelta>)
          return std::string(e.refusal ? "Refusal{" : "Text{") + e.text +
                 (e.logprobs.empty() ? "" : ",logprobs=" + e.logprobs) +
                 (e.dialect.empty() ? "" : ",from=" + e.dialect) + "}";
        else if constexpr (std::is_same_v<T, ir::ThinkingDelta>)
          return "Thinking{" + e.text + "," + e.signature + (e.redacted ? ",redacted" : "") +
                 (e.item_id.empty() ? "" : ",item=" + e.item_id) +
                 (e.encrypted_content.empty() ? "" : ",enc=" + e.encrypted_content) + "}";
        else if constexpr (std::is_same_v<T, ir::ToolCallStart>)
          return "CallStart{" + std::to_string(e.index) + "," + e.id + "," + e.name +
                 (e.signature.empty() ? "" : ",sig=" + e.signature) + "}";
        else if constexpr (std::is_same_v<T, ir::ToolCallDelta>)
          return "CallDelta{" + std::to_string(e.index) + "," + e.fragment + "}";
        else if constexpr (std::is_same_v<T, ir::ToolCallEnd>)
          return "CallEnd{" + std::to_string(e.index) + "}";
        else if constexpr (std::is_same_v<T, ir::UsageEvent>)
          return "Usage{in=" + n(e.usage.input_tokens) + ",out=" + n(e.usage.output_tokens) +
                 ",cache_read=" + n(e.usage.cache_read_tokens) +
                 ",cache_write=" + n(e.usage.cache_write_tokens) + "}";
        else if constexpr (std::is_same_v<T, ir::Finish>)
          return "Finish{" + std::string(ir::to_string(e.reason.kind)) + "," + e.reason.raw +
                 (e.stop_sequence.empty() ? "" : ",stop_sequence=" + e.stop_sequence) + "}";
        else
          return "Error{" + e.type + "," + e.message + "}";
      },
      event);
}

std::string describe(const std::vector<ir::StreamEvent>& events) {
  std::string out;
  for (const auto& e : events) out += describe(e) + "\n";
  return out;
}

bool has_warning(const Warnings& warnings, std::string_view code, std::string_view path) {
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
