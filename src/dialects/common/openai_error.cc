#include "dialects/common/openai_error.h"

#include "dialects/common/json_in.h"
#include "toolwire/core/http_status.h"
#include "toolwire/core/json_writer.h"

namespace toolwire::dialects::json {
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

WireError encode_openai_error(const Error& error, std::string_view code) {
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
  else if (!code.empty())
    w.field("code", code);
  else
    w.field_null("code");
  w.end_object();
  w.end_object();
  return out;
}

Error decode_openai_error(int http_status, std::string_view body) {
  Error err;
  err.code = error_code_for_http_status(http_status);
  thread_local simdjson::dom::parser parser;
  auto root = parser.parse(body.data(), body.size(), true);
  simdjson::dom::element e;
  std::string_view message;
  if (!root.error() && root.value_unsafe().is_object() &&
      json::get(root.value_unsafe().get_object().value_unsafe(), "error", e)) {
    if (e.is_string()) {  // {"error":"..."} from some compatible servers
      message = e.get_string().value_unsafe();
    } else if (e.is_object()) {
      json::element m, p;
      auto obj = e.get_object().value_unsafe();
      if (json::get(obj, "message", m) && m.is_string()) message = m.get_string().value_unsafe();
      if (json::get(obj, "param", p) && p.is_string())
        err.path = std::string(p.get_string().value_unsafe());
    }
  }
  if (message.empty()) message = body.substr(0, 4096);  // not our shape: the text itself
  // Our own encode_error puts "path: " before the message; keep it once.
  if (!err.path.empty() && message.size() > err.path.size() + 2 &&
      message.substr(0, err.path.size()) == err.path && message.substr(err.path.size(), 2) == ": ")
    message.remove_prefix(err.path.size() + 2);
  err.message = std::string(message);
  if (err.message.empty()) err.message = "HTTP " + std::to_string(http_status);
  return err;
}

}  // namespace toolwire::dialects::json
