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
  // The model's refusal (Chat `delta.refusal`, Responses
  // `response.refusal.delta`), not answer text: written as the target's
  // refusal where it has one (`openai`, `responses`), else dropped with
  // `dropped_unknown_part`, as the whole response's refusal part is.
  bool refusal = false;
  // Raw JSON of the source dialect's log probabilities for this piece (Chat
  // `choices[0].logprobs`); `text` may be empty. Written back only by the
  // dialect named in `dialect`, else dropped with the warning the whole
  // response gives (`dropped_unknown_field` at `$.choices[0].logprobs`).
  std::string logprobs;
  std::string dialect;  // the codec that decoded `logprobs` or the refusal
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
  // The stop sequence that ended the answer (Anthropic
  // `message_delta.delta.stop_sequence`); empty: none or not said. Only
  // `anthropic` has a place for it; the others drop it with
  // `dropped_unknown_field` at `$.stop_sequence`, as the whole response does.
  std::string stop_sequence;
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
