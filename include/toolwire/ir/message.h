// toolwire/ir/message.h — conversation messages.
//
// Normal form, which every decoder produces and every encoder accepts:
//  - `system` messages hold TextParts; leading ones live in Request::system.
//  - `assistant` messages hold text, thinking and tool calls, in model order.
//  - `tool` messages hold one or more ToolResultParts (consecutive results of
//    one turn grouped in one message), in the order the calls were made.
//  - `user` messages hold text and images.
// A tool result answers a ToolCallPart with the same id in an earlier assistant
// message; decoders reject a result with no matching call.
#pragma once

#include <string_view>

#include "toolwire/ir/parts.h"

namespace toolwire::ir {

enum class Role { system, user, assistant, tool };

std::string_view to_string(Role role);

template <class S>
struct BasicMessage {
  Role role = Role::user;
  typename S::template Vector<BasicPart<S>> parts;
  typename S::String name;  // OpenAI participant name; empty if none
  bool operator==(const BasicMessage&) const = default;
};

using Message = BasicMessage<Owning>;

}  // namespace toolwire::ir
