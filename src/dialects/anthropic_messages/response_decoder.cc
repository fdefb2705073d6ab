// Anthropic Messages response JSON → IR response.
#include "dialects/anthropic_messages/wire.h"
#include "dialects/common/response_object.h"

namespace toolwire::dialects::anthropic_messages {

using json::Path;

Result<ir::Response> decode_response(std::string_view body, Warnings& warnings) {
  ir::Response resp;
  TW_ASSIGN(json::object obj, open_response(body, kDialect, resp));
  const Path path;
  std::string_view stop_reason;
  bool has_content = false;
  for (auto field : obj) {
    const std::string_view key = field.key;
    const json::element value = field.value;
    const Path fpath(path, key);
    if (key == "id") {
      TW_ASSIGN(std::string_view id, json::as_string(value, fpath));
      resp.id.assign(id);
    } else if (key == "model") {
      TW_ASSIGN(std::string_view model, json::as_string(value, fpath));
      resp.model.assign(model);
    } else if (key == "type") {
      TW_ASSIGN(std::string_view type, json::as_string(value, fpath));
      if (type == "error") return decode_error(0, body);  // code from the error type
      if (type != "message")
        return json::invalid(fpath, "expected 'message', got '" + std::string(type) + "'");
    } else if (key == "role") {
      TW_ASSIGN(std::string_view role, json::as_string(value, fpath));
      if (role != "assistant")
        return json::invalid(fpath, "expected 'assistant', got '" + std::string(role) + "'");
    } else if (key == "content") {
      has_content = true;
      TW_ASSIGN(json::array blocks, json::as_array(value, fpath));
      size_t i = 0;
      for (json::element block : blocks) {
        const Path bpath(fpath, i++);
        TW_TRY(decode_assistant_block<ir::Owning>(block, bpath, resp.parts, nullptr,
                                                  {&resp.extra, 0}));
      }
    } else if (key == "stop_reason") {
      if (!value.is_null()) {
        TW_ASSIGN(stop_reason, json::as_string(value, fpath));
      }
    } else if (key == "stop_sequence") {
      // Which stop sequence matched: the IR has no field for it, so it rides
      // along as an extra (written back by a same-dialect encoder). A key
      // given twice keeps its last value, as for every other field: one
      // extra at most, or re-encoding would move the others.
      std::erase_if(resp.extra, [](const ir::ExtraField& e) { return e.key == "stop_sequence"; });
      if (!value.is_null()) {
        if (!value.is_string()) return json::as_string(value, fpath).error();
        resp.extra.push_back(ir::ExtraField{"stop_sequence", json::compact(value)});
      }
    } else if (key == "usage") {
      if (!value.is_null()) {
        TW_TRY(decode_usage(value, fpath, resp.usage));
        // cache_creation, server_tool_use, service_tier...: kept for Anthropic.
        // A named object: iterating value_unsafe()'s result would iterate
        // into the temporary (GCC: -Wdangling-pointer).
        const json::object usage = value.get_object().value_unsafe();
        for (auto [member, member_value] : usage) {
          if (member == "input_tokens" || member == "output_tokens" ||
              member == "cache_read_input_tokens" || member == "cache_creation_input_tokens")
            continue;
          resp.extra.push_back(
              ir::ExtraField{Path(fpath, member).str(),
                             placed_raw(kPlacedFixed, 0, 0, json::compact(member_value))});
        }
      }
    } else {
      resp.extra.push_back(ir::ExtraField{std::string(key), json::compact(value)});
    }
  }
  if (!has_content) return json::invalid(path, "missing required field 'content'");
  resp.finish = decode_stop_reason(stop_reason, ir::has_tool_calls(resp.parts));
  (void)warnings;
  return resp;
}

}  // namespace toolwire::dialects::anthropic_messages
