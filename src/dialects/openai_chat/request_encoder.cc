// IR request → OpenAI Chat Completions request JSON.
#include "dialects/common/openai_request.h"
#include "dialects/common/reasoning.h"
#include "dialects/common/request_object.h"
#include "dialects/common/request_size.h"
#include "dialects/common/request_tail.h"
#include "dialects/common/sampling.h"
#include "dialects/common/tool_definition.h"
#include "dialects/common/tool_schema.h"
#include "dialects/openai_chat/structured_output.h"
#include "dialects/openai_chat/wire.h"
#include "toolwire/core/json_valid.h"
#include "toolwire/dialects/tool_rules.h"

namespace toolwire::dialects::openai_chat {
namespace {

constexpr SamplingKeys kSampling{.max_tokens = "max_completion_tokens",
                                 .temperature = "temperature",
                                 .top_p = "top_p",
                                 .stop = "stop",
                                 .seed = "seed",
                                 .frequency_penalty = "frequency_penalty",
                                 .presence_penalty = "presence_penalty"};

template <class S>
struct Enc {
  JsonWriter& w;
  Warnings& warnings;
  bool same_dialect;
  WarnAt<S> at;  // for warning paths

  std::string path() const { return at.path(); }

  void drop_part(std::string_view what) {
    warn(warnings, "dropped_part", path(),
         "a " + std::string(what) + " cannot be expressed in this OpenAI message");
  }

  // An UnknownPart: written raw for our own dialect, else dropped.
  bool unknown_ok(const ir::BasicUnknownPart<S>& u) {
    if (u.dialect == kDialect) return true;
    warn(warnings, "dropped_unknown_part", path(),
         "dropped a '" + std::string(u.type) + "' block from " + std::string(u.dialect));
    return false;
  }

  void system_message(std::string_view role, std::string_view text) {
    w.begin_object();
    w.field("role", role);
    w.field("content", text);
    w.end_object();
  }

  // user/system messages: one text part as a string, else an array of parts.
  void user_like(const ir::BasicMessage<S>& m, std::string_view role) {
    size_t texts = 0, others = 0;
    for (const auto& p : m.parts) {
      if (auto* t = std::get_if<ir::BasicTextPart<S>>(&p))
        texts += !t->text.empty();
      else
        ++others;
    }
    w.begin_object();
    w.field("role", role);
    w.key("content");
    if (others == 0 && texts <= 1) {
      std::string_view text;
      for (const auto& p : m.parts)
        if (auto* t = std::get_if<ir::BasicTextPart<S>>(&p); t && !t->text.empty()) text = t->text;
      w.string(text);
    } else {
      w.begin_array();
      for (const auto& p : m.parts) {
        at.part = &p;
        if (auto* t = std::get_if<ir::BasicTextPart<S>>(&p)) {
          if (t->text.empty()) continue;
          w.begin_object();
          w.field("type", "text");
          w.field("text", t->text);
          w.end_object();
        } else if (auto* img = std::get_if<ir::BasicImagePart<S>>(&p); img && role == "user") {
          write_image_part(w, *img);
        } else if (auto* u = std::get_if<ir::BasicUnknownPart<S>>(&p)) {
          if (unknown_ok(*u)) w.raw(u->raw_json);
        } else {
          drop_part(role == "user" ? "non-text, non-image part" : "non-text part");
        }
      }
      w.end_array();
    }
    if (!m.name.empty()) w.field("name", m.name);
    w.end_object();
  }

