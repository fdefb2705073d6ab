// Helpers shared by the OpenAI Chat request, response and stream codecs.
#include "dialects/openai_chat/wire.h"
#include "toolwire/core/json_valid.h"

#include <charconv>
#include <cstdint>

namespace toolwire::dialects::openai_chat {

using ir::FinishReason;

ir::FinishReason decode_finish_reason(std::string_view raw, bool has_calls) {
  FinishReason r;
  r.raw = std::string(raw);
  if (raw == "stop" || raw.empty())
    r.kind = FinishReason::Kind::stop;
  else if (raw == "length")
    r.kind = FinishReason::Kind::length;
  else if (raw == "tool_calls" || raw == "function_call")
    r.kind = FinishReason::Kind::tool_calls;
  else if (raw == "content_filter")
    r.kind = FinishReason::Kind::content_filter;
  else
    r.kind = FinishReason::Kind::other;
  if (has_calls) r.kind = FinishReason::Kind::tool_calls;
  return r;
}

std::string_view encode_finish_reason(const ir::FinishReason& reason, bool has_calls) {
  if (has_calls) return "tool_calls";
  switch (reason.kind) {
    case FinishReason::Kind::stop:
      return "stop";
    case FinishReason::Kind::length:
      return "length";
    case FinishReason::Kind::tool_calls:
      return "tool_calls";
    case FinishReason::Kind::content_filter:
      return "content_filter";
    case FinishReason::Kind::error:
    case FinishReason::Kind::other:
      break;
  }
  // A raw value that means the same kind here (an OpenAI value we do not
  // know decodes to `other` too) passes through; anything else is "stop".
  if (!reason.raw.empty() && decode_finish_reason(reason.raw, false).kind == reason.kind)
    return reason.raw;
  return "stop";
}

template <class S>
ir::BasicImagePart<S> image_from_url(std::string_view url, std::string_view detail) {
  using T = IrText<S>;
  ir::BasicImagePart<S> img;
  img.detail = T::keep(detail);
  constexpr std::string_view kData = "data:";
  constexpr std::string_view kB64 = ";base64,";
  if (url.substr(0, kData.size()) == kData) {
    size_t marker = url.find(kB64);
    size_t comma = url.find(',');
    // Only "data:<media>;base64,<b64>" maps to media_type + data; any other data: URL stays a URL.
    if (marker != std::string_view::npos && marker < comma) {
      img.media_type = T::keep(url.substr(kData.size(), marker - kData.size()));
      img.data = T::keep(url.substr(marker + kB64.size()));
      return img;
    }
  }
  img.url = T::keep(url);
  return img;
}

template <class S>
void write_image_part(JsonWriter& w, const ir::BasicImagePart<S>& image) {
  w.begin_object();
  w.field("type", "image_url");
  w.key("image_url");
  w.begin_object();
  if (!image.data.empty() || image.url.empty()) {
    std::string url;
    url.reserve(image.media_type.size() + image.data.size() + 13);
    url.append("data:").append(image.media_type).append(";base64,").append(image.data);
    w.field("url", url);
  } else {
    w.field("url", image.url);
  }
  if (!image.detail.empty()) w.field("detail", image.detail);
  w.end_object();
  w.end_object();
}

Result<ir::Usage> decode_usage(json::element e, const json::Path& path) {
  TW_ASSIGN(auto obj, json::as_object(e, path));
  ir::Usage u;
  for (auto [key, value] : obj) {
    if (value.is_null()) continue;
    if (key == "prompt_tokens" || key == "completion_tokens") {
      json::Path p(path, key);
      TW_ASSIGN(auto n, json::as_int64(value, p));
      (key == "prompt_tokens" ? u.input_tokens : u.output_tokens) = n;
    } else if (key == "prompt_tokens_details") {
      json::Path p(path, key);
      TW_ASSIGN(auto details, json::as_object(value, p));
      json::element cached;
      if (json::get(details, "cached_tokens", cached)) {
        TW_ASSIGN(auto n, json::as_int64(cached, json::Path(p, "cached_tokens")));
        u.cache_read_tokens = n;
      }
    }
  }
  return u;
}

void write_usage(JsonWriter& w, const ir::Usage& usage) {
  w.key("usage");
  w.begin_object();
  int64_t in = usage.input_tokens.value_or(0), out = usage.output_tokens.value_or(0);
  w.field("prompt_tokens", in);
  w.field("completion_tokens", out);
  int64_t total;
  if (__builtin_add_overflow(in, out, &total))
    total = INT64_MAX;  // hostile counts must not overflow
  w.field("total_tokens", total);
  if (usage.cache_read_tokens) {
    w.key("prompt_tokens_details");
    w.begin_object();
    w.field("cached_tokens", *usage.cache_read_tokens);
    w.end_object();
  }
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
  template ir::BasicImagePart<S> image_from_url<S>(std::string_view, std::string_view);   \
  template void write_image_part<S>(JsonWriter&, const ir::BasicImagePart<S>&);           \
  template Result<ir::BasicPart<S>> decode_tool_call<S>(json::element, const json::Path&, \
                                                        std::string_view&);               \
  template void write_tool_call<S>(JsonWriter&, const ir::BasicToolCallPart<S>&);
TOOLWIRE_INSTANTIATE(ir::Owning)
TOOLWIRE_INSTANTIATE(Borrowed)
#undef TOOLWIRE_INSTANTIATE

}  // namespace toolwire::dialects::openai_chat
