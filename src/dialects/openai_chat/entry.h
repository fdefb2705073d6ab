// The OpenAI Chat Completions entry of the dialect list (src/dialects/dialects.cc): its
// codec, how toolwire calls it (egress) and how a gateway serves it (ingress).
#pragma once

#include "dialects/common/entry_kit.h"
#include "dialects/openai_chat/wire.h"

namespace toolwire::dialects::openai_chat {

TW_ENTRY_FUNCTIONS;

// ingress.cc
void write_models(JsonWriter& w, std::span<const std::string> ids);

inline constexpr Dialect kEntry{
    .name = kDialect,
    .alias = "openai",
    TW_ENTRY_CODECS,
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

}  // namespace toolwire::dialects::openai_chat
