// The one list of dialects (toolwire/dialects/dialect.h). A new dialect is its
// folder under src/dialects/ plus one entry here; the CLI, the HTTP provider,
// the tool-schema export and the cross-dialect tests all read this list.
#include "toolwire/dialects/dialect.h"

#include "dialects/anthropic_messages/wire.h"
#include "dialects/bedrock_converse/wire.h"
#include "dialects/common/borrowed_codec.h"
#include "dialects/gemini/wire.h"
#include "dialects/openai_chat/wire.h"
#include "dialects/openai_responses/wire.h"

namespace toolwire::dialects {

// Defined in each dialect's folder (codec.cc).
const Codec& openai_chat_codec();
const Codec& anthropic_messages_codec();
const Codec& openai_responses_codec();
const Codec& gemini_codec();
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
        .name = openai_responses::kDialect,
        .alias = "responses",
        .codec = &openai_responses_codec,
        .borrowed = &kBorrowedCodec<&openai_responses::decode_request_into<Borrowed>,
                                    &openai_responses::encode_request_from<Borrowed>>,
        .path = "/responses",
        .auth = &header_auth,
        .stream_error_code = &openai_responses::stream_error_code,
        .export_tool = &schema::openai_responses_tool,
        .max_tool_name_length = openai_responses::kMaxToolNameLength,
    },
    {
        .name = gemini::kDialect,
        .codec = &gemini_codec,
        .borrowed = &kBorrowedCodec<&gemini::decode_request_into<Borrowed>,
                                    &gemini::encode_request_from<Borrowed>>,
        // Base URL: the server root (https://generativelanguage.googleapis.com).
        .path = "/v1beta/models/{model}:generateContent",
        .stream_path = "/v1beta/models/{model}:streamGenerateContent?alt=sse",
        .auth = &header_auth,  // x-goog-api-key: <key>, no prefix (profiles/gemini.json)
        .stream_error_code = &gemini::stream_error_code,
        .export_tool = &schema::gemini_tool,
        // 0: Gemini's own rule (dots, colons, a leading letter or '_') is not the
        // generic one; its codec checks and maps names (dialects/gemini/README.md).
        .max_tool_name_length = 0,
        .tool_name_path = ".functionDeclarations[0].name",
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
};

}  // namespace

std::span<const Dialect> all_dialects() { return kDialects; }

}  // namespace toolwire::dialects
