// IR request → OpenAI Responses request JSON.
#include "dialects/common/request_size.h"
#include "dialects/common/request_tail.h"
#include "dialects/common/tool_schema.h"
#include "dialects/openai_responses/wire.h"
#include "toolwire/dialects/tool_rules.h"

namespace toolwire::dialects::openai_responses {
namespace {

template <class S>
struct Enc {
  JsonWriter& w;
  Warnings& warnings;
  size_t index = 0;  // IR message index, for warning paths
  size_t next_id = 0;

  std::string path() const { return "$.messages[" + std::to_string(index) + "]"; }

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
      warn(warnings, "dropped_participant_name", path(), "Responses messages carry no name");
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
      warn(warnings, "dropped_participant_name", path(), "Responses messages carry no name");
    ItemStyle style{false, {}, path()};
    write_model_items<S>(w, m.parts, style, next_id, warnings);
  }

  // One function_call_output per result: a single text as a string, else
  // input_text / input_image parts (images stay in their result).
  void tool(const ir::BasicMessage<S>& m) {
    for (const auto& p : m.parts) {
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

const TailRules kTail{
    .dialect = kDialect,
    .tool_choice_extra_yields = true,
    .unknown_field_suffix = " has no equivalent in OpenAI Responses",
    .unsupported_tool_message =
        [](std::string_view) {
          return std::string("a tool of another dialect has no OpenAI Responses form");
        },
};

template <class S>
Status write_tools(JsonWriter& w, const ir::BasicRequest<S>& req, bool same, bool raw_verified) {
  bool provider_tools = false;
  for (const auto& x : req.extra) provider_tools |= x.key == kProviderToolKey;
  if (req.tools.empty() && !(provider_tools && same)) return Status::Ok();
  const json::Path root, tools_path(root, "tools");
  w.key("tools");
  w.begin_array();
  for (size_t i = 0; i < req.tools.size(); ++i) {
    const ir::BasicToolDefinition<S>& t = req.tools[i];
    if (!is_valid_tool_name(t.name, kMaxToolNameLength)) [[unlikely]] {
      const json::Path tpath(tools_path, i), npath(tpath, "name");
      return invalid_tool_name(kDialect, t.name, npath.str());
    }
    if (!t.input_schema.empty() && (t.input_schema.front() != '{' || !raw_verified)) {
      const json::Path tpath(tools_path, i), ppath(tpath, "parameters");
      if (t.input_schema.front() != '{')
        return json::invalid(ppath, "tool input schema is not a JSON object");
      TW_TRY(json::check_tool_schema_text(t.input_schema, ppath));
    }
    w.begin_object();
    w.field("type", "function");
    w.field("name", t.name);
    if (!t.description.empty()) w.field("description", t.description);
    w.field_raw("parameters", t.input_schema.empty()
                                  ? std::string_view(R"({"type":"object","properties":{}})")
                                  : std::string_view(t.input_schema));
    // Responses makes a tool strict by default; the other dialects do not.
    if (t.strict)
      w.field("strict", *t.strict);
    else if (!same)
      w.field("strict", false);
    w.end_object();
  }
  if (same)
    for (const auto& x : req.extra)
      if (x.key == kProviderToolKey) w.raw(x.raw_json);
  w.end_array();
  return Status::Ok();
}

template <class S>
void write_tool_choice(JsonWriter& w, const ir::BasicToolChoice<S>& c) {
  w.key("tool_choice");
  switch (c.kind) {
    case ir::ToolChoiceKind::auto_:
      w.string("auto");
      return;
    case ir::ToolChoiceKind::none:
      w.string("none");
      return;
    case ir::ToolChoiceKind::required:
      w.string("required");
      return;
    case ir::ToolChoiceKind::tool:
      w.begin_object();
      w.field("type", "function");
      w.field("name", c.name);
      w.end_object();
      return;
  }
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
  // The first plain system part is `instructions`; the rest lead `input`.
  size_t first_input_system = 0;
  if (!req.system.empty() && !req.system.front().developer) {
    w.field("instructions", req.system.front().text);
    first_input_system = 1;
  }
  if (req.system.size() > first_input_system || !req.messages.empty()) {
    w.key("input");
    w.begin_array();
    Enc<S> enc{w, warnings};
    for (size_t i = first_input_system; i < req.system.size(); ++i)
      enc.text_message(req.system[i].developer ? "developer" : "system", req.system[i].text);
    for (const auto& m : req.messages) {
      switch (m.role) {
        case ir::Role::system:
          enc.user_like(m, "system");
          break;
        case ir::Role::user:
          enc.user_like(m, "user");
          break;
        case ir::Role::assistant:
          enc.assistant(m);
          break;
        case ir::Role::tool:
          enc.tool(m);
          break;
      }
      ++enc.index;
    }
    w.end_array();
  }
  TW_TRY(write_tools(w, req, same, options.raw_json_verified));
  if (req.tool_choice) write_tool_choice(w, *req.tool_choice);
  if (req.parallel_tool_calls) w.field("parallel_tool_calls", *req.parallel_tool_calls);
  if (req.max_tokens) w.field("max_output_tokens", *req.max_tokens);
  write_sampling(w, req);
  if (!req.stop.empty())
    warn(warnings, "dropped_stop", "$.stop", "OpenAI Responses has no stop sequences");
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

}  // namespace toolwire::dialects::openai_responses
