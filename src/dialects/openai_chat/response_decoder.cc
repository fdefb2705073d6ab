// OpenAI Chat Completions response JSON (`chat.completion`) → IR response.
#include "dialects/common/response_object.h"
#include "dialects/openai_chat/wire.h"

namespace toolwire::dialects::openai_chat {
namespace {

using json::Path;

Status decode_message(json::element e, const Path& path, ir::Response& resp) {
  TW_ASSIGN(auto msg, json::as_object(e, path));
  json::element reasoning, content, refusal, calls, other;
  // annotations (web search citations), audio, function_call (deprecated):
  // kept for OpenAI Chat, written back into the message (placed_member.h).
  for (std::string_view key : {"annotations", "audio", "function_call"})
    if (json::get(msg, key, other) && !other.is_null()) [[unlikely]]
      resp.extra.push_back(
          ir::ExtraField{Path(path, key).str(), placed_raw(kPlacedFixed, 0, 0, raw_json(other))});
  if (json::get(msg, "reasoning_content", reasoning)) {
    TW_ASSIGN(auto r, json::as_string(reasoning, Path(path, "reasoning_content")));
    if (!r.empty()) resp.parts.push_back(ir::ThinkingPart{std::string(r), {}, false, {}});
  }
  if (json::get(msg, "content", content)) {
    Path cp(path, "content");
    if (content.is_string()) {
      std::string_view s = content.get_string().value_unsafe();
      if (!s.empty()) resp.parts.push_back(ir::TextPart{std::string(s)});
    } else {
      TW_ASSIGN(auto arr, json::as_array(content, cp));
      size_t i = 0;
      for (json::element part : arr) {  // some compatible servers return text parts
        Path pp(cp, i++);
        TW_ASSIGN(auto po, json::as_object(part, pp));
        json::element text;
        if (json::get(po, "text", text)) {
          TW_ASSIGN(auto t, json::as_string(text, Path(pp, "text")));
          if (!t.empty()) resp.parts.push_back(ir::TextPart{std::string(t)});
        } else {
          resp.parts.push_back(ir::UnknownPart{std::string(kDialect), {}, raw_json(part)});
        }
      }
    }
  }
  if (json::get(msg, "refusal", refusal)) {
    TW_ASSIGN(auto r, json::as_string(refusal, Path(path, "refusal")));
    resp.parts.push_back(ir::UnknownPart{std::string(kDialect), "refusal", refusal_block(r)});
  }
  if (json::get(msg, "tool_calls", calls)) {
    Path tp(path, "tool_calls");
    TW_ASSIGN(auto arr, json::as_array(calls, tp));
    size_t i = 0;
    for (json::element c : arr) {
      std::string_view id;
      TW_ASSIGN(auto call, decode_tool_call(c, Path(tp, i++), id));
      resp.parts.push_back(std::move(call));
    }
  }
  return Status::Ok();
}

}  // namespace

Result<ir::Response> decode_response(std::string_view body, Warnings& warnings) {
  ir::Response resp;
  TW_ASSIGN(json::object obj, open_response(body, kDialect, resp));
  const Path path;
  std::string_view finish;
  bool have_choices = false;
  for (auto [key, value] : obj) {
    Path kp(path, key);
    if (key == "choices") have_choices = true;
    if (value.is_null()) continue;
    if (key == "id" || key == "model") {
      TW_ASSIGN(auto s, json::as_string(value, kp));
      (key == "id" ? resp.id : resp.model) = std::string(s);
    } else if (key == "object") {
      TW_ASSIGN(auto s, json::as_string(value, kp));
      if (s != "chat.completion")
        return json::invalid(kp, "expected 'chat.completion', got '" + std::string(s) + "'");
    } else if (key == "created") {
      TW_ASSIGN(auto n, json::as_int64(value, kp));
      resp.created = n;
    } else if (key == "choices") {
      TW_ASSIGN(auto arr, json::as_array(value, kp));
      size_t n = arr.size();
      if (n > 1) warn(warnings, "dropped_extra_choices", kp.str(), "only choice 0 is translated");
      if (n == 0) continue;
      Path cp(kp, size_t{0});
      TW_ASSIGN(auto choice, json::as_object(arr.at(0).value_unsafe(), cp));
      json::element message, reason;
      if (!json::get(choice, "message", message))
        return json::invalid(Path(cp, "message"), "missing message");
      TW_TRY(decode_message(message, Path(cp, "message"), resp));
      json::element logprobs;
      if (json::get(choice, "logprobs", logprobs) && !logprobs.is_null()) [[unlikely]]
        resp.extra.push_back(ir::ExtraField{Path(cp, "logprobs").str(),
                                            placed_raw(kPlacedFixed, 0, 0, raw_json(logprobs))});
      if (json::get(choice, "finish_reason", reason)) {
        TW_ASSIGN(auto r, json::as_string(reason, Path(cp, "finish_reason")));
        finish = r;
      }
    } else if (key == "usage") {
      TW_ASSIGN(auto u, decode_usage(value, kp));
      resp.usage = u;
      keep_usage_details(value, kp, resp.extra);
    } else {
      resp.extra.push_back(ir::ExtraField{std::string(key), raw_json(value)});
    }
  }
  if (!have_choices) return json::invalid(path, "missing required field 'choices'");
  resp.finish = decode_finish_reason(finish, ir::has_tool_calls(resp.parts));
  return resp;
}

}  // namespace toolwire::dialects::openai_chat
