// Parts, finish reasons and usage shared by the request, response and stream
// decoders.
#include "dialects/common/finish_reason.h"
#include "dialects/common/wrapped_arguments.h"
#include "dialects/gemini/wire.h"

namespace toolwire::dialects::gemini {

using json::Path;

template <class S>
void decode_args(json::element args, ir::BasicToolCallPart<S>& call) {
  decode_wrapped_arguments(args, call);
}

namespace {

// The first key of a part the IR has no form for (executableCode, ...).
std::string_view first_key(json::object obj) {
  for (auto [key, value] : obj) return key;
  return "part";
}

template <class S, class Parts>
Status decode_call(const PartFields& f, const Path& path, std::string_view salt,
                   size_t& call_ordinal, Parts& parts) {
  using T = IrText<S>;
  const Path call_path(path, "functionCall");
  TW_ASSIGN(json::object call_obj, json::as_object(f.e[kFunctionCall], call_path));
  enum { kId, kName, kArgs };
  static constexpr std::string_view kKeys[] = {"id", "name", "args"};
  const auto g = pick(call_obj, kKeys);
  const Path name_path(call_path, "name");
  TW_ASSIGN(json::element name_el, g.need(kName, "name", call_path));
  TW_ASSIGN(std::string_view name, json::as_string(name_el, name_path));
  // Gemini writes no other names, and a request may hold no other (what decodes, encodes).
  if (!is_valid_name(name)) return invalid_name(name, name_path);
  ir::BasicToolCallPart<S> call;
  call.name = T::keep(from_gemini_name(name));
  if (g.has[kArgs]) {
    const Path args_path(call_path, "args");
    if (!g.e[kArgs].is_object()) return json::as_object(g.e[kArgs], args_path).error();
    decode_args<S>(g.e[kArgs], call);
  } else {
    call.arguments = typename S::String("{}");
  }
  std::string_view id;
  if (g.has[kId]) {
    const Path id_path(call_path, "id");
    TW_ASSIGN(id, json::as_string(g.e[kId], id_path));
  }
  if (!id.empty())
    call.id = T::keep(id);
  else
    call.id = T::made(synthesize_call_id(salt, call_ordinal, name, call.arguments));
  ++call_ordinal;
  if (f.has[kThoughtSignature]) {
    const Path sig_path(path, "thoughtSignature");
    TW_ASSIGN(std::string_view sig, json::as_string(f.e[kThoughtSignature], sig_path));
    call.signature = T::keep(sig);
  }
  parts.push_back(std::move(call));
  return Status::Ok();
}

}  // namespace

template <class S, class Parts>
Status decode_model_part(json::element part, const Path& path, std::string_view salt,
                         size_t& call_ordinal, Parts& parts) {
  using T = IrText<S>;
  TW_ASSIGN(json::object obj, json::as_object(part, path));
  const PartFields f = pick(obj, kPartKeys);
  std::string_view signature;
  if (f.has[kThoughtSignature]) {
    const Path sig_path(path, "thoughtSignature");
    TW_ASSIGN(signature, json::as_string(f.e[kThoughtSignature], sig_path));
  }
  if (f.has[kFunctionCall]) return decode_call<S>(f, path, salt, call_ordinal, parts);
  if (f.has[kFunctionResponse])
    return json::invalid(Path(path, "functionResponse"),
                         "functionResponse parts are not allowed in model content");
  if (f.present[kText]) {
    const Path text_path(path, "text");
    TW_ASSIGN(std::string_view text, json::as_string(f.e[kText], text_path));
    bool thought = false;
    if (f.has[kThought]) {
      const Path p(path, "thought");
      TW_ASSIGN(thought, json::as_bool(f.e[kThought], p));
    }
    if (thought) {
      ir::BasicThinkingPart<S> t;
      t.text = T::keep(text);
      t.signature = T::keep(signature);
      parts.push_back(std::move(t));
      return Status::Ok();
    }
    if (!text.empty()) parts.push_back(ir::BasicTextPart<S>{T::keep(text)});
    // A signature on an answer's text: a thought part with no text after it.
    if (!signature.empty()) {
      ir::BasicThinkingPart<S> t;
      t.signature = T::keep(signature);
      parts.push_back(std::move(t));
    }
    return Status::Ok();
  }
  if (!signature.empty() && obj.size() <= 2) {  // {"thoughtSignature":..., "thought"?}
    ir::BasicThinkingPart<S> t;
    t.signature = T::keep(signature);
    parts.push_back(std::move(t));
    return Status::Ok();
  }
  // inlineData, executableCode, codeExecutionResult, ...: kept verbatim.
  parts.push_back(ir::BasicUnknownPart<S>{typename S::String(kDialect), T::keep(first_key(obj)),
                                          T::raw_json(part)});
  return Status::Ok();
}

template void decode_args<ir::Owning>(json::element, ir::ToolCallPart&);
template void decode_args<Borrowed>(json::element, ir::BasicToolCallPart<Borrowed>&);
template Status decode_model_part<ir::Owning>(json::element, const Path&, std::string_view, size_t&,
                                              ir::Owning::Vector<ir::Part>&);
template Status decode_model_part<Borrowed>(json::element, const Path&, std::string_view, size_t&,
                                            Borrowed::Vector<ir::BasicPart<Borrowed>>&);

constexpr RawReasons kFinishReasons[] = {
    {ReasonKind::stop, {"STOP", "", "FINISH_REASON_UNSPECIFIED"}},
    {ReasonKind::length, {"MAX_TOKENS"}},
    {ReasonKind::content_filter,
     {"SAFETY", "RECITATION", "BLOCKLIST", "PROHIBITED_CONTENT", "SPII", "IMAGE_SAFETY", "LANGUAGE",
      "OTHER_SAFETY"}},
    // The model's call could not be used: nothing to run.
    {ReasonKind::error,
     {"MALFORMED_FUNCTION_CALL", "UNEXPECTED_TOOL_CALL", "TOO_MANY_TOOL_CALLS"}}};

ir::FinishReason decode_finish_reason(std::string_view raw, bool has_calls) {
  ir::FinishReason r = decode_reason(kFinishReasons, raw);
  if (has_calls && r.kind == ReasonKind::stop) r.kind = ReasonKind::tool_calls;
  return r;
}

std::string_view encode_finish_reason(const ir::FinishReason& reason, bool has_calls) {
  using Kind = ReasonKind;
  // The raw value is ours when it is spelled like Gemini's enum values and
  // means the same kind here (not an Anthropic "pause_turn", also "other").
  bool enum_spelling = !reason.raw.empty();
  for (char c : reason.raw) enum_spelling &= (c >= 'A' && c <= 'Z') || c == '_';
  if (enum_spelling &&
      decode_finish_reason(reason.raw, has_calls).kind ==
          (has_calls && reason.kind == Kind::stop ? Kind::tool_calls : reason.kind))
    return reason.raw;
  if (has_calls) return "STOP";
  static constexpr ReasonNames kNames{.stop = "STOP",
                                      .length = "MAX_TOKENS",
                                      .tool_calls = "STOP",
                                      .content_filter = "SAFETY",
                                      .error = "MALFORMED_FUNCTION_CALL",
                                      .other = "OTHER"};
  return kNames.of(reason.kind);
}

Status decode_usage(json::element usage, const Path& path, ir::Usage& out) {
  TW_ASSIGN(json::object obj, json::as_object(usage, path));
  std::optional<int64_t> prompt, tool_prompt, candidates, thoughts;
  std::string scratch;
  for (auto [raw_key, value] : obj) {
    const std::string_view key = camel_key(raw_key, scratch);
    std::optional<int64_t>* target = nullptr;
    if (key == "promptTokenCount")
      target = &prompt;
    else if (key == "candidatesTokenCount")
      target = &candidates;
    else if (key == "thoughtsTokenCount")
      target = &thoughts;
    else if (key == "toolUsePromptTokenCount")
      target = &tool_prompt;
    else if (key == "cachedContentTokenCount")
      target = &out.cache_read_tokens;
    if (!target || value.is_null()) continue;  // totalTokenCount, *TokensDetails: derived
    const Path field_path(path, raw_key);
    TW_ASSIGN(*target, json::as_int64(value, field_path));
  }
  auto sum = [&](std::optional<int64_t> a, std::optional<int64_t> b,
                 std::optional<int64_t>& into) -> Status {
    if (!a && !b) return Status::Ok();
    int64_t total = 0;
    if (__builtin_add_overflow(a.value_or(0), b.value_or(0), &total))
      return json::invalid(path, "token counts out of range");
    into = total;
    return Status::Ok();
  };
  // IR input counts every input token, IR output every generated one.
  TW_TRY(sum(prompt, tool_prompt, out.input_tokens));
  TW_TRY(sum(candidates, thoughts, out.output_tokens));
  return Status::Ok();
}

void write_usage(JsonWriter& w, const ir::Usage& usage) {
  if (!usage.input_tokens && !usage.output_tokens && !usage.cache_read_tokens) return;
  w.key("usageMetadata");
  w.begin_object();
  if (usage.input_tokens) w.field("promptTokenCount", *usage.input_tokens);
  if (usage.output_tokens) w.field("candidatesTokenCount", *usage.output_tokens);
  if (usage.input_tokens || usage.output_tokens) {
    int64_t total = 0;
    if (__builtin_add_overflow(usage.input_tokens.value_or(0), usage.output_tokens.value_or(0),
                               &total))
      total = INT64_MAX;
    w.field("totalTokenCount", total);
  }
  if (usage.cache_read_tokens) w.field("cachedContentTokenCount", *usage.cache_read_tokens);
  w.end_object();
}

}  // namespace toolwire::dialects::gemini
