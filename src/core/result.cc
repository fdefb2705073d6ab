#include "toolwire/core/result.h"

namespace toolwire {

std::string_view to_string(ErrorCode code) {
  switch (code) {
    case ErrorCode::invalid_argument:
      return "invalid_argument";
    case ErrorCode::parse_error:
      return "parse_error";
    case ErrorCode::not_found:
      return "not_found";
    case ErrorCode::permission_denied:
      return "permission_denied";
    case ErrorCode::unauthenticated:
      return "unauthenticated";
    case ErrorCode::resource_exhausted:
      return "resource_exhausted";
    case ErrorCode::deadline_exceeded:
      return "deadline_exceeded";
    case ErrorCode::cancelled:
      return "cancelled";
    case ErrorCode::unavailable:
      return "unavailable";
    case ErrorCode::failed_precondition:
      return "failed_precondition";
    case ErrorCode::unimplemented:
      return "unimplemented";
    case ErrorCode::internal:
      return "internal";
  }
  return "unknown";
}

}  // namespace toolwire
