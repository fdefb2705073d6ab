// IR request → Gemini generateContent request JSON. The model and the stream
// flag are not written: the URL carries them (the dialect entry's paths).
#include "dialects/common/reasoning.h"
#include "dialects/common/request_object.h"
#include "dialects/common/request_size.h"
#include "dialects/common/request_tail.h"
#include "dialects/common/sampling.h"
#include "dialects/common/turns.h"
#include "dialects/common/unknown_part.h"
#include "dialects/gemini/structured_output.h"
#include "dialects/gemini/wire.h"
#include "toolwire/core/json_valid.h"

namespace toolwire::dialects::gemini {
namespace {

using ir::Role;
using json::Path;

constexpr SamplingKeys kSampling{.max_tokens = "maxOutputTokens",
                                 .temperature = "temperature",
                                 .top_p = "topP",
                                 .stop = "stopSequences",
                                 .seed = "seed",
                                 .top_k = "topK",
                                 .frequency_penalty = "frequencyPenalty",
                                 .presence_penalty = "presencePenalty"};

const Path kRoot;

// Call id → function name, for the functionResponse that answers the call.
template <class S>
struct CallNames {
  std::vector<std::pair<std::string_view, std::string_view>> list;
  std::string_view find(std::string_view id) const {
    for (auto it = list.rbegin(); it != list.rend(); ++it)
      if (it->first == id) return it->second;
    return {};
  }
};

template <class S>
bool part_emits(const ir::BasicPart<S>& part, bool user) {
  if (auto* t = std::get_if<ir::BasicTextPart<S>>(&part)) return !t->text.empty();
  if (auto* u = std::get_if<ir::BasicUnknownPart<S>>(&part)) return u->dialect == kDialect;
  if (user)
    return std::holds_alternative<ir::BasicImagePart<S>>(part) ||
           std::holds_alternative<ir::BasicToolResultPart<S>>(part);
  if (auto* t = std::get_if<ir::BasicThinkingPart<S>>(&part))
    return !t->redacted && (!t->text.empty() || !t->signature.empty());
  return std::holds_alternative<ir::BasicToolCallPart<S>>(part);
}

template <class S>
bool message_emits(const ir::BasicMessage<S>& m) {
  if (m.role == Role::system) return false;
  const bool user = user_side(m.role);
  for (const auto& p : m.parts)
    if (part_emits(p, user)) return true;
  return false;
}

// `text` as the whole `response` object when it is one (and not one the
// decoder would read as {"output"} / {"error"}), so a JSON result stays JSON.
bool json_object_text(std::string_view text) {
  if (text.empty() || text.front() != '{' || has_line_break(text)) return false;
  thread_local simdjson::dom::parser parser;
  json::element root;
  if (!parse_padded(parser, text, root) || !root.is_object()) return false;
  const json::object obj = root.get_object().value_unsafe();
  if (obj.size() == 0) return false;
  if (obj.size() == 1) {
    const std::string_view k = (*obj.begin()).key;
    if (k == "output" || k == "error") return false;
  }
  return true;
}

template <class S>
Status write_result(const ir::BasicToolResultPart<S>& r, const CallNames<S>& names, bool same,
                    const Path& path, JsonWriter& w, Warnings& warnings, const PlaceAt& at) {
  const std::string_view name = names.find(r.call_id);
  if (name.empty())
    return json::invalid(Path(path, "call_id"), "tool result answers no earlier tool call ('" +
                                                    std::string(r.call_id) +
                                                    "'): Gemini needs the call's function name");
  std::string scratch;
  TW_ASSIGN(std::string_view wire_name, gemini_name_or_error(name, scratch, path));
  // Texts are joined into one string (README: results with several texts).
  // One text (the common case) is used where it lies, without a copy.
  std::string joined_texts;
  std::string_view joined;
  size_t texts = 0, media = 0;
  for (const auto& c : r.content) {
    if (auto* t = std::get_if<ir::BasicTextPart<S>>(&c)) {
      if (t->text.empty()) continue;
      if (texts++ == 0) {
        joined = t->text;
        continue;
      }
      if (texts == 2) joined_texts.assign(joined);
      joined_texts.append("\n\n");
      joined_texts.append(t->text);
      joined = joined_texts;
    } else if (auto* u = std::get_if<ir::BasicUnknownPart<S>>(&c)) {
      if (u->dialect == kDialect)
        ++media;
      else
        warn_unknown_part(*u, "Gemini", "tool result content", path, warnings);
    } else {
      ++media;
    }
  }
  if (texts > 1)
    warn(warnings, "joined_result_texts", path,
         "a tool result's " + std::to_string(texts) +
             " texts were joined into one output string (blank lines between)");
  w.begin_object();
  w.key("functionResponse");
  w.begin_object();
  w.field("id", r.call_id);
  w.field("name", wire_name);
  w.key("response");
  // A Gemini result that was an object goes back as that object; another
  // dialect's text goes as the output string (no parse of every result).
  if (same && !r.is_error && texts == 1 && json_object_text(joined)) {
    w.raw(joined);
  } else {
    w.begin_object();
    w.field(r.is_error ? std::string_view("error") : std::string_view("output"), joined);
    w.end_object();
  }
  if (media > 0) {
    w.key("parts");
    w.begin_array();
    for (const auto& c : r.content) {
      if (auto* img = std::get_if<ir::BasicImagePart<S>>(&c))
        write_image(*img, path, w, warnings);
      else if (auto* u = std::get_if<ir::BasicUnknownPart<S>>(&c); u && u->dialect == kDialect)
        w.raw(u->raw_json);
    }
    w.end_array();
  }
  at.write_inner(w);  // willContinue, scheduling
  w.end_object();
  at.write(w);
  w.end_object();
  return Status::Ok();
}

template <class S>
void write_user_part(const ir::BasicPart<S>& part, const Path& path, JsonWriter& w,
                     Warnings& warnings, const PlaceAt& at) {
  if (auto* t = std::get_if<ir::BasicTextPart<S>>(&part)) {
    if (t->text.empty()) return;
    w.begin_object();
    w.field("text", t->text);
    at.write(w);
    w.end_object();
  } else if (auto* img = std::get_if<ir::BasicImagePart<S>>(&part)) {
    write_image(*img, path, w, warnings, at);
  } else if (auto* u = std::get_if<ir::BasicUnknownPart<S>>(&part)) {
    write_unknown_part(*u, kDialect, "Gemini", path, w, warnings);
  } else if (!std::holds_alternative<ir::BasicToolResultPart<S>>(part)) {
    warn(warnings, "dropped_misplaced_part", path,
         "tool calls and thinking cannot appear in user content");
  }
}

template <class S>
using Messages = typename S::template Vector<ir::BasicMessage<S>>;

// messages[i, j): consecutive IR messages of one Gemini role, as one content;
// a user turn's functionResponse parts first, so that the results of one
// model turn's parallel calls are one turn of N responses.
template <class S>
Status write_group(const Messages<S>& msgs, size_t i, size_t j, const Path& msgs_path, bool same,
                   bool raw_verified, CallNames<S>& names, std::vector<PlacedMember>* placed,
                   const SourcePlaces& places, JsonWriter& w, Warnings& warnings) {
  const bool user = user_side(msgs[i].role);
  w.begin_object();
  w.field("role", user ? "user" : "model");
  w.key("parts");
  w.begin_array();
  if (!user) {
    // One model turn: its parts as one list (the first call carries the signature).
    bool first = true;
    for (size_t k = i; k < j; ++k) {
      const ir::BasicMessage<S>& m = msgs[k];
      if (m.role != Role::assistant) continue;
      const json::SourcePlace mplace = places.at(k);
      const Path mpath(msgs_path, k, mplace);
      if (!m.name.empty())
        warn(warnings, "dropped_message_name", Path(mpath, "name"),
             "Gemini contents have no participant name");
      TW_ASSIGN(size_t n,
                write_model_parts<S>(m.parts, same || !first, /*in_request=*/true, raw_verified,
                                     Path(mpath, "content"), w, warnings, places, k, placed));
      if (n) first = false;
      for (const auto& p : m.parts)
        if (auto* c = std::get_if<ir::BasicToolCallPart<S>>(&p))
          names.list.emplace_back(c->id, c->name);
    }
  } else {
    for (int pass = 0; pass < 2; ++pass) {
      for (size_t k = i; k < j; ++k) {
        const ir::BasicMessage<S>& m = msgs[k];
        if (!user_side(m.role)) continue;
        const json::SourcePlace mplace = places.at(k);
        const Path mpath(msgs_path, k, mplace);
        if (pass == 1 && !m.name.empty())
          warn(warnings, "dropped_message_name", Path(mpath, "name"),
               "Gemini contents have no participant name");
        const Path parts_path(mpath, "content");
        for (size_t n = 0; n < m.parts.size(); ++n) {
          const json::SourcePlace pplace = places.at(k, n);
          const Path ppath(parts_path, n, pplace);
          const auto* result = std::get_if<ir::BasicToolResultPart<S>>(&m.parts[n]);
          const PlaceAt at{placed, kPlacedPart, k, n};
          if (pass == 0 && result)
            TW_TRY(write_result(*result, names, same, ppath, w, warnings, at));
          else if (pass == 1 && !result)
            write_user_part(m.parts[n], ppath, w, warnings, at);
        }
      }
    }
  }
  w.end_array();
  w.end_object();
  return Status::Ok();
}

template <class S>
Status write_contents(const ir::BasicRequest<S>& req, bool same, bool raw_verified, JsonWriter& w,
                      Warnings& warnings) {
  const Path path(kRoot, "messages");
  const SourcePlaces places = source_places(req);
  CallNames<S> names;
  // Part members the IR has no field for, kept from a Gemini request
  // (videoMetadata, mediaResolution, functionResponse.willContinue...).
  std::vector<PlacedMember> placed_members;
  if (same) placed_members = collect_placed(req.extra);
  std::vector<PlacedMember>* placed = placed_members.empty() ? nullptr : &placed_members;
  TW_TRY(write_turns(
      w, "contents", req.messages, path, "Gemini", warnings,
      [](const ir::BasicMessage<S>& m) { return message_emits(m); },
      [&](size_t i, size_t j) {
        return write_group<S>(req.messages, i, j, path, same, raw_verified, names, placed, places,
                              w, warnings);
      },
      places));
  for (const PlacedMember& m : placed_members)
    if (!m.written)  // its part is gone
      warn(warnings, "dropped_unknown_field", std::string(m.path),
           "field '" + std::string(m.name) + "' lost the part it came with");
  return Status::Ok();
}

template <class S>
void write_system(const ir::BasicRequest<S>& req, JsonWriter& w, Warnings& warnings) {
  const std::vector<std::string_view> texts =
      collect_system_texts(req, "Gemini", "systemInstruction", warnings).texts;
  if (texts.empty()) return;
  w.key("systemInstruction");
  w.begin_object();
  w.key("parts");
  write_text_objects(w, texts);
  w.end_object();
}

template <class S>
Status write_tools(const ir::BasicRequest<S>& req, bool same, JsonWriter& w, Warnings& warnings) {
  size_t unsupported = 0;
  for (const auto& e : req.extra) {
    if (e.key != kUnsupportedToolKey) continue;
    if (same)
      ++unsupported;
    else
      warn(warnings, "dropped_unsupported_tool", Path(kRoot, "tools"),
           "a " + std::string(req.source_dialect) +
               " tool of a kind Gemini does not have was dropped");
  }
  if (req.tools.empty() && unsupported == 0) return Status::Ok();
  const Path path(kRoot, "tools");
  w.key("tools");
  w.begin_array();
  if (!req.tools.empty()) {
    w.begin_object();
    w.key("functionDeclarations");
    w.begin_array();
    bool warned_strict = false;
    std::string schema, scratch;
    for (size_t i = 0; i < req.tools.size(); ++i) {
      const ir::BasicToolDefinition<S>& t = req.tools[i];
      const Path tpath(path, i);
      TW_ASSIGN(std::string_view name, gemini_name_or_error(t.name, scratch, Path(tpath, "name")));
      bool reduced = false;
      TW_TRY(encode_schema(t.input_schema, Path(tpath, "input_schema"), schema, &reduced));
      if (reduced)
        warn(warnings, "reduced_tool_schema", Path(tpath, "input_schema"),
             "the schema was reduced to Gemini's OpenAPI subset ($ref inlined; keywords outside "
             "it, such as additionalProperties, dropped)");
      w.begin_object();
      w.field("name", name);
      if (!t.description.empty()) w.field("description", t.description);
      if (!schema.empty()) w.field_raw("parameters", schema);
      w.end_object();
      if (t.strict.value_or(false) && !warned_strict) {
        warned_strict = true;
        warn(warnings, "dropped_tool_strict", tpath,
             "the 'strict' tool flag is not sent to Gemini");
      }
    }
    w.end_array();
    w.end_object();
  }
  write_raw_tools(w, req, same, kUnsupportedToolKey);
  w.end_array();
  return Status::Ok();
}

bool has_prefix(std::string_view key, std::string_view prefix) {
  return key.size() > prefix.size() && key.substr(0, prefix.size()) == prefix;
}

template <class S>
Status write_tool_config(const ir::BasicRequest<S>& req, bool same, JsonWriter& w,
                         Warnings& warnings) {
  constexpr std::string_view kPrefix = "toolConfig.";
  if (req.parallel_tool_calls == false)
    warn(warnings, "dropped_parallel_tool_calls", Path(kRoot, "parallel_tool_calls"),
         "Gemini cannot be asked for one tool call at most per turn");
  bool extras = false;
  if (same)
    for (const auto& e : req.extra) extras |= has_prefix(e.key, kPrefix);
  if (!req.tool_choice && !extras) return Status::Ok();
  w.key("toolConfig");
  w.begin_object();
  if (req.tool_choice) {
    using Kind = ir::ToolChoiceKind;
    const ir::BasicToolChoice<S>& c = *req.tool_choice;
    w.key("functionCallingConfig");
    w.begin_object();
    switch (c.kind) {
      case Kind::auto_:
        w.field("mode", "AUTO");
        break;
      case Kind::none:
        w.field("mode", "NONE");
        break;
      case Kind::required:
        w.field("mode", "ANY");
        break;
      case Kind::tool: {
        w.field("mode", "ANY");
        std::string scratch;
        TW_ASSIGN(std::string_view name,
                  gemini_name_or_error(c.name, scratch, Path(kRoot, "tool_choice")));
        w.key("allowedFunctionNames");
        w.begin_array();
        w.string(name);
        w.end_array();
        break;
      }
    }
    w.end_object();
  }
  if (same)
    for (const auto& e : req.extra)
      if (has_prefix(e.key, kPrefix))
        w.field_raw(std::string_view(e.key).substr(kPrefix.size()), e.raw_json);
  w.end_object();
  return Status::Ok();
}

// `thinkingConfig`'s members: the request's budget (from another dialect's
// effort word if it gave only that, approximated), -1 for a dynamic one; the
// level for this dialect's own requests; includeThoughts for a summary.
struct Thinking {
  std::optional<int64_t> budget;
  std::string_view level;
  bool include_thoughts = false;
  bool any() const { return budget || !level.empty() || include_thoughts; }
};
template <class S>
Thinking thinking_of(const ir::BasicRequest<S>& req, bool same, Warnings& warnings) {
  Thinking t;
  if (!req.reasoning) return t;
  const ir::BasicReasoning<S>& r = *req.reasoning;
  t.include_thoughts = !std::string_view(r.summary).empty();
  if (same) {
    t.budget = r.budget_tokens;
    if (!t.budget && r.enabled) t.budget = *r.enabled ? -1 : 0;
    t.level = r.effort;
    return t;
  }
  t.budget = budget_to_write(r, "Gemini", req.source_dialect, warnings);
  if (!t.budget && r.enabled == true) t.budget = -1;  // adaptive: Gemini's dynamic budget
  if (!t.budget && r.enabled == false)
    warn_reasoning(warnings, "approximated_reasoning", req.source_dialect,
                   "thinking turned off has no spelling every Gemini model takes (thinkingBudget "
                   "0 is refused by some); nothing sent, the model's default applies");
  return t;
}

template <class S>
Status write_generation_config(const ir::BasicRequest<S>& req, bool same, bool raw_verified,
                               JsonWriter& w, Warnings& warnings) {
  bool extras = has_response_format(req);
  if (same)
    for (const auto& e : req.extra) extras |= has_prefix(e.key, kGenerationConfigPrefix);
  const Thinking thinking = thinking_of(req, same, warnings);
  if (!has_sampling(req, kSampling) && !extras && !thinking.any()) return Status::Ok();
  w.key("generationConfig");
  w.begin_object();
  write_sampling(w, req, kSampling);
  if (thinking.any()) {
    w.key("thinkingConfig");
    w.begin_object();
    if (thinking.budget) w.field("thinkingBudget", *thinking.budget);
    if (!thinking.level.empty()) w.field("thinkingLevel", thinking.level);
    if (thinking.include_thoughts) w.field("includeThoughts", true);
    w.end_object();
  }
  TW_TRY(write_response_format(w, req, raw_verified, warnings));
  if (same)
    for (const auto& e : req.extra)
      if (has_prefix(e.key, kGenerationConfigPrefix))
        w.field_raw(std::string_view(e.key).substr(kGenerationConfigPrefix.size()), e.raw_json);
  w.end_object();
  return Status::Ok();
}

// Gemini takes the model and the stream flag in the URL, has no metadata,
// and writes x-unsupported-tool with its tools (write_tools) and the
// generationConfig.* / toolConfig.* extras inside those objects.
const TailRules kTail{
    .dialect = kDialect,
    .unknown_field_suffix = " has no Gemini equivalent",
    .written_in_place =
        [](std::string_view key) {
          return has_prefix(key, kGenerationConfigPrefix) || has_prefix(key, "toolConfig.");
        },
    .places_members = true,
};

}  // namespace

template <class S>
Result<std::string> encode_request_from(const ir::BasicRequest<S>& req, Warnings& warnings,
                                        const EncodeOptions& options) {
  return write_request_object(req, kDialect, [&](JsonWriter& w, bool same) -> Status {
    TW_TRY(write_contents(req, same, options.raw_json_verified, w, warnings));
    write_system(req, w, warnings);
    TW_TRY(write_tools(req, same, w, warnings));
    TW_TRY(write_tool_config(req, same, w, warnings));
    TW_TRY(write_generation_config(req, same, options.raw_json_verified, w, warnings));
    warn_no_verbosity(req, "Gemini", warnings);
    if (!req.metadata.empty())
      warn(warnings, "dropped_metadata", Path(kRoot, "metadata"),
           "Gemini requests have no metadata");
    return write_request_extras(w, req, warnings, kTail);
  });
}

TW_INSTANTIATE_REQUEST_ENCODER;

}  // namespace toolwire::dialects::gemini
