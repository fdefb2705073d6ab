// Bedrock Converse response JSON → IR response. The response names no id or
// model (the model is the request's URL path): both stay empty.
#include "dialects/bedrock_converse/wire.h"
#include "dialects/common/response_object.h"

namespace toolwire::dialects::bedrock_converse {

using json::Path;

namespace {

Status decode_output(json::element value, const Path& path, ir::Response& resp) {
  TW_ASSIGN(json::object output, json::as_object(value, path));
  const Path mpath(path, "message");
  TW_ASSIGN(json::element msg_el, json::required(output, "message", path));
  TW_ASSIGN(json::object msg, json::as_object(msg_el, mpath));
  json::element el;
  if (json::get(msg, "role", el)) {
    const Path rpath(mpath, "role");
    TW_ASSIGN(std::string_view role, json::as_string(el, rpath));
    if (role != "assistant")
      return json::invalid(rpath, "expected 'assistant', got '" + std::string(role) + "'");
  }
  const Path cpath(mpath, "content");
  TW_ASSIGN(json::element content_el, json::required(msg, "content", mpath));
  TW_ASSIGN(json::array blocks, json::as_array(content_el, cpath));
  size_t i = 0;
  for (json::element block : blocks)
    TW_TRY(decode_assistant_block<ir::Owning>(block, Path(cpath, i++), resp.parts, nullptr));
  return Status::Ok();
}

}  // namespace

Result<ir::Response> decode_response(std::string_view body, Warnings& warnings) {
  ir::Response resp;
  TW_ASSIGN(json::object obj, open_response(body, kDialect, resp));
  const Path path;
  std::string_view stop_reason;
  bool has_output = false, has_message = false;
  for (auto field : obj) {
    const std::string_view key = field.key;
    const json::element value = field.value;
    const Path fpath(path, key);
    if (key == "output") {
      has_output = true;
      resp.parts.clear();  // a repeated key: the last one wins
      TW_TRY(decode_output(value, fpath, resp));
    } else if (key == "stopReason") {
      if (!value.is_null()) {
        TW_ASSIGN(stop_reason, json::as_string(value, fpath));
      }
    } else if (key == "usage") {
      resp.usage = {};
      if (!value.is_null()) TW_TRY(decode_usage(value, fpath, resp.usage));
    } else {
      has_message |= key == "message" || key == "Message";
      // metrics, additionalModelResponseFields, trace, performanceConfig:
      // kept for a Bedrock encoder (one extra per key: the last value wins).
      std::erase_if(resp.extra, [&](const ir::ExtraField& e) { return e.key == key; });
      resp.extra.push_back(ir::ExtraField{std::string(key), json::compact(value)});
    }
  }
  if (!has_output) {
    if (has_message) return decode_error(0, body);  // an error body: {"message": ...}
    return json::invalid(path, "missing required field 'output'");
  }
  resp.finish = decode_stop_reason(stop_reason, ir::has_tool_calls(resp.parts));
  (void)warnings;
  return resp;
}

}  // namespace toolwire::dialects::bedrock_converse
