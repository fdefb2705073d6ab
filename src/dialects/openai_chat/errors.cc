// toolwire Error ↔ OpenAI error body {"error":{"message","type","param","code"}}
// (dialects/common/openai_error.h), and a stream `error` event's type.
#include "dialects/common/error_body.h"
#include "dialects/common/openai_error.h"
#include "dialects/openai_chat/wire.h"

namespace toolwire::dialects::openai_chat {

WireError encode_error(const Error& error) { return json::encode_openai_error(error); }

Error decode_error(int http_status, std::string_view body) {
  return json::decode_openai_error(http_status, body);
}

// The types encode_openai_error writes.
ErrorCode stream_error_code(std::string_view type) { return stream_error_code_for_type(type); }

}  // namespace toolwire::dialects::openai_chat
