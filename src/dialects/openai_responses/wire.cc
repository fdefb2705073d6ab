// Helpers shared by the OpenAI Responses request, response and stream codecs.
#include <cstdint>

#include "dialects/common/data_url.h"
#include "dialects/common/openai_usage.h"
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
  return decode_openai_usage(e, path, {"input_tokens", "output_tokens", "input_tokens_details"});
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
  w.field("total_tokens", total_tokens(in, out));
  w.end_object();
}

template <class S>
void write_image(JsonWriter& w, const ir::BasicImagePart<S>& image) {
  w.begin_object();
  w.field("type", "input_image");
  if (!image.data.empty() || image.url.empty()) {
    w.field("image_url", make_data_url(image.media_type, image.data));
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

template void write_image<ir::Owning>(JsonWriter&, const ir::BasicImagePart<ir::Owning>&);
template void write_image<Borrowed>(JsonWriter&, const ir::BasicImagePart<Borrowed>&);

}  // namespace toolwire::dialects::openai_responses