  void assistant(const ir::BasicMessage<S>& m) {
    std::string reasoning;
    size_t texts = 0, unknown_content = 0, calls = 0;
    const ir::BasicUnknownPart<S>* audio = nullptr;  // the message's `audio` member
    for (const auto& p : m.parts) {
      at.part = &p;
      if (auto* t = std::get_if<ir::BasicTextPart<S>>(&p))
        texts += !t->text.empty();
      else if (auto* c = std::get_if<ir::BasicToolCallPart<S>>(&p)) {
        ++calls;
        if (!c->signature.empty())
          warn(warnings, "dropped_call_signature", path(),
               "OpenAI tool calls carry no provider signature; it was dropped");
      } else if (auto* u = std::get_if<ir::BasicUnknownPart<S>>(&p)) {
        if (u->type == kUnknownToolCallType && u->dialect == kDialect)
          ++calls;
        else if (u->type == kUnknownAudioType && u->dialect == kDialect)
          audio = u;
        else if (unknown_ok(*u))
          ++unknown_content;
      } else if (auto* th = std::get_if<ir::BasicThinkingPart<S>>(&p)) {
        if (th->redacted) {
          warn(warnings, "dropped_redacted_thinking", path(),
               "redacted thinking cannot be expressed in OpenAI Chat");
          continue;
        }
        if (!th->signature.empty())
          warn(warnings, "dropped_thinking_signature", path(),
               "reasoning_content carries no signature");
        if (!th->item_id.empty() || !th->encrypted_content.empty())
          warn(warnings, "dropped_reasoning_item", path(),
               "reasoning_content carries no Responses reasoning item id or encrypted content");
        reasoning += th->text;
      } else {
        drop_part("non-assistant part");
      }
    }
    w.begin_object();
    w.field("role", "assistant");
    w.key("content");
    if (unknown_content == 0 && texts <= 1) {
      const typename S::String* text = nullptr;
      for (const auto& p : m.parts)
        if (auto* t = std::get_if<ir::BasicTextPart<S>>(&p); t && !t->text.empty()) text = &t->text;
      if (text)
        w.string(*text);
      else if (calls || audio)
        w.null();
      else
        w.string("");
    } else {
      w.begin_array();
      for (const auto& p : m.parts) {
        if (auto* t = std::get_if<ir::BasicTextPart<S>>(&p); t && !t->text.empty()) {
          w.begin_object();
          w.field("type", "text");
          w.field("text", t->text);
          w.end_object();
        } else if (auto* u = std::get_if<ir::BasicUnknownPart<S>>(&p);
                   u && u->dialect == kDialect && u->type != kUnknownToolCallType &&
                   u->type != kUnknownAudioType) {
          w.raw(u->raw_json);
        }
      }
      w.end_array();
    }
    if (!reasoning.empty()) w.field("reasoning_content", reasoning);
    if (audio) [[unlikely]] {
      w.key("audio");
      w.raw(audio->raw_json);
    }
    if (calls) {
      w.key("tool_calls");
      w.begin_array();
      for (const auto& p : m.parts) {
        if (auto* c = std::get_if<ir::BasicToolCallPart<S>>(&p))
          write_tool_call(w, *c);
        else if (auto* u = std::get_if<ir::BasicUnknownPart<S>>(&p);
                 u && u->dialect == kDialect && u->type == kUnknownToolCallType)
          w.raw(u->raw_json);
      }
      w.end_array();
    }
    if (!m.name.empty()) w.field("name", m.name);
    w.end_object();
  }

