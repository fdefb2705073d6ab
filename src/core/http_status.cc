#include "toolwire/core/http_status.h"

namespace toolwire {

int http_status_for(ErrorCode code) {
  switch (code) {
    case ErrorCode::invalid_argument:
    case ErrorCode::parse_error:
    case ErrorCode::failed_precondition:
      return 400;
    case ErrorCode::unauthenticated:
      return 401;
    case ErrorCode::permission_denied:
      return 403;
    case ErrorCode::not_found:
      return 404;
    case ErrorCode::resource_exhausted:
      return 429;
    case ErrorCode::cancelled:
      return 499;
    case ErrorCode::unimplemented:
      return 501;
    case ErrorCode::unavailable:
      return 503;
    case ErrorCode::deadline_exceeded:
      return 504;
    case ErrorCode::internal:
      return 500;
  }
  return 500;
}

ErrorCode error_code_for_http_status(int status) {
  switch (status) {
    case 400:
    case 422:
      return ErrorCode::invalid_argument;
    case 401:
      return ErrorCode::unauthenticated;
    case 403:
      return ErrorCode::permission_denied;
    case 404:
      return ErrorCode::not_found;
    case 408:
    case 504:
      return ErrorCode::deadline_exceeded;
    case 409:
      return ErrorCode::failed_precondition;
    case 413:
    case 429:
      return ErrorCode::resource_exhausted;
    case 501:
      return ErrorCode::unimplemented;
    case 502:
    case 503:
    case 529:
      return ErrorCode::unavailable;
    default:
      return status >= 500 ? ErrorCode::internal : ErrorCode::invalid_argument;
  }
}

}  // namespace toolwire
