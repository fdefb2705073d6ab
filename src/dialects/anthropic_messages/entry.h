// The Anthropic Messages entry of the dialect list (src/dialects/dialects.cc): its
// codec, how toolwire calls it (egress) and how a gateway serves it (ingress).
#pragma once

#include "dialects/anthropic_messages/wire.h"
#include "dialects/common/entry_kit.h"

namespace toolwire::dialects::anthropic_messages {

TW_ENTRY_FUNCTIONS;

// ingress.cc
bool owns_path(std::string_view path);
void write_models(JsonWriter& w, std::span<const std::string> ids);
std::optional<WireError> refuse(const ir::Request& request);

inline constexpr UnservedRoute kUnserved[] = {
    {"/v1/messages/count_tokens", "POST",
     "count_tokens is not supported by this gateway's upstreams"},
};

inline constexpr Dialect kEntry{
    .name = kDialect,
    .alias = "anthropic",
    TW_ENTRY_CODECS,
    .path = "/v1/messages",
    .auth = &header_auth,
    .stream_error_code = &stream_error_code,
    .rate_limit_prefix = "anthropic-ratelimit-",
    .export_tool = &schema::anthropic_tool,
    .max_tool_name_length = kMaxToolNameLength,
    .ingress =
        {
            .match_model_call = &match_model_call,
            .routes_help = "POST /v1/messages",
            .owns_path = &owns_path,
            .marker_header = "anthropic-version",
            .key_header = "x-api-key",
            .key_help = "x-api-key: KEY",
            // Its SDKs drop a `ping` event; an SSE comment would do too, but
            // `ping` is what the API itself sends.
            .stream_keepalive = "event: ping\ndata: {\"type\": \"ping\"}\n\n",
            .write_models = &write_models,
            .unserved = kUnserved,
            .refuse = &refuse,
        },
};

}  // namespace toolwire::dialects::anthropic_messages
