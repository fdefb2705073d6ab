#include "test_util.h"

#include <type_traits>

namespace toolwire::codec {
const Codec& openai_chat_codec();
}

namespace toolwire::codec::openai_chat_test {

const Codec& openai() { return openai_chat_codec(); }

std::string describe(const ir::StreamEvent& event) {
  return std::visit(
      [](const auto& e) -> std::string {
        using T = std::decay_t<decltype(e)>;
        if constexpr (std::is_same_v<T, ir::MessageStart>)
          return "MessageStart{" + e.id + "," + e.model + "," + std::to_string(e.created) + "}";
        else if constexpr (std::is_same_v<T, ir::TextDelta>)
          return "Text{" + e.text + "}";
        else if constexpr (std::is_same_v<T, ir::ThinkingDelta>)
          return "Thinking{" + e.text + "," + e.signature + (e.redacted ? ",redacted}" : "}");
        else if constexpr (std::is_same_v<T, ir::ToolCallStart>)
          return "CallStart{" + std::to_string(e.index) + "," + e.id + "," + e.name + "}";
        else if constexpr (std::is_same_v<T, ir::ToolCallDelta>)
          return "CallDelta{" + std::to_string(e.index) + "," + e.fragment + "}";
        else if constexpr (std::is_same_v<T, ir::ToolCallEnd>)
          return "CallEnd{" + std::to_string(e.index) + "}";
        else if constexpr (std::is_same_v<T, ir::UsageEvent>)
          return "Usage{" + std::to_string(e.usage.input_tokens.value_or(-1)) + "," +
                 std::to_string(e.usage.output_tokens.value_or(-1)) + "," +
                 std::to_string(e.usage.cache_read_tokens.value_or(-1)) + "}";
        else if constexpr (std::is_same_v<T, ir::Finish>)
          return "Finish{" + std::string(ir::to_string(e.reason.kind)) + "," + e.reason.raw + "}";
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

StreamResult decode_stream(std::string_view bytes, const std::vector<size_t>& cuts) {
  StreamResult r;
  auto dec = openai().make_stream_decoder();
  size_t pos = 0;
  for (size_t cut : cuts) {
    Status s = dec->feed(bytes.substr(pos, cut - pos), r.events);
    pos = cut;
    if (!s) {
      r.status = s;
      return r;
    }
  }
  Status s = dec->feed(bytes.substr(pos), r.events);
  if (!s) {
    r.status = s;
    return r;
  }
  r.status = dec->finish(r.events);
  return r;
}

}  // namespace toolwire::codec::openai_chat_test
