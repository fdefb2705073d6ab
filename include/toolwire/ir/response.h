// toolwire/ir/response.h — a complete (non-streamed) model response.
#pragma once

#include <cstdint>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include "toolwire/ir/parts.h"
#include "toolwire/ir/request.h"

namespace toolwire::ir {

// Unified finish reason next to the provider's raw value.
struct FinishReason {
  enum class Kind { stop, length, tool_calls, content_filter, error, other };
  Kind kind = Kind::stop;
  std::string raw;  // e.g. "end_turn", "stop_sequence", "tool_calls"; may be empty
  bool operator==(const FinishReason&) const = default;
};

std::string_view to_string(FinishReason::Kind kind);

struct Usage {
  std::optional<int64_t> input_tokens;
  std::optional<int64_t> output_tokens;
  std::optional<int64_t> cache_read_tokens;
  std::optional<int64_t> cache_write_tokens;
  // The counts are estimates, not a tokenizer's (the scripted model: characters
  // / 4). No wire dialect carries this; `toolwire chat --json` shows it.
  bool estimated = false;
  bool empty() const {
    return !input_tokens && !output_tokens && !cache_read_tokens && !cache_write_tokens;
  }
  bool operator==(const Usage&) const = default;
};

// Adds `add`'s counts to `sum` (the usage of several model calls): a count
// either side lacks stays the other's; one estimate makes the sum one.
void add_usage(Usage& sum, const Usage& add);

struct Response {
  std::string id;
  std::string model;
  int64_t created = 0;      // unix seconds; 0 if unknown
  std::vector<Part> parts;  // assistant content: text, thinking, tool calls
  FinishReason finish;
  Usage usage;
  std::string source_dialect;
  std::vector<ExtraField> extra;
  bool operator==(const Response&) const = default;
};

// True if any part is a tool call. A turn with text and tool calls finishes as
// a tool-call turn whatever the raw reason said.
bool has_tool_calls(const std::vector<Part>& parts);

}  // namespace toolwire::ir
