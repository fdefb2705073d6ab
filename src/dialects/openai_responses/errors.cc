// toolwire Error ↔ OpenAI error body {"error":{"message","type","param","code"}},
// the same shape as Chat Completions (dialects/common/openai_error.h); and a
// stream `error` event's code.
#include "dialects/common/openai_error.h"
#include "dialects/openai_responses/wire.h"

namespace toolwire::dialects::openai_responses {

WireError encode_error(const Error& error) {
  return json::encode_openai_error(
      error, error.path == "$.previous_response_id" ? "previous_response_not_found" : "");
}

Error decode_error(int http_status, std::string_view body) {
  return json::decode_openai_error(http_status, body);
}

ErrorCode stream_error_code(std::string_view code) {
  // An `error` event's code (or a failed response's error.code); anything
  // else (server_error, ...) reads as the upstream failing.
  if (code == "rate_limit_exceeded" || code == "rate_limit_error")
    return ErrorCode::resource_exhausted;
  if (code == "invalid_request_error" || code == "invalid_prompt")
    return ErrorCode::invalid_argument;
  if (code == "authentication_error" || code == "invalid_api_key")
    return ErrorCode::unauthenticated;
  if (code == "permission_error") return ErrorCode::permission_denied;
  return ErrorCode::unavailable;
}

}  // namespace toolwire::dialects::openai_responses
