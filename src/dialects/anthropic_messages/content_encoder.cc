// Content blocks shared by the request, response and stream encoders.
#include "dialects/anthropic_messages/wire.h"
#include "dialects/common/call_id.h"
#include "dialects/common/data_url.h"
#include "dialects/common/unknown_part.h"
#include "dialects/common/wrapped_arguments.h"
#include "toolwire/core/json_valid.h"

namespace toolwire::dialects::anthropic_messages {

template <class S>
void encode_image(const ir::BasicImagePart<S>& image, const json::Path& path, JsonWriter& w,
                  Warnings& warnings, const PlaceAt& at) {
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
  at.write(w);
  w.end_object();
  if (!image.detail.empty() && image.detail != "auto")
    warn(warnings, "dropped_image_detail", json::Path(path, "detail"),
         "Anthropic images have no 'detail' setting");
}

template <class S>
void encode_tool_input(const ir::BasicToolCallPart<S>& call, bool raw_verified,
                       const json::Path& path, JsonWriter& w, Warnings& warnings) {
  // Anthropic takes only an object.
  write_wrapped_arguments(call.arguments, call.arguments_valid, raw_verified,
                          /*object_only=*/true, path, w, warnings);
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
                           const json::Path& path, JsonWriter& w, Warnings& warnings,
                           const PlaceAt& at) {
  if (auto* t = std::get_if<ir::BasicTextPart<S>>(&part)) {
    if (t->text.empty()) return;  // Anthropic rejects empty text blocks
    w.begin_object();
    w.field("type", "text");
    w.field("text", t->text);
    at.write(w);
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
    at.write(w);
    w.end_object();
  } else if (auto* t = std::get_if<ir::BasicThinkingPart<S>>(&part)) {
    if (!t->item_id.empty() || !t->encrypted_content.empty())
      warn(warnings, "dropped_reasoning_item", path,
           "an OpenAI Responses reasoning item's id and encrypted content have no Anthropic form");
    if (t->redacted) {
      w.begin_object();
      w.field("type", "redacted_thinking");
      w.field("data", t->redacted_data);
      at.write(w);
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
      at.write(w);
      w.end_object();
    }
  } else if (auto* u = std::get_if<ir::BasicUnknownPart<S>>(&part)) {
    write_unknown_part(*u, kDialect, "Anthropic", path, w, warnings);
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
                                Warnings&, const PlaceAt&);                                      \
  template void encode_tool_input<S>(const ir::BasicToolCallPart<S>&, bool, const json::Path&,   \
                                     JsonWriter&, Warnings&);                                    \
  template bool assistant_part_emits<S>(const ir::BasicPart<S>&, bool);                          \
  template void encode_assistant_part<S>(const ir::BasicPart<S>&, bool, bool, const json::Path&, \
                                         JsonWriter&, Warnings&, const PlaceAt&);
TOOLWIRE_INSTANTIATE(ir::Owning)
TOOLWIRE_INSTANTIATE(Borrowed)
#undef TOOLWIRE_INSTANTIATE

void write_input_usage(const ir::Usage& usage, JsonWriter& w) {
  w.field("input_tokens", cache_excluded_input(usage));
  if (usage.cache_write_tokens) w.field("cache_creation_input_tokens", *usage.cache_write_tokens);
  if (usage.cache_read_tokens) w.field("cache_read_input_tokens", *usage.cache_read_tokens);
}

}  // namespace toolwire::dialects::anthropic_messages
