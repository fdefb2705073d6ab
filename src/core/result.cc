#include "toolwire/core/result.h"

#include "toolwire/core/enum_names.h"

namespace toolwire {

namespace {
constexpr EnumName<ErrorCode> kNames[] = {{ErrorCode::invalid_argument, "invalid_argument"},
                                          {ErrorCode::parse_error, "parse_error"},
                                          {ErrorCode::not_found, "not_found"},
                                          {ErrorCode::permission_denied, "permission_denied"},
                                          {ErrorCode::unauthenticated, "unauthenticated"},
                                          {ErrorCode::resource_exhausted, "resource_exhausted"},
                                          {ErrorCode::deadline_exceeded, "deadline_exceeded"},
                                          {ErrorCode::cancelled, "cancelled"},
                                          {ErrorCode::unavailable, "unavailable"},
                                          {ErrorCode::failed_precondition, "failed_precondition"},
                                          {ErrorCode::unimplemented, "unimplemented"},
                                          {ErrorCode::internal, "internal"}};
}  // namespace

std::string_view to_string(ErrorCode code) { return name_of(kNames, code, "unknown"); }

}  // namespace toolwire
