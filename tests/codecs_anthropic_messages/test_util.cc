#include "test_util.h"

namespace toolwire::codec::anthropic_test {

std::string describe(const ir::StreamEvent& event) {
  return std::visit(
      [](const auto& e) -> std::string {
        using T = std::decay_t<decltype(e)>;
        if constexpr (std::is_same_v<T, ir::MessageStart>)
          return "MessageStart{" + e.id + "," + e.model + "}";
        if constexpr (std::is_same_v<T, ir::TextDelta>) return "TextDelta{" + e.text + "}";
        if constexpr (std::is_same_v<T, ir::ThinkingDelta>)
          return "ThinkingDelta{" + e.text + "," + e.signature + (e.redacted ? ",redacted}" : "}");
        if constexpr (std::is_same_v<T, ir::ToolCallStart>)
          return "ToolCallStart{" + std::to_string(e.index) + "," + e.id + "," + e.name + "}";
        if constexpr (std::is_same_v<T, ir::ToolCallDelta>)
          return "ToolCallDelta{" + std::to_string(e.index) + "," + e.fragment + "}";
        if constexpr (std::is_same_v<T, ir::ToolCallEnd>)
          return "ToolCallEnd{" + std::to_string(e.index) + "}";
        if constexpr (std::is_same_v<T, ir::UsageEvent>) {
          auto f = [](const std::optional<int64_t>& v) {
            return v ? std::to_string(*v) : std::string("-");
          };
          return "UsageEvent{in=" + f(e.usage.input_tokens) + ",out=" + f(e.usage.output_tokens) +
                 ",cr=" + f(e.usage.cache_read_tokens) + ",cw=" + f(e.usage.cache_write_tokens) +
                 "}";
        }
        if constexpr (std::is_same_v<T, ir::Finish>)
          return "Finish{" + std::string(ir::to_string(e.reason.kind)) + "," + e.reason.raw + "}";
        if constexpr (std::is_same_v<T, ir::ErrorEvent>)
          return "ErrorEvent{" + e.type + "," + e.message + "}";
        return "?";
      },
      event);
}

}  // namespace toolwire::codec::anthropic_test
