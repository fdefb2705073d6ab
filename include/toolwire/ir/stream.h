// toolwire/ir/stream.h — the one streaming vocabulary.
//
// Every stream decoder turns wire bytes into this sequence and every stream
// encoder turns it back into wire bytes:
//
//   MessageStart
//   (TextDelta | ThinkingDelta | ToolCallStart | ToolCallDelta | ToolCallEnd | UsageEvent)*
//   Finish            — always last on success, after the final usage
//   ErrorEvent        — instead of Finish when the stream failed
//
// Tool call events carry `index`: the call's ordinal among this message's tool
// calls (0, 1, ...), the same as OpenAI's `delta.tool_calls[].index`. Deltas of
// parallel calls may interleave; the index keeps them apart. Text and thinking
// deltas belong to the current text/thinking block: a new block starts when the
// kind of content changes.
#pragma once

#include <optional>
#include <string>
#include <variant>

#include "toolwire/ir/response.h"

namespace toolwire::ir {

struct MessageStart {
  std::string id;
  std::string model;
  int64_t created = 0;
  bool operator==(const MessageStart&) const = default;
};

struct TextDelta {
  std::string text;
  bool operator==(const TextDelta&) const = default;
};

struct ThinkingDelta {
  std::string text;
  std::string signature;          // Anthropic signature_delta; may come alone
  bool redacted = false;          // a redacted_thinking block; `text` holds its data
  std::string item_id;            // Responses reasoning item id; may come alone
  std::string encrypted_content;  // Responses encrypted reasoning; may come alone
  bool operator==(const ThinkingDelta&) const = default;
};

struct ToolCallStart {
  int index = 0;
  std::string id;
  std::string name;
  std::string signature;  // Gemini thoughtSignature of the call; empty: none
  bool operator==(const ToolCallStart&) const = default;
};

struct ToolCallDelta {
  int index = 0;
  std::string fragment;  // a piece of the arguments JSON text
  bool operator==(const ToolCallDelta&) const = default;
};

struct ToolCallEnd {
  int index = 0;
  bool operator==(const ToolCallEnd&) const = default;
};

struct UsageEvent {
  Usage usage;  // cumulative: later events replace earlier fields they set
  bool operator==(const UsageEvent&) const = default;
};

struct Finish {
  FinishReason reason;
  bool operator==(const Finish&) const = default;
};

struct ErrorEvent {
  std::string type;  // e.g. "overloaded_error", "server_error"
  std::string message;
  bool operator==(const ErrorEvent&) const = default;
};

using StreamEvent = std::variant<MessageStart, TextDelta, ThinkingDelta, ToolCallStart,
                                 ToolCallDelta, ToolCallEnd, UsageEvent, Finish, ErrorEvent>;

}  // namespace toolwire::ir
