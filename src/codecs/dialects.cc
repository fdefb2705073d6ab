// The one list of dialects (toolwire/codec/dialect.h). A new dialect is its
// folder under src/codecs/ plus one entry here; the CLI, the HTTP provider,
// the tool-schema export and the cross-dialect tests all read this list.
#include "toolwire/codec/dialect.h"

#include "codecs/anthropic_messages/wire.h"
#include "codecs/bedrock_converse/wire.h"
#include "codecs/common/borrowed_codec.h"
#include "codecs/openai_chat/wire.h"

namespace toolwire::codec {

// Defined in each dialect's folder (codec.cc).
const Codec& openai_chat_codec();
const Codec& anthropic_messages_codec();
const Codec& bedrock_converse_codec();

namespace {

constexpr Dialect kDialects[] = {
    {
        .name = openai_chat::kDialect,
        .alias = "openai",
        .codec = &openai_chat_codec,
        .borrowed = &kBorrowedCodec<&openai_chat::decode_request_into<Borrowed>,
                                    &openai_chat::encode_request_from<Borrowed>>,
        .path = "/chat/completions",
        .auth = &header_auth,
        .stream_error_code = &openai_chat::stream_error_code,
        .stream_usage_key = "stream_options",
        .stream_usage_value = R"({"include_usage":true})",
        .export_tool = &schema::openai_tool,
        .max_tool_name_length = openai_chat::kMaxToolNameLength,
        .tool_name_path = ".function.name",
    },
    {
        .name = anthropic_messages::kDialect,
        .alias = "anthropic",
        .codec = &anthropic_messages_codec,
        .borrowed = &kBorrowedCodec<&anthropic_messages::decode_request_into<Borrowed>,
                                    &anthropic_messages::encode_request_from<Borrowed>>,
        .path = "/v1/messages",
        .auth = &header_auth,
        .stream_error_code = &anthropic_messages::stream_error_code,
        .rate_limit_prefix = "anthropic-ratelimit-",
        .export_tool = &schema::anthropic_tool,
        .max_tool_name_length = anthropic_messages::kMaxToolNameLength,
    },
    {
        .name = bedrock_converse::kDialect,
        .alias = "bedrock",
        .codec = &bedrock_converse_codec,
        .borrowed = &kBorrowedCodec<&bedrock_converse::decode_request_into<Borrowed>,
                                    &bedrock_converse::encode_request_from<Borrowed>>,
        .path = "/model/{model}/converse",
        .stream_path = "/model/{model}/converse-stream",
        .stream_media_type = "application/vnd.amazon.eventstream",
        .auth = &bedrock_converse::sigv4_auth,
        .stream_error_code = &bedrock_converse::stream_error_code,
        .export_tool = &schema::bedrock_tool,
        .max_tool_name_length = bedrock_converse::kMaxToolNameLength,
        .tool_name_path = ".toolSpec.name",
    },
    // Tool-schema export only until its codec lands (issue 16).
    {
        .name = "gemini",
        .export_tool = &schema::gemini_tool,
    },
};

}  // namespace

std::span<const Dialect> all_dialects() { return kDialects; }

}  // namespace toolwire::codec
