// The OpenAI Chat Completions entry of the dialect list (src/dialects/dialects.cc): its
// codec, how toolwire calls it (egress) and how a gateway serves it (ingress).
#pragma once

#include "dialects/common/borrowed_codec.h"
#include "dialects/openai_chat/wire.h"
#include "toolwire/dialects/dialect.h"
#include "toolwire/dialects/ingress.h"

namespace toolwire::dialects {

const Codec& openai_chat_codec();  // codec.cc

namespace openai_chat {

// ingress.cc
std::optional<Result<RouteMatch>> match_model_call(std::string_view path, std::string_view query);
void write_models(JsonWriter& w, std::span<const std::string> ids);

inline constexpr Dialect kEntry{
    .name = kDialect,
    .alias = "openai",
    .codec = &openai_chat_codec,
    .borrowed = &kBorrowedCodec<&decode_request_into<Borrowed>, &encode_request_from<Borrowed>>,
    .path = "/chat/completions",
    .auth = &header_auth,
    .stream_error_code = &stream_error_code,
    .stream_usage_key = "stream_options",
    .stream_usage_value = R"({"include_usage":true})",
    .export_tool = &schema::openai_tool,
    .max_tool_name_length = kMaxToolNameLength,
    .tool_name_path = ".function.name",
    .ingress =
        {
            .match_model_call = &match_model_call,
            .routes_help = "POST /v1/chat/completions",
            .key_header = "authorization",
            .read_key = &bearer_key,
            .key_help = "Authorization: Bearer KEY",
            .stream_keepalive = ": keep-alive\n\n",
            .write_models = &write_models,
        },
};

}  // namespace openai_chat
}  // namespace toolwire::dialects
