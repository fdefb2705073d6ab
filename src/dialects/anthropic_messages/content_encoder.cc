// Content blocks shared by the request, response and stream encoders.
#include "dialects/anthropic_messages/wire.h"
#include "dialects/common/call_id.h"
#include "toolwire/core/json_valid.h"

namespace toolwire::dialects::anthropic_messages {

namespace {

std::string_view trim(std::string_view s) {
  auto ws = [](char c) { return c == ' ' || c == '\t' || c == '\n' || c == '\r'; };
  while (!s.empty() && ws(s.front())) s.remove_prefix(1);
  while (!s.empty() && ws(s.back())) s.remove_suffix(1);
  return s;
}

// "data:<media>;base64,<data>" → media, data.
bool split_data_url(std::string_view url, std::string_view& media, std::string_view& data) {
  if (url.substr(0, 5) != "data:") return false;
  const size_t comma = url.find(',');
  if (comma == std::string_view::npos) return false;
  std::string_view head = url.substr(5, comma - 5);
  constexpr std::string_view kB64 = ";base64";
  if (head.size() < kB64.size() || head.substr(head.size() - kB64.size()) != kB64) return false;
  media = head.substr(0, head.size() - kB64.size());
  data = url.substr(comma + 1);
  return true;
}

}  // namespace

template <class S>
void encode_image(const ir::BasicImagePart<S>& image, const json::Path& path, JsonWriter& w,
                  Warnings& warnings) {
  std::string_view media = image.media_type, data = image.data;
  w.begin_object();
  w.field("type", "image");
  w.key("source");
  w.begin_object();
  if (!data.empty() || (!image.url.empty() && split_data_url(image.url, media, data))) {
    w.field("type", "base64");
    w.field("media_type", media);
    w.field("data", data);
  } else {
    w.field("type", "url");
    w.field("url", image.url);
  }
  w.end_object();
  w.end_object();
  if (!image.detail.empty() && image.detail != "auto")
    warn(warnings, "dropped_image_detail", path, "Anthropic images have no 'detail' setting");
}

template <class S>
void encode_tool_input(const ir::BasicToolCallPart<S>& call, bool raw_verified,
                       const json::Path& path, JsonWriter& w, Warnings& warnings) {
  std::string_view args = trim(call.arguments);
  if (call.arguments_valid && args.empty()) {
    w.raw("{}");
    return;
  }
  // Anthropic takes only an object; anything else keeps its text in a wrapper
  // the decoder recognises, so nothing the model produced is lost.
  if (call.arguments_valid && args.front() == '{' && (raw_verified || is_valid_json(args))) {
    w.raw(args);
    return;
  }
  w.begin_object();
  w.field(kInvalidArgumentsKey, call.arguments);
  w.end_object();
  warn(warnings, "invalid_arguments_wrapped", path,
       "tool call arguments are not a JSON object; sent as {\"" +
           std::string(kInvalidArgumentsKey) + "\": <text>}");
}

template <class S>
bool assistant_part_emits(const ir::BasicPart<S>& part, bool in_request) {
  if (auto* t = std::get_if<ir::BasicTextPart<S>>(&part)) return !t->text.empty();
  if (std::holds_alternative<ir::BasicToolCallPart<S>>(part)) return true;
  if (auto* t = std::get_if<ir::BasicThinkingPart<S>>(&part))
    return t->redacted || !in_request || !t->signature.empty();
  if (auto* u = std::get_if<ir::BasicUnknownPart<S>>(&part)) return u->dialect == kDialect;
  return false;
}

template <class S>
void encode_assistant_part(const ir::BasicPart<S>& part, bool in_request, bool raw_verified,
                           const json::Path& path, JsonWriter& w, Warnings& warnings) {
  if (auto* t = std::get_if<ir::BasicTextPart<S>>(&part)) {
    if (t->text.empty()) return;  // Anthropic rejects empty text blocks
    w.begin_object();
    w.field("type", "text");
    w.field("text", t->text);
    w.end_object();
  } else if (auto* c = std::get_if<ir::BasicToolCallPart<S>>(&part)) {
    if (!c->signature.empty())
      warn(warnings, "dropped_call_signature", path,
           "Anthropic tool_use blocks carry no provider signature; it was dropped");
    w.begin_object();
    w.field("type", "tool_use");
    std::string scratch;
    w.field("id", call_id::to_anthropic(c->id, scratch));
    w.field("name", c->name);
    w.key("input");
    encode_tool_input(*c, raw_verified, path, w, warnings);
    w.end_object();
  } else if (auto* t = std::get_if<ir::BasicThinkingPart<S>>(&part)) {
    if (!t->item_id.empty() || !t->encrypted_content.empty())
      warn(warnings, "dropped_reasoning_item", path,
           "an OpenAI Responses reasoning item's id and encrypted content have no Anthropic form");
    if (t->redacted) {
      w.begin_object();
      w.field("type", "redacted_thinking");
      w.field("data", t->redacted_data);
      w.end_object();
    } else if (in_request && t->signature.empty()) {
      warn(warnings, "dropped_unsigned_thinking", path,
           "Anthropic requires the signature of thinking sent back; reasoning without one was "
           "dropped");
    } else {
      w.begin_object();
      w.field("type", "thinking");
      w.field("thinking", t->text);
      w.field("signature", t->signature);
      w.end_object();
    }
  } else if (auto* u = std::get_if<ir::BasicUnknownPart<S>>(&part)) {
    if (u->dialect == kDialect) {
      w.raw(u->raw_json);
    } else {
      warn(warnings, "dropped_unknown_part", path,
           "'" + std::string(u->type) + "' content from " + std::string(u->dialect) +
               " has no Anthropic equivalent");
    }
  } else if (std::holds_alternative<ir::BasicImagePart<S>>(part)) {
    warn(warnings, "dropped_assistant_image", path,
         "Anthropic assistant messages cannot hold images");
  } else {
    warn(warnings, "dropped_misplaced_part", path, "this part cannot appear in assistant content");
  }
}

// Both IR policies: the owning IR everywhere, the borrowed one in translate_request.
#define TOOLWIRE_INSTANTIATE(S)                                                                  \
  template void encode_image<S>(const ir::BasicImagePart<S>&, const json::Path&, JsonWriter&,    \
                                Warnings&);                                                      \
  template void encode_tool_input<S>(const ir::BasicToolCallPart<S>&, bool, const json::Path&,   \
                                     JsonWriter&, Warnings&);                                    \
  template bool assistant_part_emits<S>(const ir::BasicPart<S>&, bool);                          \
  template void encode_assistant_part<S>(const ir::BasicPart<S>&, bool, bool, const json::Path&, \
                                         JsonWriter&, Warnings&);
TOOLWIRE_INSTANTIATE(ir::Owning)
TOOLWIRE_INSTANTIATE(Borrowed)
#undef TOOLWIRE_INSTANTIATE

}  // namespace toolwire::dialects::anthropic_messages
