// Errors in Gemini's (Google's RPC) shape: {"error":{"code","message","status"}}.
#include "dialects/common/error_body.h"
#include "dialects/gemini/wire.h"
#include "toolwire/core/http_status.h"

namespace toolwire::dialects::gemini {
namespace {

// The google.rpc status Google's APIs send with an HTTP status.
std::string_view status_for_http(int status) {
  switch (status) {
    case 400:
      return "INVALID_ARGUMENT";
    case 401:
      return "UNAUTHENTICATED";
    case 403:
      return "PERMISSION_DENIED";
    case 404:
      return "NOT_FOUND";
    case 409:
      return "ABORTED";
    case 413:
    case 429:
      return "RESOURCE_EXHAUSTED";
    case 499:
      return "CANCELLED";
    case 501:
      return "UNIMPLEMENTED";
    case 502:
    case 503:
      return "UNAVAILABLE";
    case 504:
      return "DEADLINE_EXCEEDED";
    default:
      return status >= 500 ? "INTERNAL" : "FAILED_PRECONDITION";
  }
}

ErrorCode code_for_status(std::string_view status) {
  if (status == "INVALID_ARGUMENT" || status == "OUT_OF_RANGE") return ErrorCode::invalid_argument;
  if (status == "FAILED_PRECONDITION") return ErrorCode::failed_precondition;
  if (status == "UNAUTHENTICATED") return ErrorCode::unauthenticated;
  if (status == "PERMISSION_DENIED") return ErrorCode::permission_denied;
  if (status == "NOT_FOUND") return ErrorCode::not_found;
  if (status == "RESOURCE_EXHAUSTED") return ErrorCode::resource_exhausted;
  if (status == "CANCELLED") return ErrorCode::cancelled;
  if (status == "DEADLINE_EXCEEDED") return ErrorCode::deadline_exceeded;
  if (status == "UNAVAILABLE") return ErrorCode::unavailable;
  if (status == "UNIMPLEMENTED") return ErrorCode::unimplemented;
  return ErrorCode::internal;
}

}  // namespace

WireError encode_error(const Error& error) {
  WireError out;
  out.http_status = error.http_status > 0 ? error.http_status : http_status_for(error.code);
  JsonWriter w(out.body);
  w.begin_object();
  w.key("error");
  w.begin_object();
  w.field("code", out.http_status);
  w.field("message", error.to_string());
  w.field("status", status_for_http(out.http_status));
  w.end_object();
  w.end_object();
  return out;
}

ErrorCode stream_error_code(std::string_view status) {
  // Mid-stream, everything but the caller's own mistakes reads as the
  // upstream failing (INTERNAL, UNAVAILABLE, ...): worth a retry.
  if (status == "RESOURCE_EXHAUSTED") return ErrorCode::resource_exhausted;
  if (status == "INVALID_ARGUMENT" || status == "FAILED_PRECONDITION")
    return ErrorCode::invalid_argument;
  if (status == "UNAUTHENTICATED") return ErrorCode::unauthenticated;
  if (status == "PERMISSION_DENIED") return ErrorCode::permission_denied;
  return ErrorCode::unavailable;
}

Error decode_error(int http_status, std::string_view body) {
  // Below 400 the status says nothing (an error object in a 200 body or a
  // stream): the error's status string decides.
  const bool status_known = status_names_error(http_status);
  Error out = error_for_status(http_status);
  thread_local simdjson::dom::parser parser;
  json::element root, err, el;
  if (!parser.parse(body.data(), body.size(), true).get(root)) {
    // streamGenerateContent without alt=sse wraps it in a list.
    if (root.is_array()) {
      const json::array entries = root.get_array().value_unsafe();
      for (json::element first : entries) {
        root = first;
        break;
      }
    }
    json::object obj, err_obj;
    if (!root.get_object().get(obj) && json::get(obj, "error", err) &&
        !err.get_object().get(err_obj)) {
      std::string_view status, message;
      if (json::get(err_obj, "status", el) && el.is_string())
        status = el.get_string().value_unsafe();
      if (json::get(err_obj, "code", el) && el.is_int64() && !status_known) {
        const int64_t code = el.get_int64().value_unsafe();
        if (code >= 400 && code < 600)
          out.code = error_code_for_http_status(static_cast<int>(code));
      }
      if (!status_known && !status.empty()) out.code = code_for_status(status);
      if (json::get(err_obj, "message", el) && el.is_string()) {
        message = el.get_string().value_unsafe();
        out.message.assign(message);
        return out;
      }
    }
  }
  // Not Gemini's shape: the text as is.
  return with_body_text(std::move(out), body, http_status);
}

}  // namespace toolwire::dialects::gemini
