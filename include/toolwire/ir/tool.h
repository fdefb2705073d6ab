// toolwire/ir/tool.h — tool definitions and tool choice.
#pragma once

#include <optional>
#include <string>

namespace toolwire::ir {

struct ToolDefinition {
  std::string name;
  std::string description;
  std::string input_schema = R"({"type":"object","properties":{}})";  // raw JSON Schema
  std::optional<bool> strict;  // OpenAI structured-outputs flag
  bool operator==(const ToolDefinition&) const = default;
};

struct ToolChoice {
  enum class Kind { auto_, none, required, tool };
  Kind kind = Kind::auto_;
  std::string name;  // when kind == tool
  bool operator==(const ToolChoice&) const = default;
};

}  // namespace toolwire::ir
