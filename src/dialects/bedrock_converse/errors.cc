// Errors in Bedrock's shape: the type in the `x-amzn-errortype` response
// header ("ValidationException"), the body {"message": "..."}; in a stream,
// an exception message whose `:exception-type` header names the type.
#include "dialects/bedrock_converse/wire.h"
#include "dialects/common/error_body.h"
#include "toolwire/core/http_status.h"

namespace toolwire::dialects::bedrock_converse {
namespace {

struct Mapping {
  std::string_view type;
  int status;
};

Mapping mapping_for(ErrorCode code) {
  switch (code) {
    case ErrorCode::invalid_argument:
    case ErrorCode::parse_error:
    case ErrorCode::failed_precondition:
    case ErrorCode::unimplemented:
      return {"ValidationException", 400};
    case ErrorCode::unauthenticated:
      return {"UnrecognizedClientException", 403};
    case ErrorCode::permission_denied:
      return {"AccessDeniedException", 403};
    case ErrorCode::not_found:
      return {"ResourceNotFoundException", 404};
    case ErrorCode::resource_exhausted:
      return {"ThrottlingException", 429};
    case ErrorCode::unavailable:
      return {"ServiceUnavailableException", 503};
    case ErrorCode::deadline_exceeded:
      return {"ModelTimeoutException", 408};
    case ErrorCode::cancelled:
    case ErrorCode::internal:
      return {"InternalServerException", 500};
  }
  return {"InternalServerException", 500};
}

// The type Bedrock documents for a status, when the status is given exactly.
std::string_view type_for_status(int status, std::string_view fallback) {
  switch (status) {
    case 400:
      return "ValidationException";
    case 403:
      return fallback == "UnrecognizedClientException" ? fallback : "AccessDeniedException";
    case 404:
      return "ResourceNotFoundException";
    case 408:
      return "ModelTimeoutException";
    case 424:
      return "ModelErrorException";
    case 429:
      return "ThrottlingException";
    case 503:
      return "ServiceUnavailableException";
    default:
      return status >= 500 ? std::string_view("InternalServerException") : fallback;
  }
}

// "com.amazon.coral.validate#ValidationException" or
// "ValidationException:http://internal.amazon.com/..." → "ValidationException".
std::string_view bare_type(std::string_view t) {
  if (const size_t hash = t.rfind('#'); hash != std::string_view::npos) t.remove_prefix(hash + 1);
  if (const size_t colon = t.find(':'); colon != std::string_view::npos) t = t.substr(0, colon);
  return t;
}

bool same_type(std::string_view a, std::string_view b) {  // first letter's case aside
  return a.size() == b.size() && !a.empty() && (a[0] | 0x20) == (b[0] | 0x20) &&
         a.substr(1) == b.substr(1);
}

ErrorCode code_for_type(std::string_view type) {
  type = bare_type(type);
  if (same_type(type, "ValidationException") || same_type(type, "ServiceQuotaExceededException"))
    return ErrorCode::invalid_argument;
  if (same_type(type, "UnrecognizedClientException") ||
      same_type(type, "InvalidSignatureException") || same_type(type, "ExpiredTokenException"))
    return ErrorCode::unauthenticated;
  if (same_type(type, "AccessDeniedException")) return ErrorCode::permission_denied;
  if (same_type(type, "ResourceNotFoundException")) return ErrorCode::not_found;
  if (same_type(type, "ThrottlingException") || same_type(type, "ModelNotReadyException"))
    return ErrorCode::resource_exhausted;
  if (same_type(type, "ModelTimeoutException")) return ErrorCode::deadline_exceeded;
  if (same_type(type, "ServiceUnavailableException") ||
      same_type(type, "ModelStreamErrorException"))
    return ErrorCode::unavailable;
  return ErrorCode::internal;
}

}  // namespace

WireError encode_error(const Error& error) {
  Mapping m = mapping_for(error.code);
  if (error.http_status > 0) m = {type_for_status(error.http_status, m.type), error.http_status};
  WireError out;
  out.http_status = m.status;
  JsonWriter w(out.body);
  w.begin_object();
  w.field("message", error.to_string());
  w.end_object();
  out.headers.emplace_back("x-amzn-errortype", std::string(m.type));
  return out;
}

ErrorCode stream_error_code(std::string_view type) {
  // Mid-stream, everything but the caller's own mistakes reads as the
  // upstream failing: worth a retry.
  const ErrorCode code = code_for_type(type);
  switch (code) {
    case ErrorCode::resource_exhausted:
    case ErrorCode::invalid_argument:
    case ErrorCode::unauthenticated:
    case ErrorCode::permission_denied:
      return code;
    default:
      return ErrorCode::unavailable;
  }
}

std::string_view stream_exception_type(std::string_view t) {
  auto plain = [](std::string_view s) {
    for (char c : s)
      if (!((c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z') || (c >= '0' && c <= '9')))
        return false;
    return true;
  };
  // Bedrock's own (a short identifier ending in "Exception") passes.
  if (t.ends_with("Exception") && t.size() <= 128 && plain(t)) return t;
  if (t.find("rate_limit") != std::string_view::npos) return "throttlingException";
  if (t.find("invalid") != std::string_view::npos) return "validationException";
  if (t.find("overloaded") != std::string_view::npos ||
      t.find("unavailable") != std::string_view::npos)
    return "serviceUnavailableException";
  return "internalServerException";
}

Error decode_error(int http_status, std::string_view body) {
  // Below 400 the status says nothing (an error read from a body alone): the
  // body's __type decides.
  const bool status_known = status_names_error(http_status);
  Error out = error_for_status(http_status);
  thread_local simdjson::dom::parser parser;
  json::element root, el;
  json::object obj;
  if (!parser.parse(body.data(), body.size(), true).get(root) && !root.get_object().get(obj)) {
    std::string_view type, message;
    if (json::get(obj, "__type", el) && el.get_string().get(type)) type = {};
    if ((json::get(obj, "message", el) || json::get(obj, "Message", el)) &&
        !el.get_string().get(message)) {
      out.message.assign(message);
      if (!status_known) out.code = code_for_type(type);
      return out;
    }
  }
  // Not Bedrock's shape: the text as is.
  return with_body_text(std::move(out), body, http_status);
}

}  // namespace toolwire::dialects::bedrock_converse
