#include <variant>

#include "toolwire/ir/message.h"
#include "toolwire/ir/response.h"

#include "toolwire/core/enum_names.h"

namespace toolwire::ir {

namespace {
constexpr EnumName<Role> kRoles[] = {{Role::system, "system"},
                                     {Role::user, "user"},
                                     {Role::assistant, "assistant"},
                                     {Role::tool, "tool"}};
using Kind = FinishReason::Kind;
constexpr EnumName<Kind> kFinishKinds[] = {{Kind::stop, "stop"},
                                           {Kind::length, "length"},
                                           {Kind::tool_calls, "tool_calls"},
                                           {Kind::content_filter, "content_filter"},
                                           {Kind::error, "error"},
                                           {Kind::other, "other"}};
}  // namespace

std::string_view to_string(Role role) { return name_of(kRoles, role, "unknown"); }

std::string_view to_string(FinishReason::Kind kind) { return name_of(kFinishKinds, kind, "other"); }

bool has_tool_calls(const std::vector<Part>& parts) {
  for (const auto& p : parts)
    if (std::holds_alternative<ToolCallPart>(p)) return true;
  return false;
}

}  // namespace toolwire::ir
