#include "dialects/common/error_body.h"

#include <string>

#include "toolwire/core/http_status.h"

namespace toolwire::dialects {

Error error_for_status(int http_status) {
  Error out;
  out.code = status_names_error(http_status) ? error_code_for_http_status(http_status)
                                             : ErrorCode::internal;
  return out;
}

Error with_body_text(Error out, std::string_view body, int http_status) {
  out.message.assign(body.substr(0, 4096));
  if (out.message.empty())
    out.message = "HTTP " + std::to_string(http_status) + " with an empty body";
  return out;
}

ErrorCode stream_error_code_for_type(std::string_view type) {
  if (type == "rate_limit_error") return ErrorCode::resource_exhausted;
  if (type == "invalid_request_error") return ErrorCode::invalid_argument;
  if (type == "authentication_error") return ErrorCode::unauthenticated;
  if (type == "permission_error") return ErrorCode::permission_denied;
  return ErrorCode::unavailable;
}

}  // namespace toolwire::dialects
