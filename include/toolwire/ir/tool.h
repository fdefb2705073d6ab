// toolwire/ir/tool.h — tool definitions and tool choice.
#pragma once

#include <optional>

#include "toolwire/ir/storage.h"

namespace toolwire::ir {

template <class S>
struct BasicToolDefinition {
  typename S::String name;
  typename S::String description;
  typename S::String input_schema = R"({"type":"object","properties":{}})";  // raw JSON Schema
  std::optional<bool> strict;  // OpenAI structured-outputs flag
  bool operator==(const BasicToolDefinition&) const = default;
};

enum class ToolChoiceKind { auto_, none, required, tool };

template <class S>
struct BasicToolChoice {
  using Kind = ToolChoiceKind;
  Kind kind = Kind::auto_;
  typename S::String name;  // when kind == tool
  bool operator==(const BasicToolChoice&) const = default;
};

using ToolDefinition = BasicToolDefinition<Owning>;
using ToolChoice = BasicToolChoice<Owning>;

}  // namespace toolwire::ir
