// History invariants and the turn window.
#include "toolwire/agent/history.h"

#include <string>
#include <unordered_map>
#include <variant>

namespace toolwire::agent {

Status check_history(const std::vector<ir::Message>& messages, bool allow_open_calls) {
  if (!messages.empty() && messages.front().role == ir::Role::tool)
    return make_error(ErrorCode::failed_precondition, "history starts with a tool result",
                      "$.messages[0]");
  // call id → answered?
  std::unordered_map<std::string, bool> calls;
  size_t last_assistant = messages.size();
  for (size_t m = 0; m < messages.size(); ++m) {
    const auto& msg = messages[m];
    if (msg.role == ir::Role::assistant) last_assistant = m;
    for (size_t p = 0; p < msg.parts.size(); ++p) {
      std::string path = "$.messages[" + std::to_string(m) + "].parts[" + std::to_string(p) + "]";
      if (auto* c = std::get_if<ir::ToolCallPart>(&msg.parts[p])) {
        if (msg.role != ir::Role::assistant)
          return make_error(ErrorCode::failed_precondition,
                            "tool call outside an assistant message", path);
        if (!calls.emplace(c->id, false).second)
          return make_error(ErrorCode::failed_precondition,
                            "duplicate tool call id '" + c->id + "'", path);
      } else if (auto* r = std::get_if<ir::ToolResultPart>(&msg.parts[p])) {
        auto it = calls.find(r->call_id);
        if (it == calls.end())
          return make_error(ErrorCode::failed_precondition,
                            "tool result for unknown call '" + r->call_id + "'", path);
        if (it->second)
          return make_error(ErrorCode::failed_precondition,
                            "second result for call '" + r->call_id + "'", path);
        it->second = true;
      }
    }
  }
  for (size_t m = 0; m < messages.size(); ++m) {
    if (allow_open_calls && m == last_assistant) continue;
    for (size_t p = 0; p < messages[m].parts.size(); ++p)
      if (auto* c = std::get_if<ir::ToolCallPart>(&messages[m].parts[p]); c && !calls[c->id])
        return make_error(ErrorCode::failed_precondition, "tool call '" + c->id + "' has no result",
                          "$.messages[" + std::to_string(m) + "].parts[" + std::to_string(p) + "]");
  }
  return Status::Ok();
}

size_t window_start(const std::vector<ir::Message>& messages, size_t max_turns) {
  if (max_turns == 0) return 0;
  size_t seen = 0;
  for (size_t i = messages.size(); i-- > 0;) {
    if (messages[i].role == ir::Role::user && ++seen == max_turns) return i;
  }
  return 0;  // fewer turns than the window: keep everything
}

}  // namespace toolwire::agent
