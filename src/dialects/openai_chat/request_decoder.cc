// OpenAI Chat Completions request JSON → IR request.
//
// One pass over each object's fields (simdjson DOM), taking only the text the
// IR keeps; opaque JSON (schemas, unknown fields) is captured minified. Written
// once for both IR policies (IrText<S>: copies for the owning IR, views for
// translate_request's borrowed one).
#include <algorithm>
#include <vector>

#include "dialects/common/openai_request.h"
#include "dialects/common/request_fields.h"
#include "dialects/common/sampling.h"
#include "dialects/common/seen_ids.h"
#include "dialects/common/source_map.h"
#include "dialects/common/tool_schema.h"
#include "dialects/openai_chat/structured_output.h"
#include "dialects/openai_chat/wire.h"
#include "toolwire/dialects/tool_rules.h"

namespace toolwire::dialects::openai_chat {
namespace {

using json::Path;

struct Ctx {
  Warnings& warnings;
  SeenIds calls;               // ids of the tool calls so far
  size_t last_turn_calls = 0;  // calls in the latest assistant message: room for their results
};

// A content array's parts: text, image_url, anything else as UnknownPart.
// `Parts` is the parts list of a message or the content list of a tool result,
// of either IR policy (`S`).
template <class S, class Parts>
Status decode_part(json::element e, const Path& path, bool text_only, Parts& out) {
  using T = IrText<S>;
  TW_ASSIGN(auto obj, json::as_object(e, path));
  enum { kType, kText, kImageUrl };
  static constexpr std::string_view kKeys[] = {"type", "text", "image_url"};
  auto f = pick(obj, kKeys);
  if (!f.has[kType]) return json::invalid(Path(path, "type"), "missing content part type");
  TW_ASSIGN(auto type, json::as_string(f.e[kType], Path(path, "type")));
  if (type == "text") {
    Path tp(path, "text");
    if (!f.has[kText]) return json::invalid(tp, "missing text");
    TW_ASSIGN(auto text, json::as_string(f.e[kText], tp));
    if (!text.empty()) out.push_back(ir::BasicTextPart<S>{T::keep(text)});
    return Status::Ok();
  }
  if (text_only)
    return json::invalid(Path(path, "type"),
                         "expected a text part, got '" + std::string(type) + "'");
  if (type == "image_url") {
    Path ip(path, "image_url");
    if (!f.has[kImageUrl]) return json::invalid(ip, "missing image_url");
    if (f.e[kImageUrl].is_string()) {  // older clients send the URL directly
      out.push_back(image_from_url<S>(f.e[kImageUrl].get_string().value_unsafe(), {}));
      return Status::Ok();
    }
    TW_ASSIGN(auto io, json::as_object(f.e[kImageUrl], ip));
    enum { kImgUrl, kImgDetail };
    static constexpr std::string_view kImgKeys[] = {"url", "detail"};
    auto img = pick(io, kImgKeys);
    if (!img.has[kImgUrl]) return json::invalid(Path(ip, "url"), "missing url");
    TW_ASSIGN(auto url, json::as_string(img.e[kImgUrl], Path(ip, "url")));
    std::string_view detail;
    if (img.has[kImgDetail]) {
      TW_ASSIGN(auto d, json::as_string(img.e[kImgDetail], Path(ip, "detail")));
      detail = d;
    }
    out.push_back(image_from_url<S>(url, detail));
    return Status::Ok();
  }
  out.push_back(
      ir::BasicUnknownPart<S>{typename S::String(kDialect), T::keep(type), T::raw_json(e)});
  return Status::Ok();
}

// Where a message's parts came from: `note(first, index, inner)` for the
// parts out[first, end) of `content`[index] (kWhole: the string).
struct NoNote {
  void operator()(size_t, uint32_t, std::string_view) const {}
};

// `content`: a string or an array of parts.
template <class S, class Parts, class Note = NoNote>
Status decode_content(json::element e, const Path& path, bool text_only, Parts& out,
                      Note&& note = {}) {
  if (e.is_string()) {
    std::string_view s = e.get_string().value_unsafe();
    const size_t first = out.size();
    if (!s.empty()) out.push_back(ir::BasicTextPart<S>{IrText<S>::keep(s)});
    note(first, ir::SourceSpan::kWhole, {});
    return Status::Ok();
  }
  if (!e.is_array())
    return json::invalid(path,
                         "expected string or array, got " + std::string(json::type_name(e.type())));
  json::array arr = e.get_array().value_unsafe();
  size_t i = 0;
  for (json::element part : arr) {
    const size_t first = out.size();
    TW_TRY(decode_part<S>(part, Path(path, i), text_only, out));
    // An image part stands for its image_url (where its detail is).
    const bool image =
        out.size() > first && std::holds_alternative<ir::BasicImagePart<S>>(out.back());
    note(first, static_cast<uint32_t>(i), image ? "image_url" : "");
    ++i;
  }
  return Status::Ok();
}

// The fields a message may carry, read in one pass.
enum MsgField {
  kRole,
  kContent,
  kName,
  kToolCalls,
  kToolCallId,
  kReasoning,
  kRefusal,
  kFunctionCall,
  kAudio,
  kMsgFields
};
constexpr std::string_view kMsgKeys[kMsgFields] = {
    "role",    "content",       "name", "tool_calls", "tool_call_id", "reasoning_content",
    "refusal", "function_call", "audio"};
using MsgFields = Fields<kMsgFields>;

// Notes the source of IR message `message`'s parts, from source message `source`.
template <class S>
struct ChatNote {
  ir::BasicRequest<S>& req;
  size_t message, source;
  const ir::BasicMessage<S>& m;
  std::string_view key = "content";
  void operator()(size_t first, uint32_t index, std::string_view inner) const {
    note_source(req, message, first, m.parts.size(), source, key, index, inner);
  }
  void member(size_t first, std::string_view member) const {
    note_source(req, message, first, m.parts.size(), source, member);
  }
};

template <class S>
Status decode_assistant(const MsgFields& f, const Path& path, ir::BasicMessage<S>& m, Ctx& ctx,
                        const ChatNote<S>& note) {
  using T = IrText<S>;
  // Room for every part up front: reasoning, text, refusal, then the calls.
  size_t parts = f.has[kReasoning] + f.has[kContent] + f.has[kRefusal] + f.has[kAudio];
  if (f.has[kToolCalls] && f.e[kToolCalls].is_array())
    parts += f.e[kToolCalls].get_array().value_unsafe().size();
  m.parts.reserve(parts);
  if (f.has[kReasoning]) {
    TW_ASSIGN(auto r, json::as_string(f.e[kReasoning], Path(path, "reasoning_content")));
    if (!r.empty()) m.parts.push_back(ir::BasicThinkingPart<S>{T::keep(r), {}, false, {}});
    note.member(0, "reasoning_content");
  }
  if (f.has[kContent])
    TW_TRY(decode_content<S>(f.e[kContent], Path(path, "content"), false, m.parts, note));
  if (f.has[kRefusal]) {
    TW_ASSIGN(auto r, json::as_string(f.e[kRefusal], Path(path, "refusal")));
    m.parts.push_back(ir::BasicUnknownPart<S>{typename S::String(kDialect), "refusal",
                                              T::made(refusal_block(r))});
    note.member(m.parts.size() - 1, "refusal");
  }
  if (f.has[kAudio]) [[unlikely]] {  // {id}: an earlier audio answer, kept for OpenAI
    TW_TRY(json::as_object(f.e[kAudio], Path(path, "audio")));
    m.parts.push_back(ir::BasicUnknownPart<S>{typename S::String(kDialect),
                                              typename S::String(kUnknownAudioType),
                                              T::raw_json(f.e[kAudio])});
    note.member(m.parts.size() - 1, "audio");
  }
  if (f.has[kToolCalls]) {
    Path cp(path, "tool_calls");
    TW_ASSIGN(auto arr, json::as_array(f.e[kToolCalls], cp));
    ctx.last_turn_calls = arr.size();
    size_t i = 0;
    for (json::element c : arr) {
      std::string_view id;
      TW_ASSIGN(auto part, decode_tool_call<S>(c, Path(cp, i), id));
      if (!id.empty()) ctx.calls.insert(id);  // a non-function call's id can be answered too
      m.parts.push_back(std::move(part));
      note_source(note.req, note.message, m.parts.size() - 1, m.parts.size(), note.source,
                  "tool_calls", static_cast<uint32_t>(i++));
    }
  }
  if (f.has[kFunctionCall])
    warn(ctx.warnings, "dropped_legacy_function_call", Path(path, "function_call").str(),
         "the deprecated function_call field has no call id and is not translated");
  return Status::Ok();
}

template <class S>
Status decode_tool_message(const MsgFields& f, const Path& path, size_t source,
                           ir::BasicRequest<S>& req, Ctx& ctx) {
  Path idp(path, "tool_call_id");
  if (!f.has[kToolCallId]) return json::invalid(idp, "missing tool_call_id");
  TW_ASSIGN(auto id, json::as_string(f.e[kToolCallId], idp));
  if (id.empty()) return json::invalid(idp, "empty tool_call_id");
  if (!ctx.calls.contains(id))
    return json::invalid(
        idp, "tool result for call id '" + std::string(id) + "' matches no earlier tool call");
  ir::BasicToolResultPart<S> result;
  result.call_id = IrText<S>::keep(id);
  Path cp(path, "content");
  if (!f.has[kContent]) return json::invalid(cp, "missing content");
  TW_TRY(decode_content<S>(f.e[kContent], cp, false, result.content));
  // is_error convention: a leading "Error: " marks an error result (see README).
  if (!result.content.empty()) {
    if (auto* t = std::get_if<ir::BasicTextPart<S>>(&result.content.front());
        t && std::string_view(t->text).substr(0, kErrorPrefix.size()) == kErrorPrefix) {
      result.is_error = true;
      IrText<S>::drop_prefix(t->text, kErrorPrefix.size());
      if (t->text.empty()) result.content.erase(result.content.begin());
    }
  }
  // Consecutive tool messages form one IR tool message.
  if (req.messages.empty() || req.messages.back().role != ir::Role::tool) {
    req.messages.push_back(ir::BasicMessage<S>{ir::Role::tool, {}, {}});
    req.messages.back().parts.reserve(std::max<size_t>(ctx.last_turn_calls, 1));
  }
  req.messages.back().parts.push_back(std::move(result));
  // Each result is a whole tool message of the client's.
  note_last(req, req.messages.back().parts.size() - 1, source);
  return Status::Ok();
}

template <class S>
Status decode_message(json::element e, const Path& path, size_t source, ir::BasicRequest<S>& req,
                      Ctx& ctx) {
  TW_ASSIGN(auto msg, json::as_object(e, path));
  const MsgFields f = pick(msg, kMsgKeys);
  Path rp(path, "role");
  if (!f.has[kRole]) return json::invalid(rp, "missing role");
  TW_ASSIGN(auto role, json::as_string(f.e[kRole], rp));

  if (role == "tool") return decode_tool_message(f, path, source, req, ctx);

  ir::BasicMessage<S> m;
  const ChatNote<S> note{req, req.messages.size(), source, m};
  const size_t spans = req.source_map.spans.size();
  if (f.has[kName]) {
    TW_ASSIGN(auto n, json::as_string(f.e[kName], Path(path, "name")));
    m.name = IrText<S>::keep(n);
  }
  Path cp(path, "content");
  if (role == "system" || role == "developer") {
    if (!f.has[kContent]) return json::invalid(cp, "missing content");
    m.role = ir::Role::system;
    TW_TRY(decode_content<S>(f.e[kContent], cp, true, m.parts, note));
    if (req.messages.empty()) {            // leading system prompt
      req.source_map.spans.resize(spans);  // not an IR message
      if (!m.name.empty())
        warn(ctx.warnings, "dropped_system_name", Path(path, "name").str(),
             "a system message name is not kept");
      for (auto& p : m.parts)
        req.system.push_back(ir::BasicSystemPart<S>{
            std::move(std::get<ir::BasicTextPart<S>>(p).text), role == "developer"});
      return Status::Ok();
    }
    if (role == "developer")
      warn(ctx.warnings, "developer_as_system", rp.str(),
           "a mid-conversation developer message becomes a system message");
  } else if (role == "user") {
    if (!f.has[kContent]) return json::invalid(cp, "missing content");
    m.role = ir::Role::user;
    TW_TRY(decode_content<S>(f.e[kContent], cp, false, m.parts, note));
  } else if (role == "assistant") {
    m.role = ir::Role::assistant;
    TW_TRY(decode_assistant(f, path, m, ctx, note));
  } else {
    return json::invalid(rp, "unknown role '" + std::string(role) + "'");
  }
  if (req.source_map.spans.size() == spans) note.member(0, {});  // no parts: the message
  req.messages.push_back(std::move(m));
  return Status::Ok();
}

template <class S>
Status decode_tool(json::element e, const Path& path, ir::BasicRequest<S>& req) {
  using T = IrText<S>;
  TW_ASSIGN(auto obj, json::as_object(e, path));
  enum { kType, kFunction };
  static constexpr std::string_view kKeys[] = {"type", "function"};
  auto tf = pick(obj, kKeys);
  if (tf.has[kType] &&
      !(tf.e[kType].is_string() && tf.e[kType].get_string().value_unsafe() == "function")) {
    req.extra.push_back(
        ir::BasicExtraField<S>{typename S::String(kUnsupportedToolKey), T::raw_json(e)});
    return Status::Ok();
  }
  Path fp(path, "function");
  if (!tf.has[kFunction]) return json::invalid(fp, "missing function");
  TW_ASSIGN(auto f, json::as_object(tf.e[kFunction], fp));
  ir::BasicToolDefinition<S> def;
  for (auto [key, value] : f) {
    if (value.is_null()) continue;
    Path kp(fp, key);
    if (key == "name") {
      TW_ASSIGN(auto s, json::as_string(value, kp));
      // The API refuses such a name: so does its decoder (what decodes, encodes).
      if (!is_valid_tool_name(s, kMaxToolNameLength)) [[unlikely]]
        return invalid_tool_name(kDialect, s, kp.str());
      def.name = T::keep(s);
    } else if (key == "description") {
      TW_ASSIGN(auto s, json::as_string(value, kp));
      def.description = T::keep(s);
    } else if (key == "parameters") {
      TW_TRY(json::check_tool_schema(value, kp));
      def.input_schema = T::raw_json(value);
    } else if (key == "strict") {
      TW_ASSIGN(auto b, json::as_bool(value, kp));
      def.strict = b;
    }
  }
  if (def.name.empty()) return json::invalid(Path(fp, "name"), "missing function name");
  req.tools.push_back(std::move(def));
  return Status::Ok();
}

template <class S>
Status decode_tool_choice(json::element e, const Path& path, ir::BasicRequest<S>& req) {
  if (e.is_string()) {
    std::string_view s = e.get_string().value_unsafe();
    ir::BasicToolChoice<S> c;
    if (s == "auto")
      c.kind = ir::ToolChoice::Kind::auto_;
    else if (s == "none")
      c.kind = ir::ToolChoice::Kind::none;
    else if (s == "required")
      c.kind = ir::ToolChoice::Kind::required;
    else
      return json::invalid(path, "unknown tool_choice '" + std::string(s) + "'");
    req.tool_choice = c;
    return Status::Ok();
  }
  TW_ASSIGN(auto obj, json::as_object(e, path));
  json::element type, fn, name;
  if (json::get(obj, "type", type) && type.is_string() &&
      type.get_string().value_unsafe() == "function" && json::get(obj, "function", fn) &&
      fn.is_object() && json::get(fn.get_object().value_unsafe(), "name", name)) {
    TW_ASSIGN(auto n, json::as_string(name, Path(Path(path, "function"), "name")));
    req.tool_choice = ir::BasicToolChoice<S>{ir::ToolChoiceKind::tool, IrText<S>::keep(n)};
    return Status::Ok();
  }
  // allowed_tools, custom...: kept raw for a same-dialect passthrough.
  req.extra.push_back(ir::BasicExtraField<S>{"tool_choice", IrText<S>::raw_json(e)});
  return Status::Ok();
}

template <class S>
Status decode_stop(json::element e, const Path& path, ir::BasicRequest<S>& req) {
  if (e.is_string()) {
    req.stop.push_back(IrText<S>::keep(e.get_string().value_unsafe()));
    return Status::Ok();
  }
  TW_ASSIGN(auto arr, json::as_array(e, path));
  size_t i = 0;
  for (json::element s : arr) {
    TW_ASSIGN(auto v, json::as_string(s, Path(path, i++)));
    req.stop.push_back(IrText<S>::keep(v));
  }
  return Status::Ok();
}

constexpr SamplingKeys kSampling{.temperature = "temperature",
                                 .top_p = "top_p",
                                 .stream = "stream",
                                 .metadata = "metadata",
                                 .seed = "seed",
                                 .frequency_penalty = "frequency_penalty",
                                 .presence_penalty = "presence_penalty"};

constexpr RepeatRule kRepeatRules[] = {
    {"tools", kResetTools}, {"stop", kResetStop}, {"tool_choice", kResetToolChoice}};

}  // namespace

template <class S>
Status decode_request_into(std::string_view body, Warnings& warnings, ir::BasicRequest<S>& req) {
  using T = IrText<S>;
  const Path path;
  Ctx ctx{warnings, {}, 0};
  bool have_model = false, have_messages = false, have_max_completion = false;
  json::element messages, legacy_max;
  bool have_legacy_max = false;
  TW_TRY(decode_request_fields(
      body, kDialect, req, warnings, RepeatRules{kRepeatRules, kUnsupportedToolKey},
      [&](std::string_view key, json::element value, const Path& kp) -> Status {
        if (key == "messages") {
          messages = value;
          have_messages = true;
          return Status::Ok();
        }
        if (value.is_null()) return Status::Ok();  // explicit null = absent
        TW_ASSIGN(bool taken, decode_openai_tool_field(key, value, kp, req, have_model,
                                                       decode_tool<S>, decode_tool_choice<S>));
        if (taken) return Status::Ok();
        if (key == "max_completion_tokens" || key == "max_tokens") {
          TW_ASSIGN(auto n, json::as_int64(value, kp));
          if (key == "max_completion_tokens" || !have_max_completion) req.max_tokens = n;
          have_max_completion |= key == "max_completion_tokens";
          if (key == "max_tokens") {
            legacy_max = value;
            have_legacy_max = true;
          }
        } else if (key == "stop") {
          TW_TRY(decode_stop<S>(value, kp, req));
        } else if (key == "response_format") {
          TW_TRY(decode_response_format<S>(value, kp, req));
        } else if (key == "reasoning_effort") {
          TW_ASSIGN(auto effort, json::as_string(value, kp));
          req.reasoning.emplace().effort = T::keep(effort);
        } else if (key == "verbosity") {
          TW_ASSIGN(auto verbosity, json::as_string(value, kp));
          req.verbosity = T::keep(verbosity);
        } else if (key == kUnsupportedToolKey) {
          // Reserved: our own extra key for non-function tools.
          warn(warnings, "dropped_reserved_field", kp.str(),
               "this field name is reserved by toolwire");
        } else {
          TW_ASSIGN(bool taken, decode_sampling_field(kSampling, key, value, kp, req));
          if (!taken) req.extra.push_back(ir::BasicExtraField<S>{T::keep(key), T::raw_json(value)});
        }
        return Status::Ok();
      }));
  if (!have_model) return json::invalid(path, "missing required field 'model'");
  if (!have_messages) return json::invalid(path, "missing required field 'messages'");
  // Both limits given: max_completion_tokens is the IR's; max_tokens is kept
  // as it came (written back by OpenAI Chat, dropped with a warning elsewhere).
  if (have_max_completion && have_legacy_max) [[unlikely]]
    req.extra.push_back(ir::BasicExtraField<S>{T::keep("max_tokens"), T::raw_json(legacy_max)});
  Path mp(path, "messages");
  TW_ASSIGN(auto arr, json::as_array(messages, mp));
  req.messages.reserve(arr.size());
  begin_source_map(req, "messages");
  size_t i = 0;
  for (json::element m : arr) {
    TW_TRY(decode_message<S>(m, Path(mp, i), i, req, ctx));
    ++i;
  }
  end_source_map(req);
  return Status::Ok();
}

TW_INSTANTIATE_REQUEST_DECODER;

}  // namespace toolwire::dialects::openai_chat
