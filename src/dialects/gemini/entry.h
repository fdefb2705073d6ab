// The Gemini generateContent entry of the dialect list (src/dialects/dialects.cc): its
// codec, how toolwire calls it (egress) and how a gateway serves it (ingress).
#pragma once

#include "dialects/common/entry_kit.h"
#include "dialects/gemini/wire.h"

namespace toolwire::dialects::gemini {

TW_ENTRY_FUNCTIONS;

// ingress.cc
bool owns_path(std::string_view path);

inline constexpr Dialect kEntry{
    .name = kDialect,
    TW_ENTRY_CODECS,
    // Base URL: the server root (https://generativelanguage.googleapis.com).
    .path = "/v1beta/models/{model}:generateContent",
    .stream_path = "/v1beta/models/{model}:streamGenerateContent?alt=sse",
    .auth = &header_auth,  // x-goog-api-key: <key>, no prefix (profiles/gemini.json)
    .stream_error_code = &stream_error_code,
    .export_tool = &schema::gemini_tool,
    // 0: Gemini's own rule (dots, colons, a leading letter or '_') is not the
    // generic one; its codec checks and maps names (README.md here).
    .max_tool_name_length = 0,
    .tool_name_path = ".functionDeclarations[0].name",
    .ingress =
        {
            .match_model_call = &match_model_call,
            .routes_help = "POST /v1beta/models/{model}:generateContent and "
                           ":streamGenerateContent?alt=sse",
            .route_family = "/v1beta/models",
            .owns_path = &owns_path,
            .key_header = "x-goog-api-key",
            .key_help = "x-goog-api-key: KEY",
            // The REST API also takes the key as `?key=` (its older examples).
            .key_query_param = "key",
            .stream_keepalive = ": keep-alive\n\n",
        },
};

}  // namespace toolwire::dialects::gemini
