// Helpers shared by the OpenAI Responses request, response and stream codecs.
#include <cstdint>

#include "dialects/openai_responses/wire.h"

namespace toolwire::dialects::openai_responses {

using ir::FinishReason;

ir::FinishReason decode_status(std::string_view status, std::string_view incomplete_reason,
                               bool has_calls) {
  FinishReason r;
  if (status == "incomplete") {
    r.raw = std::string(incomplete_reason);
    if (incomplete_reason == "max_output_tokens")
      r.kind = FinishReason::Kind::length;
    else if (incomplete_reason == "content_filter")
      r.kind = FinishReason::Kind::content_filter;
    else
      r.kind = FinishReason::Kind::other;
    return r;
  }
  r.raw = std::string(status);
  if (status == "completed" || status.empty())
    r.kind = has_calls ? FinishReason::Kind::tool_calls : FinishReason::Kind::stop;
  else if (status == "failed")
    r.kind = FinishReason::Kind::error;
  else
    r.kind = FinishReason::Kind::other;  // cancelled, in_progress, queued
  return r;
}

WireStatus encode_status(const ir::FinishReason& reason) {
  switch (reason.kind) {
    case FinishReason::Kind::stop:
    case FinishReason::Kind::tool_calls:
      return {"completed", {}};
    case FinishReason::Kind::length:
      return {"incomplete", "max_output_tokens"};
    case FinishReason::Kind::content_filter:
      return {"incomplete", "content_filter"};
    case FinishReason::Kind::error:
      return {"failed", {}};
    case FinishReason::Kind::other:
      break;
  }
  // A raw status of ours that means `other` passes through; anything else
  // (Anthropic's pause_turn...) reads as a finished turn.
  if (reason.raw == "cancelled" || reason.raw == "in_progress" || reason.raw == "queued")
    return {reason.raw, {}};
  return {"completed", {}};
}

Result<ir::Usage> decode_usage(json::element e, const json::Path& path) {
  TW_ASSIGN(auto obj, json::as_object(e, path));
  ir::Usage u;
  for (auto [key, value] : obj) {
    if (value.is_null()) continue;
    json::Path p(path, key);
    if (key == "input_tokens" || key == "output_tokens") {
      TW_ASSIGN(auto n, json::as_int64(value, p));
      (key == "input_tokens" ? u.input_tokens : u.output_tokens) = n;
    } else if (key == "input_tokens_details") {
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
  w.field("input_tokens", in);
  w.key("input_tokens_details");
  w.begin_object();
  w.field("cached_tokens", usage.cache_read_tokens.value_or(0));
  w.end_object();
  w.field("output_tokens", out);
  w.key("output_tokens_details");
  w.begin_object();
  w.field("reasoning_tokens", int64_t{0});
  w.end_object();
  int64_t total;
  if (__builtin_add_overflow(in, out, &total)) total = INT64_MAX;  // hostile counts
  w.field("total_tokens", total);
  w.end_object();
}

template <class S>
ir::BasicImagePart<S> image_from_url(std::string_view url, std::string_view detail) {
  using T = IrText<S>;
  ir::BasicImagePart<S> img;
  img.detail = T::keep(detail);
  constexpr std::string_view kData = "data:";
  constexpr std::string_view kB64 = ";base64,";
  if (url.starts_with(kData)) {
    size_t marker = url.find(kB64);
    size_t comma = url.find(',');
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
void write_image(JsonWriter& w, const ir::BasicImagePart<S>& image) {
  w.begin_object();
  w.field("type", "input_image");
  if (!image.data.empty() || image.url.empty()) {
    std::string url;
    url.reserve(image.media_type.size() + image.data.size() + 13);
    url.append("data:").append(image.media_type).append(";base64,").append(image.data);
    w.field("image_url", url);
  } else {
    w.field("image_url", image.url);
  }
  if (!image.detail.empty()) w.field("detail", image.detail);
  w.end_object();
}

bool is_answer_item_type(std::string_view type) {
  return type.ends_with("_output") || type == "item_reference" || type == "mcp_approval_response";
}

std::string item_id(std::string_view prefix, std::string_view base, size_t n) {
  std::string id;
  id.reserve(prefix.size() + base.size() + 16);
  id.append(prefix).append("_").append(base.empty() ? std::string_view("toolwire") : base);
  id.append("_").append(std::to_string(n));
  return id;
}

template ir::BasicImagePart<ir::Owning> image_from_url<ir::Owning>(std::string_view,
                                                                   std::string_view);
template ir::BasicImagePart<Borrowed> image_from_url<Borrowed>(std::string_view, std::string_view);
template void write_image<ir::Owning>(JsonWriter&, const ir::BasicImagePart<ir::Owning>&);
template void write_image<Borrowed>(JsonWriter&, const ir::BasicImagePart<Borrowed>&);

}  // namespace toolwire::dialects::openai_responses
