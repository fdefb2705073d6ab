// toolwire/ir/request.h — a model request.
#pragma once

#include <cstdint>
#include <optional>
#include <string>
#include <vector>

#include "toolwire/ir/message.h"
#include "toolwire/ir/tool.h"

namespace toolwire::ir {

// A top-level field the IR does not model, kept as raw JSON. A same-dialect
// encoder writes it back; another dialect drops it with a Warning.
struct ExtraField {
  std::string key;
  std::string raw_json;
  bool operator==(const ExtraField&) const = default;
};

struct SystemPart {
  std::string text;
  bool developer = false;  // OpenAI "developer" role rather than "system"
  bool operator==(const SystemPart&) const = default;
};

struct Request {
  std::string model;
  std::vector<SystemPart> system;  // leading system prompt(s)
  std::vector<Message> messages;
  std::vector<ToolDefinition> tools;
  std::optional<ToolChoice> tool_choice;
  std::optional<bool> parallel_tool_calls;  // false = at most one call per turn
  std::optional<int64_t> max_tokens;
  std::optional<double> temperature;
  std::optional<double> top_p;
  std::vector<std::string> stop;
  bool stream = false;
  std::string metadata;  // raw JSON object, empty if none
  std::string source_dialect;  // dialect `extra` came from
  std::vector<ExtraField> extra;
  bool operator==(const Request&) const = default;
};

}  // namespace toolwire::ir
