// The Bedrock Converse entry of the dialect list (src/dialects/dialects.cc): its
// codec, how toolwire calls it (egress) and how a gateway serves it (ingress).
#pragma once

#include "dialects/bedrock_converse/wire.h"
#include "dialects/common/entry_kit.h"

namespace toolwire::dialects::bedrock_converse {

TW_ENTRY_FUNCTIONS;

// ingress.cc
bool owns_path(std::string_view path);
std::string_view sigv4_access_key(std::string_view authorization);

inline constexpr Dialect kEntry{
    .name = kDialect,
    .alias = "bedrock",
    TW_ENTRY_CODECS,
    .path = "/model/{model}/converse",
    .stream_path = "/model/{model}/converse-stream",
    .stream_media_type = "application/vnd.amazon.eventstream",
    .auth = &sigv4_auth,
    .stream_error_code = &stream_error_code,
    .export_tool = &schema::bedrock_tool,
    .max_tool_name_length = kMaxToolNameLength,
    .tool_name_path = ".toolSpec.name",
    .ingress =
        {
            .match_model_call = &match_model_call,
            .routes_help = "POST /model/{modelId}/converse and /converse-stream",
            .route_family = "/model/{modelId}",
            .owns_path = &owns_path,
            // SigV4: the access key id is the gateway key. The signature is not
            // checked: that needs the secret, and gateway keys are kept only as
            // hashes.
            .key_header = "authorization",
            .read_key = &sigv4_access_key,
            .key_help = "a SigV4 signature whose access key id is KEY",
            // Binary event stream: an unknown event would reach the AWS SDK's
            // caller, so a quiet stream stays quiet.
        },
};

}  // namespace toolwire::dialects::bedrock_converse
