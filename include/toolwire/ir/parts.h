// toolwire/ir/parts.h — the content parts of a message.
//
// The IR is toolwire's own model, not any vendor's JSON. A message is a role
// and an ordered list of parts. Opaque JSON (tool arguments, unknown blocks)
// stays raw text: it is only parsed by whoever needs its values (a tool).
#pragma once

#include <string>
#include <variant>
#include <vector>

namespace toolwire::ir {

struct TextPart {
  std::string text;
  bool operator==(const TextPart&) const = default;
};

// An image given by URL (https:// or data:) or inline base64 bytes.
struct ImagePart {
  std::string url;         // set when the source is a URL
  std::string media_type;  // e.g. "image/png"; set with `data`
  std::string data;        // base64, without a "data:" prefix
  std::string detail;      // OpenAI "detail" hint ("auto", "low", "high"), may be empty
  bool operator==(const ImagePart&) const = default;
};

// A model's request to run a tool.
struct ToolCallPart {
  std::string id;
  std::string name;
  // The arguments as raw JSON text as the model produced them (OpenAI's
  // `function.arguments` string, or the source text of Anthropic's `input`
  // object with any line breaks removed). May contain insignificant spaces.
  std::string arguments;
  // False when `arguments` is not valid JSON (models do produce that). The
  // text is kept as is so nothing is lost; tools reject it with an error result.
  bool arguments_valid = true;
  bool operator==(const ToolCallPart&) const = default;
};

// A block the IR has no type for, kept as raw JSON of its source dialect so a
// same-dialect passthrough loses nothing (e.g. Anthropic `document` blocks).
struct UnknownPart {
  std::string dialect;  // "anthropic_messages", "openai_chat", ...
  std::string type;     // the block's type field, when it has one
  std::string raw_json;
  bool operator==(const UnknownPart&) const = default;
};

// What a tool result may contain.
using ResultContent = std::variant<TextPart, ImagePart, UnknownPart>;

struct ToolResultPart {
  std::string call_id;
  std::vector<ResultContent> content;
  bool is_error = false;
  bool operator==(const ToolResultPart&) const = default;
};

// Model reasoning. Anthropic signs thinking blocks and requires them back
// unchanged in later turns; `redacted` blocks carry only encrypted `data`.
struct ThinkingPart {
  std::string text;
  std::string signature;
  bool redacted = false;
  std::string redacted_data;
  bool operator==(const ThinkingPart&) const = default;
};

using Part = std::variant<TextPart, ImagePart, ToolCallPart, ToolResultPart, ThinkingPart, UnknownPart>;

}  // namespace toolwire::ir
