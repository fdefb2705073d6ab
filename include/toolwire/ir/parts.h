// toolwire/ir/parts.h — the content parts of a message.
//
// The IR is toolwire's own model, not any vendor's JSON. A message is a role
// and an ordered list of parts. Opaque JSON (tool arguments, unknown blocks)
// stays raw text: it is only parsed by whoever needs its values (a tool).
//
// Each type is a template over a storage policy (storage.h); use the plain
// names below (ir::TextPart, ir::Part, ...), which own their data.
#pragma once

#include <variant>

#include "toolwire/ir/storage.h"

namespace toolwire::ir {

template <class S>
struct BasicTextPart {
  typename S::String text;
  bool operator==(const BasicTextPart&) const = default;
};

// An image given by URL (https:// or data:) or inline base64 bytes.
template <class S>
struct BasicImagePart {
  typename S::String url;         // set when the source is a URL
  typename S::String media_type;  // e.g. "image/png"; set with `data`
  typename S::String data;        // base64, without a "data:" prefix
  typename S::String detail;      // OpenAI "detail" hint ("auto", "low", "high"), may be empty
  bool operator==(const BasicImagePart&) const = default;
};

// A model's request to run a tool.
template <class S>
struct BasicToolCallPart {
  typename S::String id;
  typename S::String name;
  // The arguments as raw JSON text as the model produced them (OpenAI's
  // `function.arguments` string, or the source text of Anthropic's `input`
  // object with any line breaks removed). May contain insignificant spaces.
  typename S::String arguments;
  // False when `arguments` is not valid JSON (models do produce that). The
  // text is kept as is so nothing is lost; tools reject it with an error result.
  bool arguments_valid = true;
  // An opaque token the provider signed the call with and requires back
  // unchanged in later turns (Gemini's `thoughtSignature`); empty: none.
  typename S::String signature;
  bool operator==(const BasicToolCallPart&) const = default;
};

// A block the IR has no type for, kept as raw JSON of its source dialect so a
// same-dialect passthrough loses nothing (e.g. Anthropic `document` blocks).
template <class S>
struct BasicUnknownPart {
  typename S::String dialect;  // "anthropic_messages", "openai_chat", ...
  typename S::String type;     // the block's type field, when it has one
  typename S::String raw_json;
  bool operator==(const BasicUnknownPart&) const = default;
};

// What a tool result may contain.
template <class S>
using BasicResultContent = std::variant<BasicTextPart<S>, BasicImagePart<S>, BasicUnknownPart<S>>;

template <class S>
struct BasicToolResultPart {
  typename S::String call_id;
  typename S::template Vector<BasicResultContent<S>> content;
  bool is_error = false;
  bool operator==(const BasicToolResultPart&) const = default;
};

// Model reasoning. Anthropic signs thinking blocks and requires them back
// unchanged in later turns; `redacted` blocks carry only encrypted `data`.
// OpenAI Responses gives reasoning an item id and, with `store: false`, its
// `encrypted_content`, which must come back in the next request's input.
template <class S>
struct BasicThinkingPart {
  typename S::String text;
  typename S::String signature;
  bool redacted = false;
  typename S::String redacted_data;
  typename S::String item_id;
  typename S::String encrypted_content;
  bool operator==(const BasicThinkingPart&) const = default;
};

template <class S>
using BasicPart = std::variant<BasicTextPart<S>, BasicImagePart<S>, BasicToolCallPart<S>,
                               BasicToolResultPart<S>, BasicThinkingPart<S>, BasicUnknownPart<S>>;

using TextPart = BasicTextPart<Owning>;
using ImagePart = BasicImagePart<Owning>;
using ToolCallPart = BasicToolCallPart<Owning>;
using UnknownPart = BasicUnknownPart<Owning>;
using ResultContent = BasicResultContent<Owning>;
using ToolResultPart = BasicToolResultPart<Owning>;
using ThinkingPart = BasicThinkingPart<Owning>;
using Part = BasicPart<Owning>;

}  // namespace toolwire::ir
