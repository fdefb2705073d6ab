// Content blocks shared by the request, response and stream encoders.
#include "dialects/bedrock_converse/wire.h"
#include "dialects/common/call_id.h"
#include "dialects/common/data_url.h"
#include "dialects/common/unknown_part.h"
#include "dialects/common/wrapped_arguments.h"
#include "toolwire/core/json_valid.h"

namespace toolwire::dialects::bedrock_converse {

namespace {

// Bedrock's image format for a media type; "" when it has none.
std::string_view format_of(std::string_view media) {
  if (media == "image/png") return "png";
  if (media == "image/jpeg" || media == "image/jpg") return "jpeg";
  if (media == "image/gif") return "gif";
  if (media == "image/webp") return "webp";
  return {};
}

template <class S>
bool image_bytes(const ir::BasicImagePart<S>& image, std::string_view& format,
                 std::string_view& data) {
  std::string_view media = image.media_type;
  data = image.data;
  if (data.empty() && !split_data_url(image.url, media, data)) return false;
  format = format_of(media);
  return !format.empty();
}

}  // namespace

template <class S>
bool image_emits(const ir::BasicImagePart<S>& image) {
  std::string_view format, data;
  return image_bytes(image, format, data);
}

template <class S>
void encode_image(const ir::BasicImagePart<S>& image, const json::Path& path, JsonWriter& w,
                  Warnings& warnings) {
  std::string_view format, data;
  if (!image_bytes(image, format, data)) {
    if (image.data.empty() && !image.url.starts_with("data:"))
      warn(warnings, "dropped_image_url", path,
           "Bedrock takes images as bytes only (or S3 locations); an image given by URL was "
           "dropped");
    else
      warn(warnings, "dropped_image_format", path,
           "Bedrock takes png, jpeg, gif and webp images only; an image of type '" +
               std::string(image.media_type) + "' was dropped");
    return;
  }
  w.begin_object();
  w.key("image");
  w.begin_object();
  w.field("format", format);
  w.key("source");
  w.begin_object();
  w.field("bytes", data);
  w.end_object();
  w.end_object();
  w.end_object();
  if (!image.detail.empty() && image.detail != "auto")
    warn(warnings, "dropped_image_detail", json::Path(path, "detail"),
         "Bedrock images have no 'detail' setting");
}

template <class S>
void encode_tool_input(const ir::BasicToolCallPart<S>& call, bool raw_verified,
                       const json::Path& path, JsonWriter& w, Warnings& warnings) {
  // Bedrock takes any JSON document.
  write_wrapped_arguments(call.arguments, call.arguments_valid, raw_verified,
                          /*object_only=*/false, path, w, warnings);
}

template <class S>
bool assistant_part_emits(const ir::BasicPart<S>& part) {
  if (auto* t = std::get_if<ir::BasicTextPart<S>>(&part)) return !t->text.empty();
  if (std::holds_alternative<ir::BasicToolCallPart<S>>(part)) return true;
  if (std::holds_alternative<ir::BasicThinkingPart<S>>(part)) return true;
  if (auto* u = std::get_if<ir::BasicUnknownPart<S>>(&part)) return u->dialect == kDialect;
  return false;
}

template <class S>
void encode_assistant_part(const ir::BasicPart<S>& part, bool raw_verified, const json::Path& path,
                           JsonWriter& w, Warnings& warnings) {
  if (auto* t = std::get_if<ir::BasicTextPart<S>>(&part)) {
    if (t->text.empty()) return;  // Bedrock rejects blank text blocks
    w.begin_object();
    w.field("text", t->text);
    w.end_object();
  } else if (auto* c = std::get_if<ir::BasicToolCallPart<S>>(&part)) {
    w.begin_object();
    w.key("toolUse");
    w.begin_object();
    std::string scratch;
    w.field("toolUseId", call_id::to_anthropic(c->id, scratch));
    w.field("name", c->name);
    w.key("input");
    encode_tool_input(*c, raw_verified, path, w, warnings);
    w.end_object();
    w.end_object();
    if (!c->signature.empty())
      warn(warnings, "dropped_call_signature", path,
           "Bedrock tool calls carry no provider signature; it was dropped");
  } else if (auto* t = std::get_if<ir::BasicThinkingPart<S>>(&part)) {
    w.begin_object();
    w.key("reasoningContent");
    w.begin_object();
    if (t->redacted) {
      w.field("redactedContent", t->redacted_data);
    } else {
      w.key("reasoningText");
      w.begin_object();
      w.field("text", t->text);
      if (!t->signature.empty()) w.field("signature", t->signature);
      w.end_object();
    }
    w.end_object();
    w.end_object();
    if (!t->encrypted_content.empty() || !t->item_id.empty())
      warn(warnings, "dropped_reasoning_item", path,
           "Bedrock reasoning has no item id or encrypted content; they were dropped");
  } else if (auto* u = std::get_if<ir::BasicUnknownPart<S>>(&part)) {
    write_unknown_part(*u, kDialect, "Bedrock", path, w, warnings);
  } else if (std::holds_alternative<ir::BasicImagePart<S>>(part)) {
    warn(warnings, "dropped_assistant_image", path,
         "images are not sent back in Bedrock assistant messages");
  } else {
    warn(warnings, "dropped_misplaced_part", path, "this part cannot appear in assistant content");
  }
}

#define TOOLWIRE_INSTANTIATE(S)                                                                \
  template bool image_emits<S>(const ir::BasicImagePart<S>&);                                  \
  template void encode_image<S>(const ir::BasicImagePart<S>&, const json::Path&, JsonWriter&,  \
                                Warnings&);                                                    \
  template void encode_tool_input<S>(const ir::BasicToolCallPart<S>&, bool, const json::Path&, \
                                     JsonWriter&, Warnings&);                                  \
  template bool assistant_part_emits<S>(const ir::BasicPart<S>&);                              \
  template void encode_assistant_part<S>(const ir::BasicPart<S>&, bool, const json::Path&,     \
                                         JsonWriter&, Warnings&);
TOOLWIRE_INSTANTIATE(ir::Owning)
TOOLWIRE_INSTANTIATE(Borrowed)
#undef TOOLWIRE_INSTANTIATE

}  // namespace toolwire::dialects::bedrock_converse
