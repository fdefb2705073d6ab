// wire.h — private declarations of the AWS Bedrock Converse codec
// (POST /model/{modelId}/converse and /converse-stream, bedrock-runtime
// 2023-09-30). See README.md here.
//
// One translation direction per file: request_decoder.cc, request_encoder.cc,
// response_decoder.cc, response_encoder.cc, stream_decoder.cc,
// stream_encoder.cc, errors.cc. Content blocks shared by requests and
// responses live in content_decoder.cc / content_encoder.cc; the SigV4 auth
// hook in auth.cc.
#pragma once

#include "dialects/common/wire_functions.h"
#include "dialects/common/wrapped_arguments.h"
#include "toolwire/dialects/dialect.h"

namespace toolwire::dialects::bedrock_converse {

inline constexpr std::string_view kDialect = "bedrock_converse";
// Tool names: ^[a-zA-Z0-9_-]{1,64}$ (toolwire/dialects/tool_rules.h).
inline constexpr size_t kMaxToolNameLength = 64;
// SigV4's service name for bedrock-runtime.
inline constexpr std::string_view kSigningService = "bedrock";

// Requests, responses, streams and errors (dialects/common/wire_functions.h).
TW_DIALECT_FUNCTIONS;
// The exception type ConverseStream would send for an IR error event's type
// (a Bedrock type passes unchanged).
std::string_view stream_exception_type(std::string_view ir_type);
// The SigV4 auth hook (auth.cc): credentials from AWS_ACCESS_KEY_ID,
// AWS_SECRET_ACCESS_KEY (or the profile's key) and AWS_SESSION_TOKEN, the
// region from AWS_REGION / AWS_DEFAULT_REGION, else the bedrock-runtime host.
void sigv4_auth(const AuthRequest& request, HeaderList& out);

// ---- shared by the decoders (content_decoder.cc) ----

using SeenCallIds = SeenIds;

// A content block is a union: an object with exactly one member, whose key
// names the kind ("text", "toolUse", ...). Returns the key and its value.
struct Block {
  std::string_view kind;
  json::element value;
};
Result<Block> block_of(json::element block, const json::Path& path);

// Appends an assistant content block (text, toolUse, reasoningContent;
// anything else as UnknownPart) to `parts`.
template <class S, class Parts>
Status decode_assistant_block(json::element block, const json::Path& path, Parts& parts,
                              SeenCallIds* seen);
// An image block's value → IR image; false for a source the IR has no form
// for (s3Location): the caller keeps the block verbatim.
template <class S>
Result<bool> decode_image(json::element value, const json::Path& path, ir::BasicImagePart<S>& out);

// The unified reason for a stopReason.
ir::FinishReason decode_stop_reason(std::string_view raw, bool has_tool_calls);
std::string_view encode_stop_reason(const ir::FinishReason& reason, bool has_tool_calls);

// Bedrock usage (inputTokens excludes cache reads and writes) into IR usage
// (input_tokens includes them).
Status decode_usage(json::element usage, const json::Path& path, ir::Usage& out);
// Writes a `usage` object's members (the caller opens and closes it).
void encode_usage(const ir::Usage& usage, JsonWriter& w);

// ---- shared by the encoders (content_encoder.cc) ----

// True when encode_assistant_part writes a block for `part`.
template <class S>
bool assistant_part_emits(const ir::BasicPart<S>& part);
template <class S>
void encode_assistant_part(const ir::BasicPart<S>& part, bool raw_verified, const json::Path& path,
                           JsonWriter& w, Warnings& warnings);
// False (and a warning) when the image cannot be written (a web URL, a
// media type Bedrock has no format for).
template <class S>
bool image_emits(const ir::BasicImagePart<S>& image);
template <class S>
void encode_image(const ir::BasicImagePart<S>& image, const json::Path& path, JsonWriter& w,
                  Warnings& warnings);
template <class S>
void encode_tool_input(const ir::BasicToolCallPart<S>& call, bool raw_verified,
                       const json::Path& path, JsonWriter& w, Warnings& warnings);

}  // namespace toolwire::dialects::bedrock_converse
