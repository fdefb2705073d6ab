// IR request → Anthropic Messages request JSON.
#include "dialects/anthropic_messages/wire.h"
#include "dialects/common/call_id.h"
#include "dialects/common/request_size.h"
#include "dialects/common/request_tail.h"
#include "dialects/common/tool_schema.h"
#include "toolwire/core/json_valid.h"
#include "toolwire/dialects/tool_rules.h"

namespace toolwire::dialects::anthropic_messages {
namespace {

using ir::Role;
using json::Path;

const Path kRoot;

const TailRules kTail{
    .dialect = kDialect,
    .unknown_field_suffix = " has no Anthropic equivalent",
    .unsupported_tool_message =
        [](std::string_view source) {
          return "a " + std::string(source) + " tool of a kind Anthropic does not have was dropped";
        },
};

bool user_side(Role r) { return r == Role::user || r == Role::tool; }

// True when `part` becomes a block in a user-side Anthropic message.
template <class S>
bool user_part_emits(const ir::BasicPart<S>& part) {
  if (auto* t = std::get_if<ir::BasicTextPart<S>>(&part)) return !t->text.empty();
  if (auto* u = std::get_if<ir::BasicUnknownPart<S>>(&part)) return u->dialect == kDialect;
  return std::holds_alternative<ir::BasicImagePart<S>>(part) ||
         std::holds_alternative<ir::BasicToolResultPart<S>>(part);
}

template <class S>
bool result_content_emits(const ir::BasicResultContent<S>& c) {
  if (auto* t = std::get_if<ir::BasicTextPart<S>>(&c)) return !t->text.empty();
  if (auto* u = std::get_if<ir::BasicUnknownPart<S>>(&c)) return u->dialect == kDialect;
  return true;
}

template <class S>
void encode_tool_result(const ir::BasicToolResultPart<S>& r, const Path& path, JsonWriter& w,
                        Warnings& warnings) {
  w.begin_object();
  w.field("type", "tool_result");
  std::string scratch;
  w.field("tool_use_id", call_id::to_anthropic(r.call_id, scratch));
  size_t emitted = 0;
  const ir::BasicTextPart<S>* only_text = nullptr;
  for (const auto& c : r.content) {
    if (!result_content_emits(c)) continue;
    ++emitted;
    only_text = std::get_if<ir::BasicTextPart<S>>(&c);
  }
  if (emitted == 1 && only_text) {
    w.field("content", only_text->text);  // the plain-string form
  } else if (emitted > 0) {
    w.key("content");
    w.begin_array();
    for (const auto& c : r.content) {
      if (auto* t = std::get_if<ir::BasicTextPart<S>>(&c)) {
        if (t->text.empty()) continue;
        w.begin_object();
        w.field("type", "text");
        w.field("text", t->text);
        w.end_object();
      } else if (auto* img = std::get_if<ir::BasicImagePart<S>>(&c)) {
        encode_image(*img, path, w, warnings);
      } else if (auto* u = std::get_if<ir::BasicUnknownPart<S>>(&c)) {
        if (u->dialect == kDialect) w.raw(u->raw_json);
      }
    }
    w.end_array();
  }
  for (const auto& c : r.content) {
    auto* u = std::get_if<ir::BasicUnknownPart<S>>(&c);
    if (u && u->dialect != kDialect)
      warn(warnings, "dropped_unknown_part", path,
           "'" + std::string(u->type) + "' tool result content from " + std::string(u->dialect) +
               " has no Anthropic equivalent");
  }
  if (r.is_error) w.field("is_error", true);
  w.end_object();
}

template <class S>
void encode_user_part(const ir::BasicPart<S>& part, const Path& path, JsonWriter& w,
                      Warnings& warnings) {
  if (auto* t = std::get_if<ir::BasicTextPart<S>>(&part)) {
    if (t->text.empty()) return;
    w.begin_object();
    w.field("type", "text");
    w.field("text", t->text);
    w.end_object();
  } else if (auto* img = std::get_if<ir::BasicImagePart<S>>(&part)) {
    encode_image(*img, path, w, warnings);
  } else if (auto* u = std::get_if<ir::BasicUnknownPart<S>>(&part)) {
    if (u->dialect == kDialect)
      w.raw(u->raw_json);
    else
      warn(warnings, "dropped_unknown_part", path,
           "'" + std::string(u->type) + "' content from " + std::string(u->dialect) +
               " has no Anthropic equivalent");
  } else if (!std::holds_alternative<ir::BasicToolResultPart<S>>(part)) {
    warn(warnings, "dropped_misplaced_part", path,
         "tool calls and thinking cannot appear in user content");
  }
}

template <class S>
bool part_emits(const ir::BasicPart<S>& part, bool user) {
  return user ? user_part_emits(part) : assistant_part_emits(part, /*in_request=*/true);
}

// Whether a message writes at least one block; one that writes none is
// dropped (Anthropic rejects empty content).
template <class S>
bool message_emits(const ir::BasicMessage<S>& m) {
  if (m.role == Role::system) return false;
  const bool user = user_side(m.role);
  for (const auto& p : m.parts)
    if (part_emits(p, user)) return true;
  return false;
}

// Whether msgs[k] of a group of side `user` contributes to it: a group spans
// system messages (moved to the top level) and dropped empty messages of the
// other side, which contribute nothing.
template <class S>
bool in_group(const ir::BasicMessage<S>& m, bool user) {
  return m.role != Role::system && user_side(m.role) == user;
}

// The group's only block when that is one text part (written as a string).
template <class S>
const ir::BasicTextPart<S>* single_text(
    const typename S::template Vector<ir::BasicMessage<S>>& msgs, size_t i, size_t j, bool user) {
  const ir::BasicTextPart<S>* found = nullptr;
  for (size_t k = i; k < j; ++k) {
    if (!in_group(msgs[k], user)) continue;
    for (const auto& p : msgs[k].parts) {
      if (!part_emits(p, user)) continue;
      auto* t = std::get_if<ir::BasicTextPart<S>>(&p);
      if (!t || found) return nullptr;
      found = t;
    }
  }
  return found;
}

// Writes messages[i, j) — consecutive IR messages mapping to one Anthropic
// role — as one message; tool_result blocks first, as Anthropic requires.
template <class S>
void encode_group(const typename S::template Vector<ir::BasicMessage<S>>& msgs, size_t i, size_t j,
                  const Path& msgs_path, bool raw_verified, JsonWriter& w, Warnings& warnings) {
  const bool user = user_side(msgs[i].role);
  w.begin_object();
  w.field("role", user ? "user" : "assistant");
  w.key("content");
  const ir::BasicTextPart<S>* only = single_text<S>(msgs, i, j, user);
  if (only)
    w.string(only->text);  // Anthropic's shorthand for one text block
  else
    w.begin_array();
  for (int pass = user ? 0 : 1; pass < 2; ++pass) {
    for (size_t k = i; k < j; ++k) {
      const ir::BasicMessage<S>& m = msgs[k];
      if (!in_group(m, user)) continue;
      const Path mpath(msgs_path, k);
      if (pass == (user ? 0 : 1) && !m.name.empty())
        warn(warnings, "dropped_message_name", mpath,
             "Anthropic messages have no participant name");
      const Path parts_path(mpath, "content");
      for (size_t n = 0; n < m.parts.size(); ++n) {
        const ir::BasicPart<S>& part = m.parts[n];
        // With the shorthand, only parts that write nothing (but may warn) remain.
        if (only && part_emits(part, user)) continue;
        const Path ppath(parts_path, n);
        const auto* result = std::get_if<ir::BasicToolResultPart<S>>(&part);
        if (!user)
          encode_assistant_part(part, /*in_request=*/true, raw_verified, ppath, w, warnings);
        else if (pass == 0 && result)
          encode_tool_result(*result, ppath, w, warnings);
        else if (pass == 1 && !result)
          encode_user_part(part, ppath, w, warnings);
      }
    }
  }
  if (!only) w.end_array();
  w.end_object();
}

template <class S>
void encode_messages(const ir::BasicRequest<S>& req, bool raw_verified, JsonWriter& w,
                     Warnings& warnings) {
  const auto& msgs = req.messages;
  const Path path(kRoot, "messages");
  w.key("messages");
  w.begin_array();
  size_t i = 0;
  while (i < msgs.size()) {
    if (msgs[i].role == Role::system) {  // moved to the top-level system
      ++i;
      continue;
    }
    if (!message_emits(msgs[i])) {
      warn(warnings, "dropped_empty_message", Path(path, i),
           "a message with no content Anthropic accepts was dropped");
      ++i;
      continue;
    }
    // The group runs to the next message of the other side that writes
    // something: dropping an empty message first makes its neighbours one
    // message, as decoding this output and encoding it again would.
    const bool user = user_side(msgs[i].role);
    size_t j = i + 1;
    for (; j < msgs.size(); ++j) {
      const ir::BasicMessage<S>& m = msgs[j];
      if (m.role == Role::system || user_side(m.role) == user) continue;
      if (message_emits(m)) break;
      warn(warnings, "dropped_empty_message", Path(path, j),
           "a message with no content Anthropic accepts was dropped");
    }
    encode_group<S>(msgs, i, j, path, raw_verified, w, warnings);
    i = j;
  }
  w.end_array();
}

template <class S>
void encode_system(const ir::BasicRequest<S>& req, JsonWriter& w, Warnings& warnings) {
  std::vector<std::string_view> texts;
  bool developer = false;
  for (const auto& s : req.system) {
    if (!s.text.empty()) texts.push_back(s.text);
    developer |= s.developer;
  }
  if (developer)
    warn(warnings, "dropped_developer_flag", Path(kRoot, "system"),
         "Anthropic has no developer role; developer instructions were sent as system text");
  size_t direct = texts.size();
  const Path msgs_path(kRoot, "messages");
  for (size_t i = 0; i < req.messages.size(); ++i) {
    const ir::BasicMessage<S>& m = req.messages[i];
    if (m.role != Role::system) continue;
    const Path mpath(msgs_path, i);
    warn(warnings, "moved_system_message", mpath,
         "Anthropic has no mid-conversation system messages; its text was appended to the "
         "top-level system");
    for (const auto& p : m.parts)
      if (auto* t = std::get_if<ir::BasicTextPart<S>>(&p); t && !t->text.empty())
        texts.push_back(t->text);
  }
  if (texts.empty()) return;
  w.key("system");
  if (texts.size() == 1 && direct == 1) {
    w.string(texts[0]);
    return;
  }
  w.begin_array();
  for (std::string_view t : texts) {
    w.begin_object();
    w.field("type", "text");
    w.field("text", t);
    w.end_object();
  }
  w.end_array();
}

template <class S>
Status encode_tools(const ir::BasicRequest<S>& req, bool same, bool raw_verified, JsonWriter& w,
                    Warnings& warnings) {
  size_t unsupported = 0;
  for (const auto& e : req.extra)
    if (e.key == kUnsupportedToolKey && same) ++unsupported;
  if (req.tools.empty() && unsupported == 0) return Status::Ok();
  const Path path(kRoot, "tools");
  w.key("tools");
  w.begin_array();
  bool warned_strict = false;
  for (size_t i = 0; i < req.tools.size(); ++i) {
    const ir::BasicToolDefinition<S>& t = req.tools[i];
    const Path tpath(path, i);
    std::string_view schema = t.input_schema;
    if (schema.empty()) schema = R"({"type":"object","properties":{}})";
    if (!is_valid_tool_name(t.name, kMaxToolNameLength)) [[unlikely]]
      return invalid_tool_name(kDialect, t.name, Path(tpath, "name").str());
    if (schema.front() != '{')
      return json::invalid(Path(tpath, "input_schema"), "tool input schema is not a JSON object");
    if (!raw_verified) TW_TRY(json::check_tool_schema_text(schema, Path(tpath, "input_schema")));
    w.begin_object();
    w.field("name", t.name);
    if (!t.description.empty()) w.field("description", t.description);
    w.field_raw("input_schema", schema);
    if (t.strict && same) {
      w.field("strict", *t.strict);
    } else if (t.strict.value_or(false) && !warned_strict) {
      warned_strict = true;
      warn(warnings, "dropped_tool_strict", tpath,
           "the 'strict' tool flag is not sent to Anthropic");
    }
    w.end_object();
  }
  if (same)
    for (const auto& e : req.extra)
      if (e.key == kUnsupportedToolKey) w.raw(e.raw_json);
  w.end_array();
  return Status::Ok();
}

template <class S>
void encode_tool_choice(const ir::BasicRequest<S>& req, JsonWriter& w) {
  const std::optional<bool>& parallel = req.parallel_tool_calls;
  if (!req.tool_choice) {
    if (parallel == false) {
      w.key("tool_choice");
      w.begin_object();
      w.field("type", "auto");
      w.field("disable_parallel_tool_use", true);
      w.end_object();
    }
    return;
  }
  using Kind = ir::ToolChoiceKind;
  const ir::BasicToolChoice<S>& c = *req.tool_choice;
  w.key("tool_choice");
  w.begin_object();
  switch (c.kind) {
    case Kind::auto_:
      w.field("type", "auto");
      break;
    case Kind::required:
      w.field("type", "any");
      break;
    case Kind::none:
      w.field("type", "none");
      break;
    case Kind::tool:
      w.field("type", "tool");
      w.field("name", c.name);
      break;
  }
  if (parallel && c.kind != Kind::none) w.field("disable_parallel_tool_use", !*parallel);
  w.end_object();
}

}  // namespace

template <class S>
Result<std::string> encode_request_from(const ir::BasicRequest<S>& req, Warnings& warnings,
                                        const EncodeOptions& options) {
  const bool same = req.source_dialect == kDialect;
  std::string out;
  out.reserve(estimate_request_json_size(req));
  JsonWriter w(out);
  w.begin_object();
  w.field("model", req.model);
  if (req.max_tokens) {
    w.field("max_tokens", *req.max_tokens);
  } else {
    w.field("max_tokens", kDefaultMaxTokens);
    warn(warnings, "defaulted_max_tokens", Path(kRoot, "max_tokens"),
         "Anthropic requires max_tokens; defaulted to " + std::to_string(kDefaultMaxTokens));
  }
  encode_system(req, w, warnings);
  encode_messages(req, options.raw_json_verified, w, warnings);
  TW_TRY(encode_tools(req, same, options.raw_json_verified, w, warnings));
  encode_tool_choice(req, w);
  if (!req.stop.empty()) {
    w.key("stop_sequences");
    w.begin_array();
    for (const auto& s : req.stop) w.string(s);
    w.end_array();
  }
  write_sampling(w, req);
  TW_TRY(write_request_tail(w, req, options.raw_json_verified, warnings, kTail));
  w.end_object();
  return out;
}

template Result<std::string> encode_request_from<ir::Owning>(const ir::Request&, Warnings&,
                                                             const EncodeOptions&);
template Result<std::string> encode_request_from<Borrowed>(const ir::BasicRequest<Borrowed>&,
                                                           Warnings&, const EncodeOptions&);

Result<std::string> encode_request(const ir::Request& req, Warnings& warnings,
                                   const EncodeOptions& options) {
  return encode_request_from(req, warnings, options);
}

}  // namespace toolwire::dialects::anthropic_messages
