// Items and content parts → IR parts, shared by the request decoder (input
// items) and the response decoder (output items). Written once for both IR
// policies (IrText<S>).
#include "dialects/openai_responses/wire.h"
#include "toolwire/core/json_valid.h"

namespace toolwire::dialects::openai_responses {
namespace {

using json::Path;

template <class S, class Parts>
void push_unknown(json::element e, std::string_view type, Parts& out) {
  out.push_back(ir::BasicUnknownPart<S>{typename S::String(kDialect), IrText<S>::keep(type),
                                        IrText<S>::raw_json(e)});
}

// input_text / output_text / input_image; anything else kept raw.
template <class S, class Parts>
Status decode_part(json::element e, const Path& path, bool assistant, bool text_only, Parts& out,
                   Warnings& warnings) {
  using T = IrText<S>;
  TW_ASSIGN(auto obj, json::as_object(e, path));
  enum { kType, kText, kImageUrl, kDetail, kAnnotations, kLogprobs };
  static constexpr std::string_view kKeys[] = {"type",   "text",        "image_url",
                                               "detail", "annotations", "logprobs"};
  auto f = pick(obj, kKeys);
  Path tp(path, "type");
  if (!f.has[kType]) return json::invalid(tp, "missing content part type");
  TW_ASSIGN(auto type, json::as_string(f.e[kType], tp));
  if (type == "input_text" || type == "output_text") {
    Path xp(path, "text");
    if (!f.has[kText]) return json::invalid(xp, "missing text");
    TW_ASSIGN(auto text, json::as_string(f.e[kText], xp));
    if (f.has[kAnnotations] && f.e[kAnnotations].is_array() &&
        f.e[kAnnotations].get_array().value_unsafe().size() > 0)
      warn(warnings, "dropped_annotations", Path(path, "annotations"),
           "output_text annotations (citations) are not kept");
    if (f.has[kLogprobs] && f.e[kLogprobs].is_array() &&
        f.e[kLogprobs].get_array().value_unsafe().size() > 0) [[unlikely]]
      warn(warnings, "dropped_logprobs", Path(path, "logprobs"),
           "output_text logprobs are not kept");
    if (!text.empty()) out.push_back(ir::BasicTextPart<S>{T::keep(text)});
    return Status::Ok();
  }
  if (text_only)
    return json::invalid(tp, "expected an input_text part, got '" + std::string(type) + "'");
  if (type == "input_image" && !assistant && f.has[kImageUrl]) {
    Path ip(path, "image_url");
    TW_ASSIGN(auto url, json::as_string(f.e[kImageUrl], ip));
    std::string_view detail;
    if (f.has[kDetail]) {
      TW_ASSIGN(auto d, json::as_string(f.e[kDetail], Path(path, "detail")));
      detail = d;
    }
    out.push_back(image_from_url<S>(url, detail));
    return Status::Ok();
  }
  // input_file, input_image by file_id, refusal, input_audio...: kept raw.
  push_unknown<S>(e, type, out);
  return Status::Ok();
}

}  // namespace

template <class S, class Parts>
Status decode_message_content(json::element content, const Path& path, bool assistant,
                              bool text_only, Parts& out, Warnings& warnings) {
  if (content.is_string()) {
    std::string_view s = content.get_string().value_unsafe();
    if (!s.empty()) out.push_back(ir::BasicTextPart<S>{IrText<S>::keep(s)});
    return Status::Ok();
  }
  if (!content.is_array())
    return json::invalid(
        path, "expected string or array, got " + std::string(json::type_name(content.type())));
  // A named array: value_unsafe() returns into the temporary result.
  const json::array parts = content.get_array().value_unsafe();
  size_t i = 0;
  for (json::element part : parts)
    TW_TRY(decode_part<S>(part, Path(path, i++), assistant, text_only, out, warnings));
  return Status::Ok();
}

template <class S>
Status decode_call_output(json::element output, const Path& path, ir::BasicToolResultPart<S>& out,
                          Warnings& warnings) {
  if (output.is_string()) {
    std::string_view s = output.get_string().value_unsafe();
    if (!s.empty()) out.content.push_back(ir::BasicTextPart<S>{IrText<S>::keep(s)});
  } else {
    if (!output.is_array())
      return json::invalid(
          path, "expected string or array, got " + std::string(json::type_name(output.type())));
    const json::array parts = output.get_array().value_unsafe();
    size_t i = 0;
    for (json::element part : parts)
      TW_TRY(decode_part<S>(part, Path(path, i++), false, false, out.content, warnings));
  }
  // is_error convention: a leading "Error: " marks an error result (README).
  if (!out.content.empty()) {
    if (auto* t = std::get_if<ir::BasicTextPart<S>>(&out.content.front());
        t && std::string_view(t->text).starts_with(kErrorPrefix)) {
      out.is_error = true;
      IrText<S>::drop_prefix(t->text, kErrorPrefix.size());
      if (t->text.empty()) out.content.erase(out.content.begin());
    }
  }
  return Status::Ok();
}

namespace {

template <class S, class Parts>
Status decode_function_call(json::object obj, const Path& path, Parts& out, ItemCtx& ctx) {
  using T = IrText<S>;
  enum { kCallId, kName, kArguments };
  static constexpr std::string_view kKeys[] = {"call_id", "name", "arguments"};
  auto f = pick(obj, kKeys);
  ir::BasicToolCallPart<S> call;
  Path cp(path, "call_id");
  if (!f.has[kCallId]) return json::invalid(cp, "missing call_id");
  TW_ASSIGN(auto id, json::as_string(f.e[kCallId], cp));
  if (id.empty()) return json::invalid(cp, "empty call_id");
  call.id = T::keep(id);
  Path np(path, "name");
  if (!f.has[kName]) return json::invalid(np, "missing function name");
  TW_ASSIGN(auto name, json::as_string(f.e[kName], np));
  call.name = T::keep(name);
  if (f.has[kArguments]) {
    TW_ASSIGN(auto a, json::as_string(f.e[kArguments], Path(path, "arguments")));
    call.arguments = T::keep(a);
  }
  if (call.arguments.empty()) call.arguments = "{}";
  call.arguments_valid = is_valid_json(call.arguments);
  if (ctx.calls) ctx.calls->insert(id);
  out.push_back(std::move(call));
  return Status::Ok();
}

// One ThinkingPart per summary text (the first carries the encrypted
// content), or one empty part when the summary is empty.
template <class S, class Parts>
Status decode_reasoning(json::object obj, const Path& path, Parts& out, ItemCtx& ctx) {
  using T = IrText<S>;
  enum { kId, kSummary, kEncrypted, kContent };
  static constexpr std::string_view kKeys[] = {"id", "summary", "encrypted_content", "content"};
  auto f = pick(obj, kKeys);
  ir::BasicThinkingPart<S> first;
  if (f.has[kId]) {
    TW_ASSIGN(auto id, json::as_string(f.e[kId], Path(path, "id")));
    first.item_id = T::keep(id);
  }
  if (f.has[kEncrypted]) {
    TW_ASSIGN(auto enc, json::as_string(f.e[kEncrypted], Path(path, "encrypted_content")));
    first.encrypted_content = T::keep(enc);
  }
  if (f.has[kContent] &&
      !(f.e[kContent].is_array() && f.e[kContent].get_array().value_unsafe().size() == 0))
    warn(ctx.warnings, "dropped_reasoning_text", Path(path, "content"),
         "raw reasoning text is not kept; the summary is");
  size_t n = 0;
  if (f.has[kSummary]) {
    Path sp(path, "summary");
    TW_ASSIGN(auto arr, json::as_array(f.e[kSummary], sp));
    for (json::element s : arr) {
      Path ep(sp, n);
      TW_ASSIGN(auto so, json::as_object(s, ep));
      json::element text;
      if (!json::get(so, "text", text)) return json::invalid(Path(ep, "text"), "missing text");
      TW_ASSIGN(auto t, json::as_string(text, Path(ep, "text")));
      ir::BasicThinkingPart<S> part;
      if (n == 0) part = first;
      part.item_id = first.item_id;
      part.text = T::keep(t);
      out.push_back(std::move(part));
      ++n;
    }
  }
  if (n == 0) out.push_back(std::move(first));
  return Status::Ok();
}

}  // namespace

template <class S, class Parts>
Status decode_model_item(json::element item, std::string_view type, const Path& path, Parts& out,
                         ItemCtx& ctx) {
  TW_ASSIGN(auto obj, json::as_object(item, path));
  if (type == "message") {
    json::element content;
    if (!json::get(obj, "content", content))
      return json::invalid(Path(path, "content"), "missing content");
    return decode_message_content<S>(content, Path(path, "content"), true, false, out,
                                     ctx.warnings);
  }
  if (type == "function_call") return decode_function_call<S>(obj, path, out, ctx);
  if (type == "reasoning") return decode_reasoning<S>(obj, path, out, ctx);
  out.push_back(unknown_item<S>(item, type));  // web_search_call, computer_call, ...
  return Status::Ok();
}

// Both IR policies; parts lists of messages (requests, responses) and of tool results.
#define TOOLWIRE_INSTANTIATE(S)                                                                   \
  template Status decode_model_item<S>(json::element, std::string_view, const Path&,              \
                                       typename S::template Vector<ir::BasicPart<S>>&, ItemCtx&); \
  template Status decode_message_content<S>(json::element, const Path&, bool, bool,               \
                                            typename S::template Vector<ir::BasicPart<S>>&,       \
                                            Warnings&);                                           \
  template Status decode_call_output<S>(json::element, const Path&, ir::BasicToolResultPart<S>&,  \
                                        Warnings&);
TOOLWIRE_INSTANTIATE(ir::Owning)
TOOLWIRE_INSTANTIATE(Borrowed)
#undef TOOLWIRE_INSTANTIATE

}  // namespace toolwire::dialects::openai_responses
