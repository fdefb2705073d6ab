// toolwire Error ↔ OpenAI error body {"error":{"message","type","param","code"}}
// (dialects/common/openai_error.h), and a stream `error` event's type.
#include "dialects/common/openai_error.h"
#include "dialects/openai_chat/wire.h"

namespace toolwire::dialects::openai_chat {

WireError encode_error(const Error& error) { return json::encode_openai_error(error); }

Error decode_error(int http_status, std::string_view body) {
  return json::decode_openai_error(http_status, body);
}

ErrorCode stream_error_code(std::string_view type) {
  // The types encode_openai_error writes; anything else (server_error, ...) reads
  // as the upstream failing.
  if (type == "rate_limit_error") return ErrorCode::resource_exhausted;
  if (type == "invalid_request_error") return ErrorCode::invalid_argument;
  if (type == "authentication_error") return ErrorCode::unauthenticated;
  if (type == "permission_error") return ErrorCode::permission_denied;
  return ErrorCode::unavailable;
}

}  // namespace toolwire::dialects::openai_chat
