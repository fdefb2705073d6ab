// IR response → OpenAI Chat Completions response JSON (`chat.completion`).
#include "dialects/common/openai_usage.h"
#include "dialects/common/request_object.h"
#include "dialects/common/response_object.h"
#include "dialects/openai_chat/wire.h"

namespace toolwire::dialects::openai_chat {
namespace {

// A refusal part is {"type":"refusal","refusal":"<text>"}; its text goes back to message.refusal.
void append_refusal(const ir::UnknownPart& part, std::string& out, Warnings& warnings) {
  thread_local simdjson::dom::parser parser;
  auto doc = parser.parse(part.raw_json.data(), part.raw_json.size(), true);
  json::element text;
  if (!doc.error() && doc.value_unsafe().is_object() &&
      json::get(doc.value_unsafe().get_object().value_unsafe(), "refusal", text) &&
      text.is_string()) {
    out += text.get_string().value_unsafe();
    return;
  }
  warn(warnings, "dropped_unknown_part", "$.content",
       "a refusal part without refusal text was dropped");
}

}  // namespace

Result<std::string> encode_response(const ir::Response& resp, Warnings& warnings) {
  const bool same = resp.source_dialect == kDialect;
  // Text parts concatenate (as a streaming client accumulates them); thinking
  // becomes reasoning_content.
  std::string text, reasoning;
  std::string refusal;
  size_t calls = 0, texts = 0;
  for (const auto& p : resp.parts) {
    if (auto* t = std::get_if<ir::TextPart>(&p)) {
      text += t->text;
      texts += !t->text.empty();
    } else if (auto* th = std::get_if<ir::ThinkingPart>(&p)) {
      if (th->redacted) {
        warn(warnings, "dropped_redacted_thinking", "$.content",
             "redacted thinking cannot be expressed in OpenAI Chat");
        continue;
      }
      if (!th->signature.empty())
        warn(warnings, "dropped_thinking_signature", "$.content",
             "reasoning_content carries no signature");
      if (!th->item_id.empty() || !th->encrypted_content.empty())
        warn(warnings, "dropped_reasoning_item", "$.content",
             "reasoning_content carries no Responses reasoning item id or encrypted content");
      reasoning += th->text;
    } else if (auto* c = std::get_if<ir::ToolCallPart>(&p)) {
      ++calls;
      if (!c->signature.empty())
        warn(warnings, "dropped_call_signature", "$.content",
             "OpenAI tool calls carry no provider signature; it was dropped");
    } else if (auto* u = std::get_if<ir::UnknownPart>(&p)) {
      if (u->dialect == kDialect && u->type == kUnknownToolCallType)
        ++calls;
      else if (u->dialect == kDialect && u->type == "refusal")
        append_refusal(*u, refusal, warnings);
      else
        warn(warnings, "dropped_unknown_part", "$.content",
             "dropped a '" + u->type + "' block from " + u->dialect);
    } else {
      warn(warnings, "dropped_part", "$.content", "a response cannot hold this part");
    }
  }
  if (texts > 1)
    warn(warnings, "joined_text_parts", "$.content",
         "several text blocks were joined into one content string");

  // annotations, audio, logprobs, usage details: placed_member.h.
  std::vector<PlacedMember> placed_members;
  if (same) placed_members = collect_placed(resp.extra);
  std::vector<PlacedMember>* placed = placed_members.empty() ? nullptr : &placed_members;
  return write_json_object(512 + text.size() + reasoning.size(), [&](JsonWriter& w) -> Status {
    w.field("id", resp.id);
    w.field("object", "chat.completion");
    w.field("created", resp.created);
    w.field("model", resp.model);
    w.key("choices");
    w.begin_array();
    w.begin_object();
    w.field("index", 0);
    w.key("message");
    w.begin_object();
    w.field("role", "assistant");
    w.key("content");
    if (!text.empty() || calls == 0)
      w.string(text);
    else
      w.null();
    if (refusal.empty())
      w.field_null("refusal");
    else
      w.field("refusal", refusal);
    if (!reasoning.empty()) w.field("reasoning_content", reasoning);
    if (calls) {
      w.key("tool_calls");
      w.begin_array();
      for (const auto& p : resp.parts) {
        if (auto* c = std::get_if<ir::ToolCallPart>(&p))
          write_tool_call(w, *c);
        else if (auto* u = std::get_if<ir::UnknownPart>(&p);
                 u && u->dialect == kDialect && u->type == kUnknownToolCallType)
          w.raw(u->raw_json);
      }
      w.end_array();
    }
    if (placed) write_placed_in(*placed, "$.choices[0].message", w);
    w.end_object();
    bool wrote_logprobs = false;
    if (placed)
      for (PlacedMember& m : *placed)
        if (!m.written && m.path == "$.choices[0].logprobs") {
          w.field_raw("logprobs", m.value);
          m.written = wrote_logprobs = true;
        }
    if (!wrote_logprobs) w.field_null("logprobs");
    w.field("finish_reason", encode_finish_reason(resp.finish, calls > 0));
    w.end_object();
    w.end_array();
    if (!resp.usage.empty()) write_usage(w, resp.usage, placed);
    warn_dropped_cache_write(resp.usage, "$.usage", warnings);
    write_response_extras(w, resp, same, "OpenAI Chat", warnings);
    if (placed) [[unlikely]]
      for (const PlacedMember& m : *placed)
        if (!m.written)  // e.g. usage details without the usage
          warn(warnings, "dropped_unknown_field", std::string(m.path),
               "field '" + std::string(m.name) + "' lost the object it came with");
    return Status::Ok();
  });
}

}  // namespace toolwire::dialects::openai_chat
