// wire.h — private declarations of the OpenAI Chat Completions codec.
//
// One translation direction per .cc file; the helpers shared by several of
// them (finish reasons, images, usage, content parts) live in wire.cc.
#pragma once

#include <cstddef>

#include "dialects/common/data_url.h"
#include "dialects/common/placed_member.h"
#include "dialects/common/wire_functions.h"

namespace toolwire::dialects::openai_chat {

inline constexpr std::string_view kDialect = "openai_chat";
// Tool names: ^[a-zA-Z0-9_-]{1,64}$ (toolwire/dialects/tool_rules.h).
inline constexpr size_t kMaxToolNameLength = 64;

// is_error convention (OpenAI has no flag): an error result's text starts with this.
inline constexpr std::string_view kErrorPrefix = "Error: ";

// UnknownPart type for a tool_calls entry whose type is not "function".
inline constexpr std::string_view kUnknownToolCallType = "tool_call";
// An assistant message's `audio: {id}` (an earlier audio answer referred to
// by id): an UnknownPart of this type holding the object, written back as the
// message's `audio` member.
inline constexpr std::string_view kUnknownAudioType = "audio";

// Requests, responses, streams and errors (dialects/common/wire_functions.h).
TW_DIALECT_FUNCTIONS;

// ---- shared helpers (wire.cc) ----

// OpenAI finish_reason → IR. `has_calls` forces tool_calls (a text + tool call turn).
ir::FinishReason decode_finish_reason(std::string_view raw, bool has_calls);
// IR → OpenAI finish_reason value.
std::string_view encode_finish_reason(const ir::FinishReason& reason, bool has_calls);

// Writes {"type":"image_url","image_url":{"url":...,"detail"?}}.
template <class S>
void write_image_part(JsonWriter& w, const ir::BasicImagePart<S>& image);

// Decodes a `usage` object.
Result<ir::Usage> decode_usage(json::element e, const json::Path& path);
// The members of a `usage` object (at `path`) no ir::Usage count holds:
// completion_tokens_details (reasoning, prediction, audio) and
// prompt_tokens_details other than cached_tokens, as placed members of
// `$.usage` (kPlacedFixed) for write_usage() to write back. The whole
// response and the stream's usage chunk keep them the same way.
void keep_usage_details(json::element usage, const json::Path& path,
                        std::vector<ir::ExtraField>& extra);
// A message's `refusal` text as the raw block an UnknownPart keeps:
// {"type":"refusal","refusal":...}.
std::string refusal_block(std::string_view refusal);
// Writes "usage":{prompt_tokens, completion_tokens, total_tokens, prompt_tokens_details?}.
// `placed`: a same-dialect response's usage details (placed_member.h).
void write_usage(JsonWriter& w, const ir::Usage& usage,
                 std::vector<PlacedMember>* placed = nullptr);

// The element as compact JSON text, appended to `out` (dialects/common/dom_json.h).
inline void append_json(json::element e, std::string& out) { json::append_compact(out, e); }
inline std::string raw_json(json::element e) {
  std::string out;
  append_json(e, out);
  return out;
}

// Several fields of one object in one pass (dialects/common/fields.h);
// explicit nulls count as absent here (`has`).
using json::Fields;
using json::pick;

// Decodes one tool_calls entry: a `function` call {id, type, function:{name,
// arguments}} becomes a ToolCallPart, another type an UnknownPart kept raw.
// `id` receives the entry's id (a view into the DOM) when it has one.
template <class S = ir::Owning>
Result<ir::BasicPart<S>> decode_tool_call(json::element entry, const json::Path& path,
                                          std::string_view& id);
// Writes one tool_calls entry.
template <class S>
void write_tool_call(JsonWriter& w, const ir::BasicToolCallPart<S>& call);

}  // namespace toolwire::dialects::openai_chat
