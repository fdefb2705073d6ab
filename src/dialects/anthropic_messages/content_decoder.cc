// Content blocks, stop reasons and usage shared by the request, response and
// stream decoders.
#include "dialects/anthropic_messages/wire.h"
#include "dialects/common/call_id.h"

namespace toolwire::dialects::anthropic_messages {

using json::Path;

template <class S>
void decode_tool_input(json::element input, ir::BasicToolCallPart<S>& call) {
  json::object obj;
  if (!input.get_object().get(obj) && obj.size() == 1) {
    auto field = *obj.begin();
    std::string_view raw;
    if (field.key == kInvalidArgumentsKey && !field.value.get_string().get(raw)) {
      call.arguments = IrText<S>::keep(raw);  // the model's text, kept verbatim
      call.arguments_valid = false;
      return;
    }
  }
  call.arguments = IrText<S>::raw_json(input);
  call.arguments_valid = true;
}

Result<std::string_view> block_type(const BlockFields& f, const Path& path) {
  TW_ASSIGN(json::element type_el, f.need(kType, "type", path));
  const Path type_path(path, "type");
  return json::as_string(type_el, type_path);
}

template <class S, class Parts>
Status decode_assistant_block(json::element block, const Path& path, Parts& parts,
                              SeenCallIds* seen) {
  using T = IrText<S>;
  TW_ASSIGN(json::object obj, json::as_object(block, path));
  const BlockFields f = pick_block(obj);
  const Path type_path(path, "type");
  TW_ASSIGN(std::string_view type, block_type(f, path));

  if (type == "text") {
    const Path text_path(path, "text");
    TW_ASSIGN(json::element text_el, f.need(kText, "text", path));
    TW_ASSIGN(std::string_view text, json::as_string(text_el, text_path));
    if (!text.empty()) parts.push_back(ir::BasicTextPart<S>{T::keep(text)});
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
                                                   ir::Owning::Vector<ir::Part>&, SeenCallIds*);
template Status decode_assistant_block<Borrowed>(json::element, const Path&,
                                                 Borrowed::Vector<ir::BasicPart<Borrowed>>&,
                                                 SeenCallIds*);

ir::FinishReason decode_stop_reason(std::string_view raw, bool has_tool_calls) {
  using Kind = ir::FinishReason::Kind;
  ir::FinishReason r;
  r.raw.assign(raw);
  if (raw == "end_turn" || raw == "stop_sequence")
    r.kind = Kind::stop;
  else if (raw == "max_tokens" || raw == "model_context_window_exceeded")
    r.kind = Kind::length;
  else if (raw == "tool_use")
    r.kind = Kind::tool_calls;
  else if (raw == "refusal")
    r.kind = Kind::content_filter;
  else if (raw.empty())
    r.kind = Kind::stop;
  else
    r.kind = Kind::other;  // pause_turn and reasons added later
  if (has_tool_calls) r.kind = Kind::tool_calls;
  return r;
}

std::string_view encode_stop_reason(const ir::FinishReason& reason, bool has_tool_calls) {
  using Kind = ir::FinishReason::Kind;
  if (has_tool_calls) return "tool_use";
  // The raw value is ours when it means the same here (e.g. "stop_sequence",
  // "pause_turn"); an OpenAI "stop" or "length" does not, and is rewritten.
  if (!reason.raw.empty() && decode_stop_reason(reason.raw, false).kind == reason.kind)
    return reason.raw;
  switch (reason.kind) {
    case Kind::stop:
      return "end_turn";
    case Kind::length:
      return "max_tokens";
    case Kind::tool_calls:
      return "tool_use";
    case Kind::content_filter:
      return "refusal";
    case Kind::error:
    case Kind::other:
      return "end_turn";
  }
  return "end_turn";
}

Status decode_usage(json::element usage, const Path& path, ir::Usage& out) {
  TW_ASSIGN(json::object obj, json::as_object(usage, path));
  std::optional<int64_t> input;
  for (auto field : obj) {
    std::optional<int64_t>* target = nullptr;
    if (field.key == "input_tokens")
      target = &input;
    else if (field.key == "output_tokens")
      target = &out.output_tokens;
    else if (field.key == "cache_read_input_tokens")
      target = &out.cache_read_tokens;
    else if (field.key == "cache_creation_input_tokens")
      target = &out.cache_write_tokens;
    if (!target || field.value.is_null()) continue;  // server_tool_use, service_tier, ...: dropped
    const Path field_path(path, field.key);
    TW_ASSIGN(*target, json::as_int64(field.value, field_path));
  }
  // IR input counts every input token; Anthropic's input_tokens excludes the cache.
  if (input) {
    int64_t total = *input;
    if (__builtin_add_overflow(total, out.cache_read_tokens.value_or(0), &total) ||
        __builtin_add_overflow(total, out.cache_write_tokens.value_or(0), &total))
      return json::invalid(path, "token counts out of range");
    out.input_tokens = total;
  }
  return Status::Ok();
}

int64_t anthropic_input_tokens(const ir::Usage& usage) {
  int64_t n = usage.input_tokens.value_or(0);
  if (__builtin_sub_overflow(n, usage.cache_read_tokens.value_or(0), &n) ||
      __builtin_sub_overflow(n, usage.cache_write_tokens.value_or(0), &n))
    return 0;
  return n < 0 ? 0 : n;
}

}  // namespace toolwire::dialects::anthropic_messages
