// openai_error.h — OpenAI's error body {"error":{"message","type","param","code"}},
// written and read the same way by Chat Completions and Responses.
#pragma once

#include <string_view>

#include "toolwire/dialects/codec.h"

namespace toolwire::dialects::json {

// `error` as OpenAI's body. `code` fills "code" (null when empty; a 401
// always says invalid_api_key).
WireError encode_openai_error(const Error& error, std::string_view code = {});
// An OpenAI error body back into an Error (its message and param; a body of
// another shape gives its text verbatim).
Error decode_openai_error(int http_status, std::string_view body);

}  // namespace toolwire::dialects::json
