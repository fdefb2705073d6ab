// error_body.h — reading an upstream's error the same way in every dialect:
// the HTTP status gives the code, unless it is below 400 (an error object in
// a 200 body, or in a stream) and says nothing, when the body's error type
// decides; a body not in the dialect's shape is the message as it is.
#pragma once

#include <string_view>

#include "toolwire/core/result.h"

namespace toolwire::dialects {

// True when the status says what the error is.
inline bool status_names_error(int http_status) { return http_status >= 400; }

// The error before its body is read: the status's code, else internal.
Error error_for_status(int http_status);

// `out` with the body's text as its message (a body not in the dialect's shape).
Error with_body_text(Error out, std::string_view body, int http_status);

// A stream error's type as OpenAI's and Anthropic's APIs both name them →
// ErrorCode: the caller's own mistakes keep theirs, anything else reads as
// the upstream failing (unavailable), worth a retry.
ErrorCode stream_error_code_for_type(std::string_view type);

}  // namespace toolwire::dialects
