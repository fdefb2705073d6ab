// IR request → OpenAI Responses request JSON.
#include "dialects/common/openai_request.h"
#include "dialects/common/reasoning.h"
#include "dialects/common/request_object.h"
#include "dialects/common/request_size.h"
#include "dialects/common/request_tail.h"
#include "dialects/common/sampling.h"
#include "dialects/common/tool_definition.h"
#include "dialects/common/tool_schema.h"
#include "dialects/openai_responses/structured_output.h"
#include "dialects/openai_responses/wire.h"
#include "toolwire/dialects/tool_rules.h"

namespace toolwire::dialects::openai_responses {
namespace {

constexpr SamplingKeys kSampling{
    .max_tokens = "max_output_tokens", .temperature = "temperature", .top_p = "top_p"};

template <class S>
struct Enc {
  JsonWriter& w;
  Warnings& warnings;
  WarnAt<S> at;  // for warning paths
  size_t next_id = 0;

  std::string path() const { return at.path(); }

  void drop_part(std::string_view what) {
    warn(warnings, "dropped_part", path(),
         "a " + std::string(what) + " cannot be expressed in this Responses message");
  }

  void text_message(std::string_view role, std::string_view text) {
    w.begin_object();
    w.field("role", role);
    w.field("content", text);
    w.end_object();
  }

  // user / system / developer messages: one text as a string, else parts;
  // this dialect's items of their own (item_reference...) between them.
  void user_like(const ir::BasicMessage<S>& m, std::string_view role) {
    if (!m.name.empty())
      warn(warnings, "dropped_participant_name", at.path("name"),
           "Responses messages carry no name");
    size_t texts = 0, others = 0;
    for (const auto& p : m.parts) {
      if (auto* t = std::get_if<ir::BasicTextPart<S>>(&p))
        texts += !t->text.empty();
      else
        ++others;
    }
    if (others == 0) {
      if (texts <= 1) {
        std::string_view text;
        for (const auto& p : m.parts)
          if (auto* t = std::get_if<ir::BasicTextPart<S>>(&p); t && !t->text.empty())
            text = t->text;
        text_message(role, text);
        return;
      }
    }
    bool open = false;
    auto open_message = [&] {
      if (open) return;
      w.begin_object();
      w.field("role", role);
      w.key("content");
      w.begin_array();
      open = true;
    };
    auto close_message = [&] {
      if (!open) return;
      w.end_array();
      w.end_object();
      open = false;
    };
    for (const auto& p : m.parts) {
      at.part = &p;
      if (auto* t = std::get_if<ir::BasicTextPart<S>>(&p)) {
        if (t->text.empty()) continue;
        open_message();
        w.begin_object();
        w.field("type", "input_text");
        w.field("text", t->text);
        w.end_object();
      } else if (auto* img = std::get_if<ir::BasicImagePart<S>>(&p); img && role == "user") {
        open_message();
        write_image(w, *img);
      } else if (auto* u = std::get_if<ir::BasicUnknownPart<S>>(&p)) {
        if (u->dialect != kDialect) {
          warn(warnings, "dropped_unknown_part", path(),
               "dropped a '" + std::string(u->type) + "' block from " + std::string(u->dialect));
        } else if (!is_item_part(u->type)) {
          open_message();
          w.raw(u->raw_json);
        } else {
          close_message();
          w.raw(u->raw_json);  // an item of its own
        }
      } else {
        drop_part(role == "user" ? "non-text, non-image part" : "non-text part");
      }
    }
    close_message();
  }

  void assistant(const ir::BasicMessage<S>& m) {
    if (!m.name.empty())
      warn(warnings, "dropped_participant_name", at.path("name"),
           "Responses messages carry no name");
    ItemStyle style{false, {}, path()};
    write_model_items<S>(w, m.parts, style, next_id, warnings);
  }

