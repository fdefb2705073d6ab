// The OpenAI Responses entry of the dialect list (src/dialects/dialects.cc): its
// codec, how toolwire calls it (egress) and how a gateway serves it (ingress).
#pragma once

#include "dialects/common/entry_kit.h"
#include "dialects/openai_responses/wire.h"

namespace toolwire::dialects::openai_responses {

TW_ENTRY_FUNCTIONS;

// ingress.cc
bool owns_path(std::string_view path);
WireError store_error(std::string_view message, std::string_view code, std::string_view param);
// item_references.cc
std::optional<std::string> reference_id(const ir::Part& part);
std::vector<StoredItem> answer_items(const ir::Response& answer);
std::string reference_param(std::string_view body, size_t n);

inline constexpr Dialect kEntry{
    .name = kDialect,
    .alias = "responses",
    TW_ENTRY_CODECS,
    .path = "/responses",
    .auth = &header_auth,
    .stream_error_code = &stream_error_code,
    .export_tool = &schema::openai_responses_tool,
    .max_tool_name_length = kMaxToolNameLength,
    .ingress =
        {
            .match_model_call = &match_model_call,
            .routes_help = "POST /v1/responses",
            .owns_path = &owns_path,
            .key_header = "authorization",
            .read_key = &bearer_key,
            .key_help = "Authorization: Bearer KEY",
            .stream_keepalive = ": keep-alive\n\n",
            .response_store = &store_error,
            .item_references = {.id_of = &reference_id,
                                .items_of = &answer_items,
                                .param_of = &reference_param},
        },
};

}  // namespace toolwire::dialects::openai_responses
