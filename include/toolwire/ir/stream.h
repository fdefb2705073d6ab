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
#include <vector>

#include "toolwire/ir/response.h"

namespace toolwire::ir {

// Members of the source stream that no event field models but the whole
// response keeps (Chat `system_fingerprint`, usage details...), raw, keyed as
// the whole response's decoder keys its extras (a top-level name, or a placed
// member's path: src/dialects/common/placed_member.h). Written back only by
// the dialect named in `dialect` (a codec name); every other encoder drops
// them with `dropped_unknown_field` at their path. A StreamAccumulator adds
// them to the response's `extra`, so a folded stream keeps what the whole
// response keeps.
struct StreamExtras {
  std::vector<ExtraField> extra;
  std::string dialect;
  bool operator==(const StreamExtras&) const = default;
};

struct MessageStart {
  std::string id;
  std::string model;
  int64_t created = 0;
  StreamExtras extras;  // envelope members (`system_fingerprint`...)
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
  Usage usage;          // cumulative: later events replace earlier fields they set
  StreamExtras extras;  // usage details no count models; a later key replaces
  bool operator==(const UsageEvent&) const = default;
};

struct Finish {
  FinishReason reason;
  // The stop sequence that ended the answer (Anthropic
  // `message_delta.delta.stop_sequence`); empty: none or not said. Only
  // `anthropic` has a place for it; the others drop it with
  // `dropped_unknown_field` at `$.stop_sequence`, as the whole response does.
  std::string stop_sequence;
  StreamExtras extras;  // e.g. Gemini candidate members, Bedrock metrics
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