  // One function_call_output per result: a single text as a string, else
  // input_text / input_image parts (images stay in their result).
  void tool(const ir::BasicMessage<S>& m) {
    for (const auto& p : m.parts) {
      at.part = &p;
      const auto* r = std::get_if<ir::BasicToolResultPart<S>>(&p);
      if (!r) {
        drop_part("non-tool-result part");
        continue;
      }
      size_t texts = 0, others = 0;
      std::string_view first_text;
      for (const auto& c : r->content) {
        if (auto* t = std::get_if<ir::BasicTextPart<S>>(&c)) {
          if (!t->text.empty() && texts++ == 0) first_text = t->text;
        } else if (auto* u = std::get_if<ir::BasicUnknownPart<S>>(&c);
                   u && u->dialect != kDialect) {
          warn(warnings, "dropped_unknown_part", path(),
               "dropped a '" + std::string(u->type) + "' block from " + std::string(u->dialect));
        } else {
          ++others;
        }
      }
      std::string prefixed;
      if (r->is_error) {
        prefixed.append(kErrorPrefix).append(first_text);
        first_text = prefixed;
      }
      w.begin_object();
      w.field("type", "function_call_output");
      w.field("call_id", r->call_id);
      w.key("output");
      if (others == 0 && texts <= 1) {
        w.string(first_text);
      } else {
        w.begin_array();
        auto text_part = [&](std::string_view t) {
          w.begin_object();
          w.field("type", "input_text");
          w.field("text", t);
          w.end_object();
        };
        bool first = true;
        if (r->is_error && texts == 0) {
          text_part(first_text);
          first = false;
        }
        for (const auto& c : r->content) {
          if (auto* t = std::get_if<ir::BasicTextPart<S>>(&c)) {
            if (t->text.empty()) continue;
            text_part(first ? first_text : std::string_view(t->text));
            first = false;
          } else if (auto* img = std::get_if<ir::BasicImagePart<S>>(&c)) {
            write_image(w, *img);
          } else if (auto* u = std::get_if<ir::BasicUnknownPart<S>>(&c);
                     u && u->dialect == kDialect) {
            w.raw(u->raw_json);
          }
        }
        w.end_array();
      }
      w.end_object();
    }
  }
};

// `reasoning {effort, summary}`.
template <class S>
void write_reasoning(JsonWriter& w, const ir::BasicReasoning<S>& r, std::string_view source,
                     Warnings& warnings) {
  const std::string_view effort =
      effort_to_write(r, kOpenAiEfforts, "OpenAI Responses", source, warnings);
  const std::string_view summary = r.summary;
  if (effort.empty() && summary.empty()) return;
  w.key("reasoning");
  w.begin_object();
  if (!effort.empty()) w.field("effort", effort);
  if (!summary.empty()) w.field("summary", summary);
  w.end_object();
}

const TailRules kTail{
    .dialect = kDialect,
    .sibling = "openai_chat",
    .shared_with_sibling = is_openai_shared_field,
    .tool_choice_extra_yields = true,
    .unknown_field_suffix = " has no equivalent in OpenAI Responses",
    .unsupported_tool_message =
        [](std::string_view) {
          return std::string("a tool of another dialect has no OpenAI Responses form");
        },
    .written_in_place = [](std::string_view key) { return key.starts_with(kTextPrefix); },
};

template <class S>
Status write_tools(JsonWriter& w, const ir::BasicRequest<S>& req, bool same, bool raw_verified) {
  if (req.tools.empty() && !has_raw_tools(req, same, kProviderToolKey)) return Status::Ok();
  const json::Path root, tools_path(root, "tools");
  w.key("tools");
  w.begin_array();
  for (size_t i = 0; i < req.tools.size(); ++i) {
    const ir::BasicToolDefinition<S>& t = req.tools[i];
    const json::Path tpath(tools_path, i);
    TW_ASSIGN(std::string_view schema,
              checked_tool_schema(t, kDialect, kMaxToolNameLength, raw_verified,
                                  json::Path(tpath, "name"), json::Path(tpath, "parameters")));
    w.begin_object();
    w.field("type", "function");
    w.field("name", t.name);
    if (!t.description.empty()) w.field("description", t.description);
    w.field_raw("parameters", schema);
    // Responses makes a tool strict by default; the other dialects do not.
    if (t.strict)
      w.field("strict", *t.strict);
    else if (!same)
      w.field("strict", false);
    w.end_object();
  }
  write_raw_tools(w, req, same, kProviderToolKey);
  w.end_array();
  return Status::Ok();
}

}  // namespace

template <class S>
Result<std::string> encode_request_from(const ir::BasicRequest<S>& req, Warnings& warnings,
                                        const EncodeOptions& options) {
  return write_request_object(req, kDialect, [&](JsonWriter& w, bool same) -> Status {
    w.field("model", req.model);
    // The first plain system part is `instructions`; the rest lead `input`.
    size_t first_input_system = 0;
    if (!req.system.empty() && !req.system.front().developer) {
      w.field("instructions", req.system.front().text);
      first_input_system = 1;
    }
    if (req.system.size() > first_input_system || !req.messages.empty()) {
      w.key("input");
      w.begin_array();
      Enc<S> enc{w, warnings, {source_places(req)}};
      for (size_t i = first_input_system; i < req.system.size(); ++i)
        enc.text_message(req.system[i].developer ? "developer" : "system", req.system[i].text);
      encode_by_role(req.messages, enc);
      w.end_array();
    }
    TW_TRY(write_tools(w, req, same, options.raw_json_verified));
    if (req.tool_choice) write_openai_tool_choice(w, *req.tool_choice, /*nested=*/false);
    if (req.parallel_tool_calls) w.field("parallel_tool_calls", *req.parallel_tool_calls);
    write_sampling(w, req, kSampling);
    warn_unsampled(req, {kSampling}, "OpenAI Responses", warnings);
    if (req.reasoning) write_reasoning(w, *req.reasoning, req.source_dialect, warnings);
    if (!req.stop.empty())
      warn(warnings, "dropped_stop", "$.stop", "OpenAI Responses has no stop sequences");
    TW_TRY(write_text_config(w, req, same, options.raw_json_verified));
    return write_request_tail(w, req, options.raw_json_verified, warnings, kTail);
  });
}

TW_INSTANTIATE_REQUEST_ENCODER;

}  // namespace toolwire::dialects::openai_responses
