// Errors in Anthropic's shape: {"type":"error","error":{"type","message"}}.
#include "dialects/anthropic_messages/wire.h"
#include "dialects/common/error_body.h"
#include "toolwire/core/http_status.h"

namespace toolwire::dialects::anthropic_messages {
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
      return {"invalid_request_error", 400};
    case ErrorCode::unauthenticated:
      return {"authentication_error", 401};
    case ErrorCode::permission_denied:
      return {"permission_error", 403};
    case ErrorCode::not_found:
      return {"not_found_error", 404};
    case ErrorCode::resource_exhausted:
      return {"rate_limit_error", 429};
    case ErrorCode::unavailable:
      return {"overloaded_error", 529};
    case ErrorCode::deadline_exceeded:
      return {"api_error", 504};
    case ErrorCode::cancelled:
      return {"api_error", 499};
    case ErrorCode::internal:
      return {"api_error", 500};
  }
  return {"api_error", 500};
}

ErrorCode code_for_type(std::string_view type) {
  if (type == "invalid_request_error") return ErrorCode::invalid_argument;
  if (type == "authentication_error") return ErrorCode::unauthenticated;
  if (type == "permission_error") return ErrorCode::permission_denied;
  if (type == "not_found_error") return ErrorCode::not_found;
  if (type == "request_too_large" || type == "rate_limit_error")
    return ErrorCode::resource_exhausted;
  if (type == "overloaded_error") return ErrorCode::unavailable;
  if (type == "timeout_error") return ErrorCode::deadline_exceeded;
  return ErrorCode::internal;
}

// The type Anthropic documents for a status, when the status is given exactly.
std::string_view type_for_status(int status, std::string_view fallback) {
  switch (status) {
    case 400:
    case 405:
    case 408:
    case 415:
    case 422:
    case 431:
      return "invalid_request_error";
    case 401:
      return "authentication_error";
    case 403:
      return "permission_error";
    case 404:
      return "not_found_error";
    case 413:
      return "request_too_large";
    case 429:
      return "rate_limit_error";
    case 504:
      return "timeout_error";
    case 503:  // a gateway's upstream overloaded or rate-limiting it
    case 529:
      return "overloaded_error";
    default:
      return status >= 500 ? std::string_view("api_error") : fallback;
  }
}

}  // namespace

WireError encode_error(const Error& error) {
  Mapping m = mapping_for(error.code);
  if (error.http_status > 0) m = {type_for_status(error.http_status, m.type), error.http_status};
  WireError out;
  out.http_status = m.status;
  JsonWriter w(out.body);
  w.begin_object();
  w.field("type", "error");
  w.key("error");
  w.begin_object();
  w.field("type", m.type);
  w.field("message", error.to_string());
  w.end_object();
  w.end_object();
  return out;
}

ErrorCode stream_error_code(std::string_view type) { return stream_error_code_for_type(type); }

Error decode_error(int http_status, std::string_view body) {
  // Below 400 the status says nothing (e.g. an error object in a 200 body or
  // a stream): the error type decides.
  const bool status_known = status_names_error(http_status);
  Error out = error_for_status(http_status);
  thread_local simdjson::dom::parser parser;
  auto parsed = parser.parse(body.data(), body.size(), true);
  json::element root, error, el;
  std::string_view type, message;
  json::object obj, err_obj;
  if (!parsed.get(root) && !root.get_object().get(obj) && json::get(obj, "error", error) &&
      !error.get_object().get(err_obj)) {
    std::string_view t;
    if (json::get(err_obj, "type", el) && !el.get_string().get(t)) type = t;
    if (json::get(err_obj, "message", el) && !el.get_string().get(message)) {
      out.message.assign(message);
      if (!status_known) out.code = code_for_type(type);
      return out;
    }
  }
  // Not Anthropic's shape: the text as is.
  return with_body_text(std::move(out), body, http_status);
}

}  // namespace toolwire::dialects::anthropic_messages
