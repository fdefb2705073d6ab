// wire.h — private declarations of the Anthropic Messages codec
// (POST /v1/messages, anthropic-version 2023-06-01). See README.md here.
//
// One translation direction per file: request_decoder.cc, request_encoder.cc,
// response_decoder.cc, response_encoder.cc, stream_decoder.cc,
// stream_encoder.cc, errors.cc. Content blocks shared by requests and
// responses live in content_decoder.cc / content_encoder.cc.
#pragma once

#include <unordered_set>
#include <vector>

#include "dialects/common/cache_usage.h"
#include "dialects/common/placed_member.h"
#include "dialects/common/wire_functions.h"
#include "dialects/common/wrapped_arguments.h"

namespace toolwire::dialects::anthropic_messages {

inline constexpr std::string_view kDialect = "anthropic_messages";
// Tool names: ^[a-zA-Z0-9_-]{1,128}$ (toolwire/dialects/tool_rules.h).
inline constexpr size_t kMaxToolNameLength = 128;

// max_tokens is required by Anthropic; used when the source had none.
inline constexpr int64_t kDefaultMaxTokens = 4096;

// Requests, responses, streams and errors (dialects/common/wire_functions.h).
TW_DIALECT_FUNCTIONS;

// ---- shared by the decoders (content_decoder.cc) ----

// Wire ids of the tool_use blocks seen so far (views into the parser's DOM),
// against which tool_result.tool_use_id is checked.
using SeenCallIds = SeenIds;

// The fields any content block may carry, read in one pass over the block
// (dialects/common/fields.h) instead of one scan per field.
enum BlockField {
  kType,
  kText,
  kId,
  kName,
  kInput,
  kThinking,
  kSignature,
  kData,
  kToolUseId,
  kContent,
  kIsError,
  kSource,
  kCacheControl,  // kept as placed members (common/placed_member.h)
  kCitations,
  kBlockFields
};
inline constexpr std::string_view kBlockKeys[kBlockFields] = {
    "type", "text",        "id",      "name",     "input",  "thinking",      "signature",
    "data", "tool_use_id", "content", "is_error", "source", "cache_control", "citations"};
using BlockFields = json::Fields<kBlockFields>;
inline BlockFields pick_block(json::object obj) { return json::pick(obj, kBlockKeys); }
// The block's required "type" string.
Result<std::string_view> block_type(const BlockFields& f, const json::Path& path);

// Where a block's members the IR has no field for (kCacheControl,
// kCitations) go: placed members of `extra` (the block: part `part` of IR
// message `message`; of a response's content: message 0), which Anthropic
// writes back and any other dialect drops with a warning at their path.
template <class S>
struct BlockMembers {
  typename S::template Vector<ir::BasicExtraField<S>>* extra = nullptr;
  size_t message = 0;
};
// Keeps (or warns about) the members of `f` for the block at `path`, which
// became part `part` of its message.
template <class S>
void keep_block_members(const BlockFields& f, const json::Path& path, size_t part,
                        const BlockMembers<S>& members) {
  for (const int k : {kCacheControl, kCitations}) {
    if (!f.has[k]) [[likely]]
      continue;
    if (!members.extra) continue;
    const json::Path p(path, kBlockKeys[k]);
    members.extra->push_back(ir::BasicExtraField<S>{
        IrText<S>::made(p.str()),
        IrText<S>::made(placed_raw(kPlacedPart, members.message, part, json::compact(f.e[k])))});
  }
}

// Appends an assistant content block (text, thinking, redacted_thinking,
// tool_use; anything else as UnknownPart) to `parts`, its members the IR
// has no field for to `members`.
// (Both IR policies; `Parts` is the parts vector of a BasicMessage<S>.)
template <class S, class Parts>
Status decode_assistant_block(json::element block, const json::Path& path, Parts& parts,
                              SeenCallIds* seen, const BlockMembers<S>& members = {});

// Decodes a tool_use `input` value into raw arguments text, undoing the
// invalid-arguments wrapping.
template <class S>
void decode_tool_input(json::element input, ir::BasicToolCallPart<S>& call);

// The unified reason for an Anthropic stop_reason.
ir::FinishReason decode_stop_reason(std::string_view raw, bool has_tool_calls);
// The stop_reason to write for `reason`.
std::string_view encode_stop_reason(const ir::FinishReason& reason, bool has_tool_calls);

// Anthropic usage counts (input_tokens excludes cache reads/writes) into IR
// usage (input_tokens includes them). Fields missing on the wire stay unset.
Status decode_usage(json::element usage, const json::Path& path, ir::Usage& out);

// ---- shared by the encoders (content_encoder.cc) ----

// True when encode_assistant_part writes a block for `part`. In requests,
// thinking without a signature is dropped (Anthropic rejects it).
template <class S>
bool assistant_part_emits(const ir::BasicPart<S>& part, bool in_request);
// Writes one assistant part as a content block (nothing, plus a Warning, for
// parts Anthropic cannot take). `path` names the part for warnings;
// `raw_verified`: see encode_tool_input.
template <class S>
void encode_assistant_part(const ir::BasicPart<S>& part, bool in_request, bool raw_verified,
                           const json::Path& path, JsonWriter& w, Warnings& warnings,
                           const PlaceAt& at = {});
// A usage object's input counts: input_tokens (the cache excluded), then the
// cache's writes and reads when known.
void write_input_usage(const ir::Usage& usage, JsonWriter& w);
// "msg_toolwire_<n>" for output that needs an id the IR did not carry.
std::string synthesize_message_id();
// Writes a tool_use block's `input` value (wrapping invalid arguments). With
// `raw_verified` (EncodeOptions) arguments flagged valid are not parsed again.
template <class S>
void encode_tool_input(const ir::BasicToolCallPart<S>& call, bool raw_verified,
                       const json::Path& path, JsonWriter& w, Warnings& warnings);
template <class S>
void encode_image(const ir::BasicImagePart<S>& image, const json::Path& path, JsonWriter& w,
                  Warnings& warnings, const PlaceAt& at = {});

}  // namespace toolwire::dialects::anthropic_messages
