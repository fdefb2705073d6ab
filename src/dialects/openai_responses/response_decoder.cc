// OpenAI Responses `response` object → IR response.
#include "dialects/common/response_object.h"
#include "dialects/openai_responses/wire.h"

namespace toolwire::dialects::openai_responses {
namespace {

using json::Path;

Status decode_output(json::element e, const Path& path, ir::Response& resp, Warnings& warnings) {
  TW_ASSIGN(auto arr, json::as_array(e, path));
  ItemCtx ctx{warnings, nullptr};
  size_t i = 0;
  for (json::element item : arr) {
    Path ip(path, i++);
    TW_ASSIGN(auto obj, json::as_object(item, ip));
    json::element type_el;
    if (!json::get(obj, "type", type_el)) return json::invalid(Path(ip, "type"), "missing type");
    TW_ASSIGN(auto type, json::as_string(type_el, Path(ip, "type")));
    TW_TRY(decode_model_item<ir::Owning>(item, type, ip, resp.parts, ctx));
  }
  return Status::Ok();
}

}  // namespace

Result<ir::Response> decode_response(std::string_view body, Warnings& warnings) {
  ir::Response resp;
  TW_ASSIGN(json::object obj, open_response(body, kDialect, resp));
  const Path path;
  std::string_view status, reason;
  bool have_output = false;
  for (auto [key, value] : obj) {
    Path kp(path, key);
    if (value.is_null()) continue;
    if (key == "id" || key == "model") {
      TW_ASSIGN(auto s, json::as_string(value, kp));
      (key == "id" ? resp.id : resp.model) = std::string(s);
    } else if (key == "object") {
      TW_ASSIGN(auto s, json::as_string(value, kp));
      if (s != "response")
        return json::invalid(kp, "expected 'response', got '" + std::string(s) + "'");
    } else if (key == "created_at") {
      TW_ASSIGN(auto n, json::as_int64(value, kp));
      resp.created = n;
    } else if (key == "status") {
      TW_ASSIGN(auto s, json::as_string(value, kp));
      status = s;
    } else if (key == "incomplete_details") {
      TW_ASSIGN(auto details, json::as_object(value, kp));
      json::element r;
      if (json::get(details, "reason", r)) {
        TW_ASSIGN(auto s, json::as_string(r, Path(kp, "reason")));
        reason = s;
      }
    } else if (key == "output") {
      have_output = true;
      TW_TRY(decode_output(value, kp, resp, warnings));
    } else if (key == "usage") {
      TW_ASSIGN(auto u, decode_usage(value, kp));
      resp.usage = u;
    } else {
      // The request's echo (tools, instructions, store...), error, completed_at...
      resp.extra.push_back(ir::ExtraField{std::string(key), raw_json(value)});
    }
  }
  if (!have_output) return json::invalid(path, "missing required field 'output'");
  resp.finish = decode_status(status, reason, ir::has_tool_calls(resp.parts));
  return resp;
}

}  // namespace toolwire::dialects::openai_responses
