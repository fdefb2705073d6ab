// toolwire Error ↔ OpenAI error body {"error":{"message","type","param","code"}},
// the same shape as Chat Completions (dialects/common/openai_error.h); and a
// stream `error` event's code.
#include "dialects/common/error_body.h"
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
  // An `error` event's code (or a failed response's error.code): Responses'
  // own codes, then the error types Chat and Anthropic share.
  if (code == "rate_limit_exceeded") return ErrorCode::resource_exhausted;
  if (code == "invalid_prompt") return ErrorCode::invalid_argument;
  if (code == "invalid_api_key") return ErrorCode::unauthenticated;
  return stream_error_code_for_type(code);
}

}  // namespace toolwire::dialects::openai_responses
