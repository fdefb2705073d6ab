// Content blocks, stop reasons and usage shared by the request, response and
// stream decoders.
#include "dialects/bedrock_converse/wire.h"
#include "dialects/common/cache_usage.h"
#include "dialects/common/call_id.h"
#include "dialects/common/finish_reason.h"
#include "dialects/common/wrapped_arguments.h"

namespace toolwire::dialects::bedrock_converse {

using json::Path;

Result<Block> block_of(json::element block, const Path& path) {
  TW_ASSIGN(json::object obj, json::as_object(block, path));
  if (obj.size() != 1)
    return json::invalid(path, "a content block must have exactly one member (its kind), got " +
                                   std::to_string(obj.size()));
  auto field = *obj.begin();
  return Block{field.key, field.value};
}

template <class S>
Result<bool> decode_image(json::element value, const Path& path, ir::BasicImagePart<S>& out) {
  using T = IrText<S>;
  TW_ASSIGN(json::object obj, json::as_object(value, path));
  enum { kFormat, kSource };
  static constexpr std::string_view kKeys[] = {"format", "source"};
  const auto f = json::pick(obj, kKeys);
  const Path format_path(path, "format"), source_path(path, "source");
  TW_ASSIGN(json::element format_el, f.need(kFormat, "format", path));
  TW_ASSIGN(std::string_view format, json::as_string(format_el, format_path));
  TW_ASSIGN(json::element source_el, f.need(kSource, "source", path));
  TW_ASSIGN(json::object source, json::as_object(source_el, source_path));
  json::element bytes_el;
  if (!json::get(source, "bytes", bytes_el)) return false;  // s3Location: kept verbatim
  const Path bytes_path(source_path, "bytes");
  TW_ASSIGN(std::string_view bytes, json::as_string(bytes_el, bytes_path));
  if (format != "png" && format != "jpeg" && format != "gif" && format != "webp")
    return json::invalid(format_path, "unknown image format '" + std::string(format) +
                                          "' (expected png, jpeg, gif or webp)");
  out.media_type = T::made("image/" + std::string(format));
  out.data = T::keep(bytes);
  return true;
}

namespace {}  // namespace

template <class S, class Parts>
Status decode_assistant_block(json::element block, const Path& path, Parts& parts,
                              SeenCallIds* seen) {
  using T = IrText<S>;
  TW_ASSIGN(Block b, block_of(block, path));
  const Path vpath(path, b.kind);
  if (b.kind == "text") {
    TW_ASSIGN(std::string_view text, json::as_string(b.value, vpath));
    if (!text.empty()) parts.push_back(ir::BasicTextPart<S>{T::keep(text)});
    return Status::Ok();
  }
  if (b.kind == "toolUse") {
    TW_ASSIGN(json::object obj, json::as_object(b.value, vpath));
    enum { kId, kName, kInput };
    static constexpr std::string_view kKeys[] = {"toolUseId", "name", "input"};
    const auto f = json::pick(obj, kKeys);
    const Path id_path(vpath, "toolUseId"), name_path(vpath, "name");
    TW_ASSIGN(json::element id_el, f.need(kId, "toolUseId", vpath));
    TW_ASSIGN(std::string_view id, json::as_string(id_el, id_path));
    if (id.empty()) return json::invalid(id_path, "toolUseId must not be empty");
    TW_ASSIGN(json::element name_el, f.need(kName, "name", vpath));
    TW_ASSIGN(std::string_view name, json::as_string(name_el, name_path));
    ir::BasicToolCallPart<S> call;
    if (f.present[kInput])
      decode_wrapped_arguments<S>(f.e[kInput], call);
    else
      call.arguments = T::keep("{}");
    std::string scratch;
    const std::string_view native = call_id::from_anthropic(id, scratch);
    call.id = native.data() == id.data() ? T::keep(id) : T::made(std::move(scratch));
    call.name = T::keep(name);
    if (seen) seen->insert(id);
    parts.push_back(std::move(call));
    return Status::Ok();
  }
  if (b.kind == "reasoningContent") {
    TW_ASSIGN(Block r, block_of(b.value, vpath));
    const Path rpath(vpath, r.kind);
    ir::BasicThinkingPart<S> thinking;
    if (r.kind == "reasoningText") {
      TW_ASSIGN(json::object obj, json::as_object(r.value, rpath));
      enum { kText, kSignature };
      static constexpr std::string_view kKeys[] = {"text", "signature"};
      const auto f = json::pick(obj, kKeys);
      const Path text_path(rpath, "text");
      TW_ASSIGN(json::element text_el, f.need(kText, "text", rpath));
      TW_ASSIGN(std::string_view text, json::as_string(text_el, text_path));
      thinking.text = T::keep(text);
      if (f.has[kSignature]) {
        const Path sig_path(rpath, "signature");
        TW_ASSIGN(std::string_view sig, json::as_string(f.e[kSignature], sig_path));
        thinking.signature = T::keep(sig);
      }
    } else if (r.kind == "redactedContent") {
      TW_ASSIGN(std::string_view data, json::as_string(r.value, rpath));
      thinking.redacted = true;
      thinking.redacted_data = T::keep(data);
    } else {
      return json::invalid(rpath, "unknown reasoningContent member '" + std::string(r.kind) +
                                      "' (expected reasoningText or redactedContent)");
    }
    parts.push_back(std::move(thinking));
    return Status::Ok();
  }
  if (b.kind == "toolResult")
    return json::invalid(vpath, "toolResult blocks are not allowed in assistant content");
  // image, document, citationsContent, cachePoint, guardContent, ...: verbatim.
  parts.push_back(
      ir::BasicUnknownPart<S>{typename S::String(kDialect), T::keep(b.kind), T::raw_json(block)});
  return Status::Ok();
}

template Result<bool> decode_image<ir::Owning>(json::element, const Path&, ir::ImagePart&);
template Result<bool> decode_image<Borrowed>(json::element, const Path&,
                                             ir::BasicImagePart<Borrowed>&);
template Status decode_assistant_block<ir::Owning>(json::element, const Path&,
                                                   ir::Owning::Vector<ir::Part>&, SeenCallIds*);
template Status decode_assistant_block<Borrowed>(json::element, const Path&,
                                                 Borrowed::Vector<ir::BasicPart<Borrowed>>&,
                                                 SeenCallIds*);

constexpr RawReasons kStopReasons[] = {
    {ReasonKind::stop, {"end_turn", "stop_sequence", ""}},
    {ReasonKind::length, {"max_tokens", "model_context_window_exceeded"}},
    {ReasonKind::tool_calls, {"tool_use"}},
    {ReasonKind::content_filter, {"guardrail_intervened", "content_filtered"}}};

ir::FinishReason decode_stop_reason(std::string_view raw, bool has_tool_calls) {
  return decode_reason(kStopReasons, raw, has_tool_calls);
}

std::string_view encode_stop_reason(const ir::FinishReason& reason, bool has_tool_calls) {
  if (has_tool_calls) return "tool_use";
  // Our own raw value when it means the same here ("stop_sequence",
  // "guardrail_intervened"); another dialect's ("stop", "length") is rewritten.
  if (!reason.raw.empty() && decode_stop_reason(reason.raw, false).kind == reason.kind &&
      reason.kind != ReasonKind::other)
    return reason.raw;
  static constexpr ReasonNames kNames{.stop = "end_turn",
                                      .length = "max_tokens",
                                      .tool_calls = "tool_use",
                                      .content_filter = "content_filtered",
                                      .error = "end_turn",
                                      .other = "end_turn"};
  return kNames.of(reason.kind);
}

Status decode_usage(json::element usage, const Path& path, ir::Usage& out) {
  // totalTokens (derived) is checked, not kept; cacheDetails, ...: dropped.
  static constexpr CacheUsageKeys kKeys{.input = "inputTokens",
                                        .output = "outputTokens",
                                        .cache_read = "cacheReadInputTokens",
                                        .cache_write = "cacheWriteInputTokens",
                                        .total = "totalTokens"};
  return decode_cache_excluded_usage(usage, path, kKeys, out);
}

void encode_usage(const ir::Usage& usage, JsonWriter& w) {
  const int64_t read = usage.cache_read_tokens.value_or(0);
  const int64_t write = usage.cache_write_tokens.value_or(0);
  const int64_t input = cache_excluded_input(usage);
  const int64_t output = usage.output_tokens.value_or(0);
  // The total of what is written, so that it reads back the same.
  int64_t total = input;
  if (__builtin_add_overflow(total, read, &total) || __builtin_add_overflow(total, write, &total) ||
      __builtin_add_overflow(total, output, &total))
    total = INT64_MAX;
  w.field("inputTokens", input);
  w.field("outputTokens", output);
  w.field("totalTokens", total);
  if (usage.cache_read_tokens) w.field("cacheReadInputTokens", read);
  if (usage.cache_write_tokens) w.field("cacheWriteInputTokens", write);
}

}  // namespace toolwire::dialects::bedrock_converse
