#include <variant>

#include "toolwire/ir/message.h"
#include "toolwire/ir/response.h"

namespace toolwire::ir {

std::string_view to_string(Role role) {
  switch (role) {
    case Role::system:
      return "system";
    case Role::user:
      return "user";
    case Role::assistant:
      return "assistant";
    case Role::tool:
      return "tool";
  }
  return "unknown";
}

std::string_view to_string(FinishReason::Kind kind) {
  switch (kind) {
    case FinishReason::Kind::stop:
      return "stop";
    case FinishReason::Kind::length:
      return "length";
    case FinishReason::Kind::tool_calls:
      return "tool_calls";
    case FinishReason::Kind::content_filter:
      return "content_filter";
    case FinishReason::Kind::error:
      return "error";
    case FinishReason::Kind::other:
      return "other";
  }
  return "other";
}

bool has_tool_calls(const std::vector<Part>& parts) {
  for (const auto& p : parts)
    if (std::holds_alternative<ToolCallPart>(p)) return true;
  return false;
}

}  // namespace toolwire::ir
