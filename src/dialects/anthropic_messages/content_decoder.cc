// Content blocks, stop reasons and usage shared by the request, response and
// stream decoders.
#include "dialects/anthropic_messages/wire.h"
#include "dialects/common/cache_usage.h"
#include "dialects/common/call_id.h"
#include "dialects/common/finish_reason.h"
#include "dialects/common/wrapped_arguments.h"

namespace toolwire::dialects::anthropic_messages {

using json::Path;

template <class S>
void decode_tool_input(json::element input, ir::BasicToolCallPart<S>& call) {
  decode_wrapped_arguments(input, call);
}

Result<std::string_view> block_type(const BlockFields& f, const Path& path) {
  TW_ASSIGN(json::element type_el, f.need(kType, "type", path));
  const Path type_path(path, "type");
  return json::as_string(type_el, type_path);
}

template <class S, class Parts>
Status decode_assistant_block(json::element block, const Path& path, Parts& parts,
                              SeenCallIds* seen, const BlockMembers<S>& members) {
  using T = IrText<S>;
  TW_ASSIGN(json::object obj, json::as_object(block, path));
  const BlockFields f = pick_block(obj);
  const Path type_path(path, "type");
  TW_ASSIGN(std::string_view type, block_type(f, path));

  if (type == "text") {
    const Path text_path(path, "text");
    TW_ASSIGN(json::element text_el, f.need(kText, "text", path));
    TW_ASSIGN(std::string_view text, json::as_string(text_el, text_path));
    if (!text.empty()) {
      parts.push_back(ir::BasicTextPart<S>{T::keep(text)});
      keep_block_members(f, path, parts.size() - 1, members);
    }
    return Status::Ok();
  }
  if (type == "tool_use") {
    ir::BasicToolCallPart<S> call;
    const Path id_path(path, "id");
    TW_ASSIGN(json::element id_el, f.need(kId, "id", path));
    TW_ASSIGN(std::string_view id, json::as_string(id_el, id_path));
    if (id.empty()) return json::invalid(id_path, "tool_use id must not be empty");
    const Path name_path(path, "name");
    TW_ASSIGN(json::element name_el, f.need(kName, "name", path));
    TW_ASSIGN(std::string_view name, json::as_string(name_el, name_path));
    if (f.has[kInput]) {
      const Path input_path(path, "input");
      if (!f.e[kInput].is_object()) return json::as_object(f.e[kInput], input_path).error();
      decode_tool_input<S>(f.e[kInput], call);
    } else {
      call.arguments = "{}";
    }
    std::string scratch;
    const std::string_view native = call_id::from_anthropic(id, scratch);
    call.id = native.data() == id.data() ? T::keep(id) : T::made(std::move(scratch));
    call.name = T::keep(name);
    if (seen) seen->insert(id);
    parts.push_back(std::move(call));
    keep_block_members(f, path, parts.size() - 1, members);
    return Status::Ok();
  }
  if (type == "thinking") {
    ir::BasicThinkingPart<S> thinking;
    const Path text_path(path, "thinking");
    TW_ASSIGN(json::element text_el, f.need(kThinking, "thinking", path));
    TW_ASSIGN(std::string_view text, json::as_string(text_el, text_path));
    thinking.text = T::keep(text);
    if (f.has[kSignature]) {
      const Path sig_path(path, "signature");
      TW_ASSIGN(std::string_view sig, json::as_string(f.e[kSignature], sig_path));
      thinking.signature = T::keep(sig);
    }
    parts.push_back(std::move(thinking));
    keep_block_members(f, path, parts.size() - 1, members);
    return Status::Ok();
  }
  if (type == "redacted_thinking") {
    ir::BasicThinkingPart<S> thinking;
    thinking.redacted = true;
    const Path data_path(path, "data");
    TW_ASSIGN(json::element data_el, f.need(kData, "data", path));
    TW_ASSIGN(std::string_view data, json::as_string(data_el, data_path));
    thinking.redacted_data = T::keep(data);
    parts.push_back(std::move(thinking));
    keep_block_members(f, path, parts.size() - 1, members);
    return Status::Ok();
  }
  if (type == "tool_result" || type == "image")
    return json::invalid(type_path,
                         "'" + std::string(type) + "' blocks are not allowed in assistant content");
  // server_tool_use, web_search_tool_result, document, ...: kept verbatim.
  parts.push_back(
      ir::BasicUnknownPart<S>{typename S::String(kDialect), T::keep(type), T::raw_json(block)});
  return Status::Ok();
}

template void decode_tool_input<ir::Owning>(json::element, ir::ToolCallPart&);
template void decode_tool_input<Borrowed>(json::element, ir::BasicToolCallPart<Borrowed>&);
template Status decode_assistant_block<ir::Owning>(json::element, const Path&,
                                                   ir::Owning::Vector<ir::Part>&, SeenCallIds*,
                                                   const BlockMembers<ir::Owning>&);
template Status decode_assistant_block<Borrowed>(json::element, const Path&,
                                                 Borrowed::Vector<ir::BasicPart<Borrowed>>&,
                                                 SeenCallIds*, const BlockMembers<Borrowed>&);

// pause_turn and reasons added later: `other`.
constexpr RawReasons kStopReasons[] = {
    {ReasonKind::stop, {"end_turn", "stop_sequence", ""}},
    {ReasonKind::length, {"max_tokens", "model_context_window_exceeded"}},
    {ReasonKind::tool_calls, {"tool_use"}},
    {ReasonKind::content_filter, {"refusal"}}};

ir::FinishReason decode_stop_reason(std::string_view raw, bool has_tool_calls) {
  return decode_reason(kStopReasons, raw, has_tool_calls);
}

std::string_view encode_stop_reason(const ir::FinishReason& reason, bool has_tool_calls) {
  if (has_tool_calls) return "tool_use";
  // The raw value is ours when it means the same here (e.g. "stop_sequence",
  // "pause_turn"); an OpenAI "stop" or "length" does not, and is rewritten.
  if (!reason.raw.empty() && decode_stop_reason(reason.raw, false).kind == reason.kind)
    return reason.raw;
  static constexpr ReasonNames kNames{.stop = "end_turn",
                                      .length = "max_tokens",
                                      .tool_calls = "tool_use",
                                      .content_filter = "refusal",
                                      .error = "end_turn",
                                      .other = "end_turn"};
  return kNames.of(reason.kind);
}

Status decode_usage(json::element usage, const Path& path, ir::Usage& out) {
  // server_tool_use, service_tier, ...: dropped.
  static constexpr CacheUsageKeys kKeys{.input = "input_tokens",
                                        .output = "output_tokens",
                                        .cache_read = "cache_read_input_tokens",
                                        .cache_write = "cache_creation_input_tokens"};
  return decode_cache_excluded_usage(usage, path, kKeys, out);
}

}  // namespace toolwire::dialects::anthropic_messages
