// Parts shared by the request, response and stream encoders.
#include <algorithm>

#include "dialects/common/data_url.h"
#include "dialects/common/unknown_part.h"
#include "dialects/common/wrapped_arguments.h"
#include "dialects/gemini/wire.h"
#include "toolwire/core/json_valid.h"

namespace toolwire::dialects::gemini {

using json::Path;

namespace {

template <class S>
bool signature_only(const ir::BasicPart<S>& part) {
  auto* t = std::get_if<ir::BasicThinkingPart<S>>(&part);
  return t && !t->redacted && t->text.empty() && !t->signature.empty();
}

}  // namespace

// fileData wants a MIME type; a URL's extension names the common image ones.
std::string_view media_from_url(std::string_view url) {
  const size_t q = url.find_first_of("?#");
  if (q != std::string_view::npos) url = url.substr(0, q);
  auto ends = [&](std::string_view ext) {
    if (url.size() < ext.size()) return false;
    for (size_t i = 0; i < ext.size(); ++i) {
      char c = url[url.size() - ext.size() + i];
      if (c >= 'A' && c <= 'Z') c = static_cast<char>(c - 'A' + 'a');
      if (c != ext[i]) return false;
    }
    return true;
  };
  if (ends(".png")) return "image/png";
  if (ends(".jpg") || ends(".jpeg")) return "image/jpeg";
  if (ends(".gif")) return "image/gif";
  if (ends(".webp")) return "image/webp";
  if (ends(".heic")) return "image/heic";
  return {};
}

void write_args(std::string_view arguments, bool valid, bool raw_verified, const Path& path,
                JsonWriter& w, Warnings& warnings) {
  // Gemini `args` must be an object.
  write_wrapped_arguments(arguments, valid, raw_verified, /*object_only=*/true, path, w, warnings);
}

template <class S>
Status write_call_part(const ir::BasicToolCallPart<S>& call, std::string_view fallback_signature,
                       bool raw_verified, const Path& path, JsonWriter& w, Warnings& warnings,
                       const PlaceAt& at) {
  std::string scratch;
  TW_ASSIGN(std::string_view name, gemini_name_or_error(call.name, scratch, Path(path, "name")));
  w.begin_object();
  w.key("functionCall");
  w.begin_object();
  if (!call.id.empty()) w.field("id", call.id);
  w.field("name", name);
  w.key("args");
  write_args(call.arguments, call.arguments_valid, raw_verified, path, w, warnings);
  w.end_object();
  if (!call.signature.empty())
    w.field("thoughtSignature", call.signature);
  else if (!fallback_signature.empty())
    w.field("thoughtSignature", fallback_signature);
  at.write(w);
  w.end_object();
  return Status::Ok();
}

template <class S>
void write_image(const ir::BasicImagePart<S>& image, const Path& path, JsonWriter& w,
                 Warnings& warnings, const PlaceAt& at) {
  std::string_view media = image.media_type, data = image.data;
  w.begin_object();
  if (!data.empty() || (!image.url.empty() && split_data_url(image.url, media, data))) {
    w.key("inlineData");
    w.begin_object();
    w.field("mimeType", media);
    w.field("data", data);
    w.end_object();
  } else {
    w.key("fileData");
    w.begin_object();
    if (media.empty()) media = media_from_url(image.url);
    if (!media.empty()) w.field("mimeType", media);
    w.field("fileUri", image.url);
    w.end_object();
  }
  at.write(w);
  w.end_object();
  if (!image.detail.empty() && image.detail != "auto")
    warn(warnings, "dropped_image_detail", json::Path(path, "detail"),
         "Gemini images have no 'detail' setting");
}

template <class S, class Parts>
Result<size_t> write_model_parts(const Parts& parts, bool same, bool in_request, bool raw_verified,
                                 const Path& path, JsonWriter& w, Warnings& warnings,
                                 const SourcePlaces& places, size_t message,
                                 std::vector<PlacedMember>* placed) {
  size_t written = 0;
  // Gemini 3 refuses a history whose calls are unsigned; one from another
  // dialect gets the documented placeholder on its first call.
  bool signed_turn = same || !in_request;
  for (const auto& p : parts)
    if (auto* c = std::get_if<ir::BasicToolCallPart<S>>(&p); c && !c->signature.empty())
      signed_turn = true;
  for (size_t i = 0; i < parts.size(); ++i) {
    const ir::BasicPart<S>& part = parts[i];
    const json::SourcePlace place = places.at(message, i);
    const Path ppath(path, i, place);
    const PlaceAt at{placed, kPlacedPart, message, i};
    if (auto* t = std::get_if<ir::BasicTextPart<S>>(&part)) {
      const bool sig_next = i + 1 < parts.size() && signature_only(parts[i + 1]);
      if (t->text.empty() && !sig_next) continue;
      w.begin_object();
      w.field("text", t->text);
      if (sig_next) {
        w.field("thoughtSignature", std::get<ir::BasicThinkingPart<S>>(parts[i + 1]).signature);
        ++i;
      }
      at.write(w);
      w.end_object();
      ++written;
    } else if (auto* c = std::get_if<ir::BasicToolCallPart<S>>(&part)) {
      const std::string_view fallback = signed_turn ? std::string_view() : kSkipSignature;
      // Once per request (the first such turn), not once per turn.
      if (!signed_turn && std::none_of(warnings.begin(), warnings.end(), [](const Warning& x) {
            return x.code == "placeholder_thought_signature";
          }))
        warn(warnings, "placeholder_thought_signature", ppath,
             "Gemini 3 requires the thought signature of a model turn's first call; this "
             "history's calls have none, so the documented placeholder was sent (on the first "
             "call of every such turn)");
      signed_turn = true;
      TW_TRY(write_call_part(*c, fallback, raw_verified, ppath, w, warnings, at));
      ++written;
    } else if (auto* t = std::get_if<ir::BasicThinkingPart<S>>(&part)) {
      if (t->redacted) {
        warn(warnings, "dropped_redacted_thinking", ppath,
             "Gemini has no form for redacted thinking; it was dropped");
        continue;
      }
      if (!t->item_id.empty() || !t->encrypted_content.empty())
        warn(warnings, "dropped_reasoning_item", ppath,
             "Gemini thoughts have no item id or encrypted content; they were dropped");
      w.begin_object();
      w.field("text", t->text);
      if (!t->text.empty()) w.field("thought", true);
      if (!t->signature.empty()) w.field("thoughtSignature", t->signature);
      at.write(w);
      w.end_object();
      ++written;
    } else if (auto* u = std::get_if<ir::BasicUnknownPart<S>>(&part)) {
      if (write_unknown_part(*u, kDialect, "Gemini", ppath, w, warnings)) ++written;
    } else if (std::holds_alternative<ir::BasicImagePart<S>>(part)) {
      warn(warnings, "dropped_assistant_image", ppath, "model turns sent to Gemini hold no images");
    } else {
      warn(warnings, "dropped_misplaced_part", ppath, "this part cannot appear in model content");
    }
  }
  return written;
}

#define TOOLWIRE_INSTANTIATE(S)                                                                   \
  template Status write_call_part<S>(const ir::BasicToolCallPart<S>&, std::string_view, bool,     \
                                     const Path&, JsonWriter&, Warnings&, const PlaceAt&);        \
  template void write_image<S>(const ir::BasicImagePart<S>&, const Path&, JsonWriter&, Warnings&, \
                               const PlaceAt&);                                                   \
  template Result<size_t> write_model_parts<S>(                                                   \
      const S::Vector<ir::BasicPart<S>>&, bool, bool, bool, const Path&, JsonWriter&, Warnings&,  \
      const SourcePlaces&, size_t, std::vector<PlacedMember>*);
TOOLWIRE_INSTANTIATE(ir::Owning)
TOOLWIRE_INSTANTIATE(Borrowed)
#undef TOOLWIRE_INSTANTIATE

}  // namespace toolwire::dialects::gemini
