// OpenAI Chat Completions response JSON (`chat.completion`) → IR response.
#include "codecs/openai_chat/wire.h"

namespace toolwire::codec::openai_chat {
namespace {

using json::Path;

Status decode_message(json::element e, const Path& path, ir::Response& resp) {
  auto msg = json::as_object(e, path);
  if (!msg) return msg.error();
  json::element reasoning, content, refusal, calls;
  if (json::get(*msg, "reasoning_content", reasoning)) {
    auto r = json::as_string(reasoning, Path(path, "reasoning_content"));
    if (!r) return r.error();
    if (!r->empty()) resp.parts.push_back(ir::ThinkingPart{std::string(*r), {}, false, {}});
  }
  if (json::get(*msg, "content", content)) {
    Path cp(path, "content");
    if (content.is_string()) {
      std::string_view s = content.get_string().value_unsafe();
      if (!s.empty()) resp.parts.push_back(ir::TextPart{std::string(s)});
    } else {
      auto arr = json::as_array(content, cp);
      if (!arr) return arr.error();
      size_t i = 0;
      for (json::element part : *arr) {  // some compatible servers return text parts
        Path pp(cp, i++);
        auto po = json::as_object(part, pp);
        if (!po) return po.error();
        json::element text;
        if (json::get(*po, "text", text)) {
          auto t = json::as_string(text, Path(pp, "text"));
          if (!t) return t.error();
          if (!t->empty()) resp.parts.push_back(ir::TextPart{std::string(*t)});
        } else {
          resp.parts.push_back(ir::UnknownPart{std::string(kDialect), {}, raw_json(part)});
        }
      }
    }
  }
  if (json::get(*msg, "refusal", refusal)) {
    auto r = json::as_string(refusal, Path(path, "refusal"));
    if (!r) return r.error();
    std::string raw;
    JsonWriter w(raw);
    w.begin_object();
    w.field("type", "refusal");
    w.field("refusal", *r);
    w.end_object();
    resp.parts.push_back(ir::UnknownPart{std::string(kDialect), "refusal", std::move(raw)});
  }
  if (json::get(*msg, "tool_calls", calls)) {
    Path tp(path, "tool_calls");
    auto arr = json::as_array(calls, tp);
    if (!arr) return arr.error();
    size_t i = 0;
    for (json::element c : *arr) {
      std::string_view id;
      auto call = decode_tool_call(c, Path(tp, i++), id);
      if (!call) return call.error();
      resp.parts.push_back(std::move(*call));
    }
  }
  return Status::Ok();
}

}  // namespace

Result<ir::Response> decode_response(std::string_view body, Warnings& warnings) {
  thread_local simdjson::dom::parser parser;
  auto root = json::parse(parser, body);
  if (!root) return root.error();
  Path path;
  auto obj = json::as_object(*root, path);
  if (!obj) return obj.error();

  ir::Response resp;
  resp.source_dialect = std::string(kDialect);
  std::string_view finish;
  bool have_choices = false;
  for (auto [key, value] : *obj) {
    Path kp(path, key);
    if (key == "choices") have_choices = true;
    if (value.is_null()) continue;
    if (key == "id" || key == "model") {
      auto s = json::as_string(value, kp);
      if (!s) return s.error();
      (key == "id" ? resp.id : resp.model) = std::string(*s);
    } else if (key == "object") {
      auto s = json::as_string(value, kp);
      if (!s) return s.error();
      if (*s != "chat.completion")
        return json::invalid(kp, "expected 'chat.completion', got '" + std::string(*s) + "'");
    } else if (key == "created") {
      auto n = json::as_int64(value, kp);
      if (!n) return n.error();
      resp.created = *n;
    } else if (key == "choices") {
      auto arr = json::as_array(value, kp);
      if (!arr) return arr.error();
      size_t n = arr->size();
      if (n > 1) warn(warnings, "dropped_extra_choices", kp.str(), "only choice 0 is translated");
      if (n == 0) continue;
      Path cp(kp, size_t{0});
      auto choice = json::as_object(arr->at(0).value_unsafe(), cp);
      if (!choice) return choice.error();
      json::element message, reason;
      if (!json::get(*choice, "message", message))
        return json::invalid(Path(cp, "message"), "missing message");
      TW_TRY(decode_message(message, Path(cp, "message"), resp));
      if (json::get(*choice, "finish_reason", reason)) {
        auto r = json::as_string(reason, Path(cp, "finish_reason"));
        if (!r) return r.error();
        finish = *r;
      }
    } else if (key == "usage") {
      auto u = decode_usage(value, kp);
      if (!u) return u.error();
      resp.usage = *u;
    } else {
      resp.extra.push_back(ir::ExtraField{std::string(key), raw_json(value)});
    }
  }
  if (!have_choices) return json::invalid(path, "missing required field 'choices'");
  resp.finish = decode_finish_reason(finish, ir::has_tool_calls(resp.parts));
  return resp;
}

}  // namespace toolwire::codec::openai_chat
