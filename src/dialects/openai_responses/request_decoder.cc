// OpenAI Responses request JSON (`POST /v1/responses`) → IR request.
//
// `input` is a string or a list of items; consecutive model-side items
// (assistant messages, function calls, reasoning) form one IR assistant
// message, consecutive function_call_output items one IR tool message.
// Written once for both IR policies (IrText<S>).
#include <algorithm>

#include "dialects/common/openai_request.h"
#include "dialects/common/request_fields.h"
#include "dialects/common/sampling.h"
#include "dialects/common/tool_schema.h"
#include "dialects/openai_responses/structured_output.h"
#include "dialects/openai_responses/wire.h"
#include "toolwire/dialects/tool_rules.h"

namespace toolwire::dialects::openai_responses {
namespace {

using json::Path;

struct Ctx {
  Warnings& warnings;
  SeenIds calls;
  // previous_response_id or conversation: the calls being answered may live
  // in the stored conversation, not in `input`.
  bool stored_context = false;
};

template <class S>
ir::BasicMessage<S>& message_of(ir::BasicRequest<S>& req, ir::Role role) {
  if (req.messages.empty() || req.messages.back().role != role)
    req.messages.push_back(ir::BasicMessage<S>{role, {}, {}});
  return req.messages.back();
}

template <class S>
Status decode_message(json::object obj, const Path& path, ir::BasicRequest<S>& req, Ctx& ctx) {
  enum { kRole, kContent };
  static constexpr std::string_view kKeys[] = {"role", "content"};
  auto f = pick(obj, kKeys);
  Path rp(path, "role"), cp(path, "content");
  if (!f.has[kRole]) return json::invalid(rp, "missing role");
  TW_ASSIGN(auto role, json::as_string(f.e[kRole], rp));
  if (!f.has[kContent]) return json::invalid(cp, "missing content");
  if (role == "assistant")
    return decode_message_content<S>(f.e[kContent], cp, true, false,
                                     message_of(req, ir::Role::assistant).parts, ctx.warnings);
  if (role == "user") {
    ir::BasicMessage<S> m{ir::Role::user, {}, {}};
    TW_TRY(decode_message_content<S>(f.e[kContent], cp, false, false, m.parts, ctx.warnings));
    req.messages.push_back(std::move(m));
    return Status::Ok();
  }
  if (role != "system" && role != "developer")
    return json::invalid(rp, "unknown role '" + std::string(role) + "'");
  ir::BasicMessage<S> m{ir::Role::system, {}, {}};
  TW_TRY(decode_message_content<S>(f.e[kContent], cp, false, true, m.parts, ctx.warnings));
  if (req.messages.empty()) {  // the leading system prompt
    for (auto& p : m.parts)
      req.system.push_back(ir::BasicSystemPart<S>{std::move(std::get<ir::BasicTextPart<S>>(p).text),
                                                  role == "developer"});
    return Status::Ok();
  }
  if (role == "developer")
    warn(ctx.warnings, "developer_as_system", rp,
         "a mid-conversation developer message becomes a system message");
  req.messages.push_back(std::move(m));
  return Status::Ok();
}

template <class S>
Status decode_call_output_item(json::object obj, const Path& path, ir::BasicRequest<S>& req,
                               Ctx& ctx) {
  enum { kCallId, kOutput };
  static constexpr std::string_view kKeys[] = {"call_id", "output"};
  auto f = pick(obj, kKeys);
  Path idp(path, "call_id");
  if (!f.has[kCallId]) return json::invalid(idp, "missing call_id");
  TW_ASSIGN(auto id, json::as_string(f.e[kCallId], idp));
  if (id.empty()) return json::invalid(idp, "empty call_id");
  if (!ctx.stored_context && !ctx.calls.contains(id))
    return json::invalid(idp, "function_call_output for call id '" + std::string(id) +
                                  "' matches no earlier function_call");
  ir::BasicToolResultPart<S> result;
  result.call_id = IrText<S>::keep(id);
  Path op(path, "output");
  if (!f.has[kOutput]) return json::invalid(op, "missing output");
  TW_TRY(decode_call_output<S>(f.e[kOutput], op, result, ctx.warnings));
  message_of(req, ir::Role::tool).parts.push_back(std::move(result));
  return Status::Ok();
}

// Notes where the parts that item `index` added came from: the item, or its
// content's elements when each made one part (else its content as a whole).
template <class S>
void note_item(ir::BasicRequest<S>& req, json::element item, size_t index, size_t messages,
               size_t parts) {
  if (req.messages.empty()) return;  // a leading system item: Request::system
  const size_t m = req.messages.size() - 1;
  const size_t first = req.messages.size() > messages ? 0 : parts;
  const size_t end = req.messages.back().parts.size();
  if (end == first && req.messages.size() == messages) return;  // added nothing
  json::element content, type;
  const bool message =
      item.is_object() && (!json::get(item.get_object().value_unsafe(), "type", type) ||
                           (type.is_string() && type.get_string().value_unsafe() == "message"));
  if (!message || !json::get(item.get_object().value_unsafe(), "content", content)) {
    note_source(req, m, first, end, index);
    return;
  }
  if (content.is_array() && content.get_array().value_unsafe().size() == end - first) {
    note_source(req, m, first, first, index);  // the message, if it has no parts
    for (size_t n = first; n < end; ++n)
      note_source(req, m, n, n + 1, index, "content", static_cast<uint32_t>(n - first));
    return;
  }
  note_source(req, m, first, end, index, "content");
}

template <class S>
Status decode_item(json::element e, const Path& path, ir::BasicRequest<S>& req, Ctx& ctx) {
  TW_ASSIGN(auto obj, json::as_object(e, path));
  json::element type_el;
  std::string_view type = "message";  // an "easy" input message has no type
  if (json::get(obj, "type", type_el)) {
    TW_ASSIGN(auto t, json::as_string(type_el, Path(path, "type")));
    type = t;
  } else if (is_bare_reference(obj)) {
    type = kItemReference;
  }
  if (type == "message") return decode_message(obj, path, req, ctx);
  if (type == "function_call_output") return decode_call_output_item(obj, path, req, ctx);
  if (type == kItemReference) {
    // Kept for a gateway to resolve from its response store; the calls that
    // later outputs answer may be among the items it names.
    json::element id;
    if (!json::get(obj, "id", id)) return json::invalid(Path(path, "id"), "missing id");
    if (!id.is_string()) return json::as_string(id, Path(path, "id")).error();
    ctx.stored_context = true;
  }
  if (is_answer_item_type(type)) {  // computer_call_output, item_reference...: kept raw
    message_of(req, ir::Role::user).parts.push_back(unknown_item<S>(e, type));
    return Status::Ok();
  }
  ItemCtx ic{ctx.warnings, &ctx.calls};
  return decode_model_item<S>(e, type, path, message_of(req, ir::Role::assistant).parts, ic);
}

// A flat function tool {type, name, description, parameters, strict}; any
// other type (web_search, file_search, computer_use_preview, mcp, custom...)
// is kept raw: written back by this dialect only, refused by the others.
template <class S>
Status decode_tool(json::element e, const Path& path, ir::BasicRequest<S>& req) {
  using T = IrText<S>;
  TW_ASSIGN(auto obj, json::as_object(e, path));
  enum { kType, kName, kDescription, kParameters, kStrict };
  static constexpr std::string_view kKeys[] = {"type", "name", "description", "parameters",
                                               "strict"};
  auto f = pick(obj, kKeys);
  Path tp(path, "type");
  if (!f.has[kType]) return json::invalid(tp, "missing tool type");
  TW_ASSIGN(auto type, json::as_string(f.e[kType], tp));
  if (type != "function") {
    req.extra.push_back(
        ir::BasicExtraField<S>{typename S::String(kProviderToolKey), T::raw_json(e)});
    return Status::Ok();
  }
  ir::BasicToolDefinition<S> def;
  Path np(path, "name");
  if (!f.has[kName]) return json::invalid(np, "missing function name");
  TW_ASSIGN(auto name, json::as_string(f.e[kName], np));
  if (!is_valid_tool_name(name, kMaxToolNameLength)) [[unlikely]]
    return invalid_tool_name(kDialect, name, np.str());
  def.name = T::keep(name);
  if (f.has[kDescription]) {
    TW_ASSIGN(auto d, json::as_string(f.e[kDescription], Path(path, "description")));
    def.description = T::keep(d);
  }
  if (f.has[kParameters]) {
    Path pp(path, "parameters");
    TW_TRY(json::check_tool_schema(f.e[kParameters], pp));
    def.input_schema = T::raw_json(f.e[kParameters]);
  }
  if (f.has[kStrict]) {
    TW_ASSIGN(auto b, json::as_bool(f.e[kStrict], Path(path, "strict")));
    def.strict = b;
  }
  req.tools.push_back(std::move(def));
  return Status::Ok();
}

template <class S>
Status decode_tool_choice(json::element e, const Path& path, ir::BasicRequest<S>& req) {
  if (e.is_string()) {
    std::string_view s = e.get_string().value_unsafe();
    ir::BasicToolChoice<S> c;
    if (s == "auto")
      c.kind = ir::ToolChoiceKind::auto_;
    else if (s == "none")
      c.kind = ir::ToolChoiceKind::none;
    else if (s == "required")
      c.kind = ir::ToolChoiceKind::required;
    else
      return json::invalid(path, "unknown tool_choice '" + std::string(s) + "'");
    req.tool_choice = c;
    return Status::Ok();
  }
  TW_ASSIGN(auto obj, json::as_object(e, path));
  json::element type, name;
  if (json::get(obj, "type", type) && type.is_string() &&
      type.get_string().value_unsafe() == "function" && json::get(obj, "name", name)) {
    TW_ASSIGN(auto n, json::as_string(name, Path(path, "name")));
    req.tool_choice = ir::BasicToolChoice<S>{ir::ToolChoiceKind::tool, IrText<S>::keep(n)};
    return Status::Ok();
  }
  // allowed_tools, a built-in tool's type, mcp, custom: kept raw.
  req.extra.push_back(ir::BasicExtraField<S>{"tool_choice", IrText<S>::raw_json(e)});
  return Status::Ok();
}

// `reasoning {effort, summary}` (and the older `generate_summary`) into the
// IR; an object with other members stays an extra as it came.
template <class S>
Status decode_reasoning(json::element value, const Path& path, ir::BasicRequest<S>& req) {
  using T = IrText<S>;
  TW_ASSIGN(json::object obj, json::as_object(value, path));
  ir::BasicReasoning<S> r;
  for (auto [member, v] : obj) {
    const Path p(path, member);
    if (v.is_null()) continue;
    if (member != "effort" && member != "summary" && member != "generate_summary") {
      req.extra.push_back(ir::BasicExtraField<S>{"reasoning", T::raw_json(value)});
      return Status::Ok();
    }
    TW_ASSIGN(std::string_view text, json::as_string(v, p));
    (member == "effort" ? r.effort : r.summary) = T::keep(text);
  }
  req.reasoning = std::move(r);
  return Status::Ok();
}

constexpr SamplingKeys kSampling{.max_tokens = "max_output_tokens",
                                 .temperature = "temperature",
                                 .top_p = "top_p",
                                 .stream = "stream",
                                 .metadata = "metadata"};

constexpr RepeatRule kRepeatRules[] = {
    {"tools", kResetTools}, {"tool_choice", kResetToolChoice}, {"reasoning", kResetReasoning}};

}  // namespace

template <class S>
Status decode_request_into(std::string_view body, Warnings& warnings, ir::BasicRequest<S>& req) {
  using T = IrText<S>;
  const Path path;
  Ctx ctx{warnings, {}, false};
  bool have_model = false, have_input = false;
  json::element input, instructions;
  bool have_instructions = false;
  TW_TRY(decode_request_fields(
      body, kDialect, req, warnings, RepeatRules{kRepeatRules, kProviderToolKey},
      [&](std::string_view key, json::element value, const Path& kp) -> Status {
        if (value.is_null()) return Status::Ok();  // explicit null = absent
        TW_ASSIGN(bool taken, decode_openai_tool_field(key, value, kp, req, have_model,
                                                       decode_tool<S>, decode_tool_choice<S>));
        if (taken) return Status::Ok();
        if (key == "input") {
          input = value;
          have_input = true;
        } else if (key == "instructions") {
          if (!value.is_string()) return json::as_string(value, kp).error();
          instructions = value;
          have_instructions = true;
        } else if (key == kUnsupportedToolKey || key == kProviderToolKey) {
          warn(warnings, "dropped_reserved_field", kp, "this field name is reserved by toolwire");
        } else if (key == "text") {
          TW_TRY(decode_text_config<S>(value, kp, req));
        } else if (key == "reasoning") {
          TW_TRY(decode_reasoning<S>(value, kp, req));
        } else {
          TW_ASSIGN(bool taken, decode_sampling_field(kSampling, key, value, kp, req));
          if (taken) return Status::Ok();
          // previous_response_id and conversation stay extras (a same-dialect
          // passthrough keeps them; another dialect refuses previous_response_id);
          // store, text, reasoning, include, truncation, user...: extras.
          if (key == kPreviousResponseKey || key == kConversationKey) {
            if (key == kPreviousResponseKey && !value.is_string())
              return json::as_string(value, kp).error();
            ctx.stored_context = true;
          }
          req.extra.push_back(ir::BasicExtraField<S>{T::keep(key), T::raw_json(value)});
        }
        return Status::Ok();
      }));
  if (!have_model) return json::invalid(path, "missing required field 'model'");
  if (have_instructions) {
    std::string_view text = instructions.get_string().value_unsafe();
    if (!text.empty()) req.system.push_back(ir::BasicSystemPart<S>{T::keep(text), false});
  }
  if (!have_input) return Status::Ok();  // continuing a stored conversation, or a prompt
  Path ip(path, "input");
  if (input.is_string()) {
    ir::BasicMessage<S> m{ir::Role::user, {}, {}};
    std::string_view text = input.get_string().value_unsafe();
    if (!text.empty()) m.parts.push_back(ir::BasicTextPart<S>{T::keep(text)});
    req.messages.push_back(std::move(m));
    return Status::Ok();
  }
  TW_ASSIGN(auto arr, json::as_array(input, ip));
  req.messages.reserve(arr.size());
  begin_source_map(req, "input");
  size_t i = 0;
  for (json::element item : arr) {
    const size_t messages = req.messages.size();
    const size_t parts = messages ? req.messages.back().parts.size() : 0;
    TW_TRY(decode_item<S>(item, Path(ip, i), req, ctx));
    note_item(req, item, i++, messages, parts);
  }
  end_source_map(req);
  return Status::Ok();
}

TW_INSTANTIATE_REQUEST_DECODER;

}  // namespace toolwire::dialects::openai_responses
