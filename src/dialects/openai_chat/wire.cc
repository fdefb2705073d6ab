// Helpers shared by the OpenAI Chat request, response and stream codecs.
#include "dialects/openai_chat/wire.h"
#include "dialects/common/data_url.h"
#include "dialects/common/finish_reason.h"
#include "dialects/common/openai_usage.h"
#include "toolwire/core/json_valid.h"

#include <algorithm>
#include <charconv>
#include <cstdint>

namespace toolwire::dialects::openai_chat {

using ir::FinishReason;

constexpr RawReasons kFinishReasons[] = {{ReasonKind::stop, {"stop", ""}},
                                         {ReasonKind::length, {"length"}},
                                         {ReasonKind::tool_calls, {"tool_calls", "function_call"}},
                                         {ReasonKind::content_filter, {"content_filter"}}};

ir::FinishReason decode_finish_reason(std::string_view raw, bool has_calls) {
  return decode_reason(kFinishReasons, raw, has_calls);
}

std::string_view encode_finish_reason(const ir::FinishReason& reason, bool has_calls) {
  if (has_calls) return "tool_calls";
  static constexpr ReasonNames kNames{.stop = "stop",
                                      .length = "length",
                                      .tool_calls = "tool_calls",
                                      .content_filter = "content_filter"};
  if (std::string_view name = kNames.of(reason.kind); !name.empty()) return name;
  // A raw value that means the same kind here (an OpenAI value we do not
  // know decodes to `other` too) passes through; anything else is "stop".
  if (!reason.raw.empty() && decode_finish_reason(reason.raw, false).kind == reason.kind)
    return reason.raw;
  return "stop";
}

template <class S>
void write_image_part(JsonWriter& w, const ir::BasicImagePart<S>& image) {
  w.begin_object();
  w.field("type", "image_url");
  w.key("image_url");
  w.begin_object();
  if (!image.data.empty() || image.url.empty()) {
    w.field("url", make_data_url(image.media_type, image.data));
  } else {
    w.field("url", image.url);
  }
  if (!image.detail.empty()) w.field("detail", image.detail);
  w.end_object();
  w.end_object();
}

Result<ir::Usage> decode_usage(json::element e, const json::Path& path) {
  return decode_openai_usage(e, path,
                             {"prompt_tokens", "completion_tokens", "prompt_tokens_details"});
}

void keep_usage_details(json::element usage, const json::Path& path,
                        std::vector<ir::ExtraField>& extra) {
  if (!usage.is_object()) return;
  const json::object usage_obj = usage.get_object().value_unsafe();  // named, as below
  for (auto [member, detail] : usage_obj) {
    if (detail.is_null()) continue;
    const json::Path mp(path, member);
    if (member == "completion_tokens_details") {
      extra.push_back(ir::ExtraField{mp.str(), placed_raw(kPlacedFixed, 0, 0, raw_json(detail))});
    } else if (member == "prompt_tokens_details" && detail.is_object()) {
      // A named object: iterating value_unsafe()'s result would iterate
      // into the temporary (GCC: -Wdangling-pointer).
      const json::object details = detail.get_object().value_unsafe();
      for (auto [name, count] : details)
        if (name != "cached_tokens")
          extra.push_back(ir::ExtraField{json::Path(mp, name).str(),
                                         placed_raw(kPlacedFixed, 0, 0, raw_json(count))});
    }
  }
}

void write_usage(JsonWriter& w, const ir::Usage& usage, std::vector<PlacedMember>* placed) {
  w.key("usage");
  w.begin_object();
  int64_t in = usage.input_tokens.value_or(0), out = usage.output_tokens.value_or(0);
  w.field("prompt_tokens", in);
  w.field("completion_tokens", out);
  w.field("total_tokens", total_tokens(in, out));
  constexpr std::string_view kPromptDetails = "$.usage.prompt_tokens_details";
  const bool prompt_details =
      placed && std::any_of(placed->begin(), placed->end(), [&](const PlacedMember& m) {
        return m.path.starts_with(kPromptDetails) && m.path.size() > kPromptDetails.size() &&
               m.path[kPromptDetails.size()] == '.';
      });
  if (usage.cache_read_tokens || prompt_details) {
    w.key("prompt_tokens_details");
    w.begin_object();
    if (usage.cache_read_tokens) w.field("cached_tokens", *usage.cache_read_tokens);
    if (placed) write_placed_in(*placed, kPromptDetails, w);
    w.end_object();
  }
  if (placed) write_placed_in(*placed, "$.usage", w);
  w.end_object();
}

template <class S>
Result<ir::BasicPart<S>> decode_tool_call(json::element entry, const json::Path& path,
                                          std::string_view& id) {
  using T = IrText<S>;
  TW_ASSIGN(auto obj, json::as_object(entry, path));
  enum { kId, kType, kFunction };
  static constexpr std::string_view kKeys[] = {"id", "type", "function"};
  auto f = pick(obj, kKeys);
  id = {};
  if (f.has[kId] && f.e[kId].is_string()) id = f.e[kId].get_string().value_unsafe();
  if (f.has[kType] &&
      !(f.e[kType].is_string() && f.e[kType].get_string().value_unsafe() == "function"))
    return ir::BasicPart<S>(ir::BasicUnknownPart<S>{typename S::String(kDialect),
                                                    typename S::String(kUnknownToolCallType),
                                                    T::raw_json(entry)});
  ir::BasicToolCallPart<S> part;
  json::Path ipath(path, "id");
  if (!f.has[kId]) return json::invalid(ipath, "missing tool call id");
  if (!f.e[kId].is_string()) return json::as_string(f.e[kId], ipath).error();
  if (id.empty()) return json::invalid(ipath, "empty tool call id");
  part.id = T::keep(id);
  json::Path fpath(path, "function");
  if (!f.has[kFunction]) return json::invalid(fpath, "missing 'function'");
  TW_ASSIGN(auto fobj, json::as_object(f.e[kFunction], fpath));
  enum { kFnName, kFnArguments };
  static constexpr std::string_view kFnKeys[] = {"name", "arguments"};
  auto fn = pick(fobj, kFnKeys);
  json::Path npath(fpath, "name");
  if (!fn.has[kFnName]) return json::invalid(npath, "missing function name");
  TW_ASSIGN(auto name, json::as_string(fn.e[kFnName], npath));
  part.name = T::keep(name);
  if (fn.has[kFnArguments]) {
    TW_ASSIGN(auto a, json::as_string(fn.e[kFnArguments], json::Path(fpath, "arguments")));
    part.arguments = T::keep(a);
  }
  if (part.arguments.empty()) part.arguments = "{}";
  part.arguments_valid = is_valid_json(part.arguments);
  return ir::BasicPart<S>(std::move(part));
}

template <class S>
void write_tool_call(JsonWriter& w, const ir::BasicToolCallPart<S>& call) {
  w.begin_object();
  w.field("id", call.id);
  w.field("type", "function");
  w.key("function");
  w.begin_object();
  w.field("name", call.name);
  w.field("arguments", call.arguments);
  w.end_object();
  w.end_object();
}

// Both IR policies: the owning IR everywhere, the borrowed one in translate_request.
#define TOOLWIRE_INSTANTIATE(S)                                                           \
  template void write_image_part<S>(JsonWriter&, const ir::BasicImagePart<S>&);           \
  template Result<ir::BasicPart<S>> decode_tool_call<S>(json::element, const json::Path&, \
                                                        std::string_view&);               \
  template void write_tool_call<S>(JsonWriter&, const ir::BasicToolCallPart<S>&);
TOOLWIRE_INSTANTIATE(ir::Owning)
TOOLWIRE_INSTANTIATE(Borrowed)
#undef TOOLWIRE_INSTANTIATE

std::string refusal_block(std::string_view refusal) {
  std::string raw;
  JsonWriter w(raw);
  w.begin_object();
  w.field("type", "refusal");
  w.field("refusal", refusal);
  w.end_object();
  return raw;
}

}  // namespace toolwire::dialects::openai_chat
