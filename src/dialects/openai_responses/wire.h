// wire.h — private declarations of the OpenAI Responses codec.
//
// One translation direction per .cc file. Requests (input items) and
// responses (output items) share the item shapes, so the item decoder and
// writer live in content_decoder.cc / content_encoder.cc; finish reasons,
// usage and images in wire.cc.
#pragma once

#include <cstddef>

#include "dialects/common/data_url.h"
#include "dialects/common/wire_functions.h"

namespace toolwire::dialects::openai_responses {

inline constexpr std::string_view kDialect = "openai_responses";
// Tool names: ^[a-zA-Z0-9_-]{1,64}$ (toolwire/dialects/tool_rules.h), as Chat.
inline constexpr size_t kMaxToolNameLength = 64;

// is_error convention (a function_call_output has no flag), as openai_chat:
// an error result's text starts with this.
inline constexpr std::string_view kErrorPrefix = "Error: ";

// Requests, responses, streams and errors (dialects/common/wire_functions.h).
TW_DIALECT_FUNCTIONS;

// ---- shared helpers (wire.cc) ----

using json::Fields;
using json::pick;

// A response's `status` (+ `incomplete_details.reason`) → IR. `has_calls`
// makes a completed turn with function calls a tool_calls turn.
ir::FinishReason decode_status(std::string_view status, std::string_view incomplete_reason,
                               bool has_calls);
// IR → `status` and, for "incomplete", the reason (else empty).
struct WireStatus {
  std::string_view status;
  std::string_view incomplete_reason;
};
WireStatus encode_status(const ir::FinishReason& reason);

// `usage` {input_tokens, output_tokens, input_tokens_details.cached_tokens, ...}.
Result<ir::Usage> decode_usage(json::element e, const json::Path& path);
// "usage":{...} as the API writes it (details objects always present).
void write_usage(JsonWriter& w, const ir::Usage& usage);

// {"type":"input_image","image_url":...,"detail"?}.
template <class S>
void write_image(JsonWriter& w, const ir::BasicImagePart<S>& image);

// Items and content parts with no IR form are UnknownParts of this dialect.
// An item of its own (web_search_call, item_reference...) has the type
// "item:<type>"; a content part of a message (input_file, refusal...) its own
// type, so that each is written back where it came from.
inline constexpr std::string_view kItemTypePrefix = "item:";
inline bool is_item_part(std::string_view unknown_type) {
  return unknown_type.starts_with(kItemTypePrefix);
}
template <class S>
ir::BasicUnknownPart<S> unknown_item(json::element item, std::string_view type) {
  std::string tagged(kItemTypePrefix);
  tagged.append(type);
  return ir::BasicUnknownPart<S>{typename S::String(kDialect), IrText<S>::made(std::move(tagged)),
                                 IrText<S>::raw_json(item)};
}
// `item_reference`: an item of an earlier answer named by its id, which only
// a gateway's response store can resolve (item_references.cc). An item with
// an `id` and neither `type` nor `role` is one too.
inline constexpr std::string_view kItemReference = "item_reference";
inline bool is_bare_reference(json::object item) {
  json::element e;
  return !json::get(item, "role", e) && json::get(item, "id", e);
}

// Item types that answer something the model did (computer_call_output...):
// decoded into a user message, the rest into the assistant's turn.
bool is_answer_item_type(std::string_view type);

// ---- items (content_decoder.cc / content_encoder.cc) ----

struct ItemCtx {
  Warnings& warnings;
  SeenIds* calls = nullptr;  // call ids seen so far (requests), else nullptr
};

// One model-side item — a `message` of role assistant, `function_call`,
// `reasoning`, or another type kept raw — appended to an assistant message's
// parts. `role` is the message's role when `type` is "message".
template <class S, class Parts>
Status decode_model_item(json::element item, std::string_view type, const json::Path& path,
                         Parts& out, ItemCtx& ctx);
// A message's `content` (a string or an array of parts). `assistant` reads
// output_text, the others input_text / input_image; `text_only` refuses
// anything but text (system and developer messages).
template <class S, class Parts>
Status decode_message_content(json::element content, const json::Path& path, bool assistant,
                              bool text_only, Parts& out, Warnings& warnings);
// A function_call_output's `output` (a string or an array of parts).
template <class S>
Status decode_call_output(json::element output, const json::Path& path,
                          ir::BasicToolResultPart<S>& out, Warnings& warnings);

// How the item writer names what it writes.
struct ItemStyle {
  bool output = false;       // response output items: ids and status written
  std::string_view id_base;  // output: item ids are <prefix>_<id_base>_<n>
  std::string path;          // warning path of the message written
};
// The assistant parts as items: text runs → `message`, calls →
// `function_call`, thinking → `reasoning`, this dialect's unknown items raw.
// `next` numbers generated item ids.
template <class S>
void write_model_items(JsonWriter& w, const typename S::template Vector<ir::BasicPart<S>>& parts,
                       const ItemStyle& style, size_t& next, Warnings& warnings);
// A generated item id: "<prefix>_<base>_<n>" (base "toolwire" when empty).
std::string item_id(std::string_view prefix, std::string_view base, size_t n);
// A response id without its "resp_" prefix: the base of its generated item ids.
std::string_view id_base(std::string_view response_id);

inline void append_json(json::element e, std::string& out) { json::append_compact(out, e); }
inline std::string raw_json(json::element e) {
  std::string out;
  append_json(e, out);
  return out;
}

}  // namespace toolwire::dialects::openai_responses