  // One `tool` message per result; images move to a user message after them.
  void tool(const ir::BasicMessage<S>& m) {
    std::vector<const ir::BasicToolResultPart<S>*> with_images;
    for (const auto& p : m.parts) {
      at.part = &p;
      const auto* r = std::get_if<ir::BasicToolResultPart<S>>(&p);
      if (!r) {
        drop_part("non-tool-result part");
        continue;
      }
      // One pass to classify; the common result (one text) needs no list.
      size_t n_texts = 0;
      std::string_view first_text;
      bool images = false, raws = false;
      for (const auto& c : r->content) {
        if (auto* t = std::get_if<ir::BasicTextPart<S>>(&c)) {
          if (!t->text.empty() && n_texts++ == 0) first_text = t->text;
        } else if (std::holds_alternative<ir::BasicImagePart<S>>(c)) {
          images = true;
        } else if (auto* u = std::get_if<ir::BasicUnknownPart<S>>(&c); unknown_ok(*u)) {
          raws = true;
        }
      }
      if (images) with_images.push_back(r);
      const bool had_text = n_texts > 0;
      std::string prefixed;  // the error prefix goes on the first text (or stands alone)
      if (r->is_error) {
        prefixed.append(kErrorPrefix).append(first_text);
        first_text = prefixed;
        if (!had_text) n_texts = 1;
      }
      w.begin_object();
      w.field("role", "tool");
      w.field("tool_call_id", r->call_id);
      w.key("content");
      if (!raws && n_texts <= 1) {
        w.string(first_text);
      } else {
        w.begin_array();
        auto text_part = [&](std::string_view t) {
          w.begin_object();
          w.field("type", "text");
          w.field("text", t);
          w.end_object();
        };
        bool first = true;
        if (r->is_error && !had_text) {
          text_part(first_text);  // an error with no text of its own: the prefix alone
          first = false;
        }
        for (const auto& c : r->content)
          if (auto* t = std::get_if<ir::BasicTextPart<S>>(&c); t && !t->text.empty()) {
            text_part(first ? first_text : std::string_view(t->text));
            first = false;
          }
        for (const auto& c : r->content)  // (their warnings were given in the first pass)
          if (auto* u = std::get_if<ir::BasicUnknownPart<S>>(&c); u && u->dialect == kDialect)
            w.raw(u->raw_json);
        w.end_array();
      }
      w.end_object();
    }
    if (with_images.empty()) return;
    at.part = nullptr;
    warn(warnings, "tool_result_image_moved", path(),
         "OpenAI tool messages cannot hold images: they follow in a user message");
    w.begin_object();
    w.field("role", "user");
    w.key("content");
    w.begin_array();
    for (const auto* r : with_images) {
      w.begin_object();
      w.field("type", "text");
      w.field("text", "Image returned by tool call " + std::string(r->call_id) + ":");
      w.end_object();
      for (const auto& c : r->content)
        if (auto* img = std::get_if<ir::BasicImagePart<S>>(&c)) write_image_part(w, *img);
    }
    w.end_array();
    w.end_object();
  }
};

// `reasoning_effort`; Chat has no reasoning summary.
template <class S>
void write_reasoning(JsonWriter& w, const ir::BasicReasoning<S>& r, std::string_view source,
                     Warnings& warnings) {
  const std::string_view effort =
      effort_to_write(r, kOpenAiEfforts, "OpenAI Chat", source, warnings);
  if (!effort.empty()) w.field("reasoning_effort", effort);
  if (!std::string_view(r.summary).empty())
    warn_reasoning(warnings, "dropped_reasoning", source,
                   "OpenAI Chat returns no reasoning summary; summary '" +
                       std::string(std::string_view(r.summary)) + "' not sent");
}

const TailRules kTail{
    .dialect = kDialect,
    .sibling = "openai_responses",
    .shared_with_sibling = is_openai_shared_field,
    .tool_choice_extra_yields = true,
    .unknown_field_suffix = " has no equivalent in OpenAI Chat",
    .unsupported_tool_message =
        [](std::string_view) {
          return std::string("a tool of another dialect has no OpenAI form");
        },
};

template <class S>
Status write_tools(JsonWriter& w, const ir::BasicRequest<S>& req, bool same_dialect,
                   bool raw_verified) {
  if (req.tools.empty() && !has_raw_tools(req, same_dialect, kUnsupportedToolKey))
    return Status::Ok();
  const json::Path root, tools_path(root, "tools");
  w.key("tools");
  w.begin_array();
  for (size_t i = 0; i < req.tools.size(); ++i) {
    const ir::BasicToolDefinition<S>& t = req.tools[i];
    const json::Path tpath(tools_path, i), fpath(tpath, "function");
    TW_ASSIGN(std::string_view schema,
              checked_tool_schema(t, kDialect, kMaxToolNameLength, raw_verified,
                                  json::Path(fpath, "name"), json::Path(fpath, "parameters")));
    w.begin_object();
    w.field("type", "function");
    w.key("function");
    w.begin_object();
    w.field("name", t.name);
    if (!t.description.empty()) w.field("description", t.description);
    w.field_raw("parameters", schema);
    if (t.strict) w.field("strict", *t.strict);
    w.end_object();
    w.end_object();
  }
  write_raw_tools(w, req, same_dialect, kUnsupportedToolKey);
  w.end_array();
  return Status::Ok();
}

}  // namespace

template <class S>
Result<std::string> encode_request_from(const ir::BasicRequest<S>& req, Warnings& warnings,
                                        const EncodeOptions& options) {
  return write_request_object(req, kDialect, [&](JsonWriter& w, bool same) -> Status {
    w.field("model", req.model);
    w.key("messages");
    w.begin_array();
    Enc<S> enc{w, warnings, same, {source_places(req)}};
    for (const auto& s : req.system)
      enc.system_message(s.developer ? "developer" : "system", s.text);
    encode_by_role(req.messages, enc);
    w.end_array();
    TW_TRY(write_tools(w, req, same, options.raw_json_verified));
    if (req.tool_choice) write_openai_tool_choice(w, *req.tool_choice, /*nested=*/true);
    if (req.parallel_tool_calls) w.field("parallel_tool_calls", *req.parallel_tool_calls);
    write_sampling(w, req, kSampling);
    warn_unsampled(req, {kSampling}, "OpenAI Chat", warnings);
    if (req.reasoning) write_reasoning(w, *req.reasoning, req.source_dialect, warnings);
    if (!std::string_view(req.verbosity).empty()) w.field("verbosity", req.verbosity);
    TW_TRY(write_response_format(w, req, options.raw_json_verified));
    return write_request_tail(w, req, options.raw_json_verified, warnings, kTail);
  });
}

TW_INSTANTIATE_REQUEST_ENCODER;

}  // namespace toolwire::dialects::openai_chat
