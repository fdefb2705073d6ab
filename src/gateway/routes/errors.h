// Errors in the caller's dialect: the HTTP status and the error JSON its SDK
// parses (OpenAI {"error":{message,type,param,code}}, Anthropic
// {"type":"error","error":{type,message}}). A request that failed before its
// route was known gets the dialect its path implies.
#pragma once

#include <string_view>

#include "gateway/http/exchange.h"
#include "toolwire/core/result.h"
#include "toolwire/dialects/codec.h"

namespace toolwire::gateway::routes {

// The ingress dialects. Each names its entry in dialects::all_dialects().
enum class Dialect { openai_chat, anthropic_messages, openai_responses, gemini, bedrock_converse };

std::string_view name_of(Dialect d);
// The dialect's codec; OpenAI Chat's while the dialect has none registered.
const dialects::Codec& codec_for(Dialect d);
// The dialect a path implies: /v1/messages... or an `anthropic-version`
// header → Anthropic; /v1/responses... → Responses; /v1beta/ or a
// `:generateContent`-style method → Gemini; /model/ → Bedrock; else OpenAI.
Dialect dialect_for(std::string_view path, std::string_view anthropic_version_header = {});

// Answers `error` in `d` (status from error.http_status or its code).
void send_error(http::Exchange& ex, Dialect d, const Error& error,
                const http::Headers& headers = {});
// Shortcut: an error with an exact status.
void send_error(http::Exchange& ex, Dialect d, int status, ErrorCode code, std::string message,
                std::string path = {}, const http::Headers& headers = {});

}  // namespace toolwire::gateway::routes
