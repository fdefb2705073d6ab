// toolwire Error ↔ OpenAI error body {"error":{"message","type","param","code"}},
// the same shape as Chat Completions; and a stream `error` event's code.
#include "codecs/openai_responses/wire.h"
#include "toolwire/core/http_status.h"

namespace toolwire::codec::openai_responses {
namespace {

std::string_view type_for_status(int status) {
  switch (status) {
    case 400:
      return "invalid_request_error";
    case 401:
      return "authentication_error";
    case 403:
      return "permission_error";
    case 404:
      return "not_found_error";
    case 429:
      return "rate_limit_error";
    case 503:
      return "service_unavailable";
    default:
      return status >= 500 ? "server_error" : "invalid_request_error";
  }
}

}  // namespace

WireError encode_error(const Error& error) {
  WireError out;
  out.http_status = error.http_status > 0 ? error.http_status : http_status_for(error.code);
  JsonWriter w(out.body);
  w.begin_object();
  w.key("error");
  w.begin_object();
  w.field("message", error.to_string());
  w.field("type", type_for_status(out.http_status));
  if (error.path.empty())
    w.field_null("param");
  else
    w.field("param", error.path);
  if (out.http_status == 401)
    w.field("code", "invalid_api_key");
  else if (error.path == "$.previous_response_id")
    w.field("code", "previous_response_not_found");
  else
    w.field_null("code");
  w.end_object();
  w.end_object();
  return out;
}

ErrorCode stream_error_code(std::string_view code) {
  // An `error` event's code (or a failed response's error.code); anything
  // else (server_error, ...) reads as the upstream failing.
  if (code == "rate_limit_exceeded" || code == "rate_limit_error")
    return ErrorCode::resource_exhausted;
  if (code == "invalid_request_error" || code == "invalid_prompt")
    return ErrorCode::invalid_argument;
  if (code == "authentication_error" || code == "invalid_api_key")
    return ErrorCode::unauthenticated;
  if (code == "permission_error") return ErrorCode::permission_denied;
  return ErrorCode::unavailable;
}

Error decode_error(int http_status, std::string_view body) {
  Error err;
  err.code = error_code_for_http_status(http_status);
  thread_local simdjson::dom::parser parser;
  auto root = parser.parse(body.data(), body.size(), true);
  json::element e;
  std::string_view message;
  if (!root.error() && root.value_unsafe().is_object() &&
      json::get(root.value_unsafe().get_object().value_unsafe(), "error", e)) {
    if (e.is_string()) {
      message = e.get_string().value_unsafe();
    } else if (e.is_object()) {
      json::element m, p;
      auto obj = e.get_object().value_unsafe();
      if (json::get(obj, "message", m) && m.is_string()) message = m.get_string().value_unsafe();
      if (json::get(obj, "param", p) && p.is_string())
        err.path = std::string(p.get_string().value_unsafe());
    }
  }
  if (message.empty()) message = body.substr(0, 4096);  // not this shape: the text itself
  // Our own encode_error puts "path: " before the message; keep it once.
  if (!err.path.empty() && message.size() > err.path.size() + 2 &&
      message.substr(0, err.path.size()) == err.path && message.substr(err.path.size(), 2) == ": ")
    message.remove_prefix(err.path.size() + 2);
  err.message = std::string(message);
  if (err.message.empty()) err.message = "HTTP " + std::to_string(http_status);
  return err;
}

}  // namespace toolwire::codec::openai_responses
