// IR request → Bedrock Converse request JSON. The model is not written: it
// goes in the URL path (/model/{modelId}/converse), and so does streaming
// (/converse-stream).
#include "dialects/bedrock_converse/structured_output.h"
#include "dialects/bedrock_converse/wire.h"
#include "dialects/common/call_id.h"
#include "dialects/common/forced_output.h"
#include "dialects/common/reasoning.h"
#include "dialects/common/request_object.h"
#include "dialects/common/request_size.h"
#include "dialects/common/request_tail.h"
#include "dialects/common/sampling.h"
#include "dialects/common/tool_definition.h"
#include "dialects/common/tool_schema.h"
#include "dialects/common/turns.h"
#include "dialects/common/unknown_part.h"
#include "toolwire/core/json_valid.h"
#include "toolwire/dialects/tool_rules.h"

namespace toolwire::dialects::bedrock_converse {
namespace {

using ir::Role;
using json::Path;

constexpr SamplingKeys kSampling{.max_tokens = "maxTokens",
                                 .temperature = "temperature",
                                 .top_p = "topP",
                                 .stop = "stopSequences"};

const Path kRoot;

template <class S>
bool result_content_emits(const ir::BasicResultContent<S>& c) {
  if (auto* t = std::get_if<ir::BasicTextPart<S>>(&c)) return !t->text.empty();
  if (auto* u = std::get_if<ir::BasicUnknownPart<S>>(&c)) return u->dialect == kDialect;
  if (auto* i = std::get_if<ir::BasicImagePart<S>>(&c)) return image_emits(*i);
  return false;
}

template <class S>
bool user_part_emits(const ir::BasicPart<S>& part) {
  if (auto* t = std::get_if<ir::BasicTextPart<S>>(&part)) return !t->text.empty();
  if (auto* u = std::get_if<ir::BasicUnknownPart<S>>(&part)) return u->dialect == kDialect;
  if (auto* i = std::get_if<ir::BasicImagePart<S>>(&part)) return image_emits(*i);
  return std::holds_alternative<ir::BasicToolResultPart<S>>(part);
}

template <class S>
bool part_emits(const ir::BasicPart<S>& part, bool user) {
  return user ? user_part_emits(part) : assistant_part_emits(part);
}

template <class S>
bool message_emits(const ir::BasicMessage<S>& m) {
  if (m.role == Role::system) return false;
  const bool user = user_side(m.role);
  for (const auto& p : m.parts)
    if (part_emits(p, user)) return true;
  return false;
}

template <class S>
void encode_unknown(const ir::BasicUnknownPart<S>& u, const Path& path, JsonWriter& w,
                    Warnings& warnings, std::string_view where) {
  if (u.dialect == kDialect)
    w.raw(u.raw_json);
  else
    warn_unknown_part(u, "Bedrock", where, path, warnings);
}

template <class S>
void encode_tool_result(const ir::BasicToolResultPart<S>& r, const Path& path, JsonWriter& w,
                        Warnings& warnings) {
  w.begin_object();
  w.key("toolResult");
  w.begin_object();
  std::string scratch;
  w.field("toolUseId", call_id::to_anthropic(r.call_id, scratch));
  w.key("content");
  w.begin_array();
  for (const auto& c : r.content) {
    if (auto* t = std::get_if<ir::BasicTextPart<S>>(&c)) {
      if (t->text.empty()) continue;
      w.begin_object();
      w.field("text", t->text);
      w.end_object();
    } else if (auto* img = std::get_if<ir::BasicImagePart<S>>(&c)) {
      encode_image(*img, path, w, warnings);
    } else if (auto* u = std::get_if<ir::BasicUnknownPart<S>>(&c)) {
      encode_unknown(*u, path, w, warnings, "tool result content");
    }
  }
  w.end_array();
  if (r.is_error) w.field("status", "error");
  w.end_object();
  w.end_object();
}

template <class S>
void encode_user_part(const ir::BasicPart<S>& part, const Path& path, JsonWriter& w,
                      Warnings& warnings) {
  if (auto* t = std::get_if<ir::BasicTextPart<S>>(&part)) {
    if (t->text.empty()) return;
    w.begin_object();
    w.field("text", t->text);
    w.end_object();
  } else if (auto* img = std::get_if<ir::BasicImagePart<S>>(&part)) {
    encode_image(*img, path, w, warnings);
  } else if (auto* u = std::get_if<ir::BasicUnknownPart<S>>(&part)) {
    encode_unknown(*u, path, w, warnings, "content");
  } else if (!std::holds_alternative<ir::BasicToolResultPart<S>>(part)) {
    warn(warnings, "dropped_misplaced_part", path,
         "tool calls and reasoning cannot appear in user content");
  }
}

// Writes messages[i, j) — consecutive IR messages of one Bedrock role — as
// one message; toolResult blocks first (they answer the turn before).
template <class S>
void encode_group(const typename S::template Vector<ir::BasicMessage<S>>& msgs, size_t i, size_t j,
                  const Path& msgs_path, bool raw_verified, const SourcePlaces& places,
                  JsonWriter& w, Warnings& warnings) {
  const bool user = user_side(msgs[i].role);
  w.begin_object();
  w.field("role", user ? "user" : "assistant");
  w.key("content");
  w.begin_array();
  visit_group_parts(
      msgs, i, j, msgs_path, "Bedrock", warnings,
      [&](const ir::BasicPart<S>& part, GroupPart where, const Path& ppath) {
        if (where == GroupPart::model)
          encode_assistant_part(part, raw_verified, ppath, w, warnings);
        else if (where == GroupPart::tool_result)
          encode_tool_result(std::get<ir::BasicToolResultPart<S>>(part), ppath, w, warnings);
        else
          encode_user_part(part, ppath, w, warnings);
      },
      places);
  w.end_array();
  w.end_object();
}

template <class S>
void encode_messages(const ir::BasicRequest<S>& req, bool raw_verified, JsonWriter& w,
                     Warnings& warnings) {
  const Path path(kRoot, "messages");
  const SourcePlaces places = source_places(req);
  (void)write_turns(
      w, "messages", req.messages, path, "Bedrock", warnings,
      [](const ir::BasicMessage<S>& m) { return message_emits(m); },
      [&](size_t i, size_t j) {
        encode_group<S>(req.messages, i, j, path, raw_verified, places, w, warnings);
        return Status::Ok();
      },
      places);
}

// The system text blocks, and a Bedrock request's own other system blocks
// (cachePoint, guardContent: placed members) where they were.
template <class S>
void encode_system(const ir::BasicRequest<S>& req, bool same, JsonWriter& w, Warnings& warnings) {
  const std::vector<std::string_view> texts =
      collect_system_texts(req, "Bedrock", "the top-level system", warnings).texts;
  std::vector<PlacedMember> placed;
  if (same) {
    placed = collect_placed(req.extra);
    std::erase_if(placed, [](const PlacedMember& m) { return m.where != kPlacedSystemBlock; });
  }
  if (texts.empty() && placed.empty()) return;
  w.key("system");
  if (placed.empty()) {
    write_text_objects(w, texts);
    return;
  }
  w.begin_array();
  auto blocks_before = [&](size_t k) {
    for (const PlacedMember& m : placed)
      if (m.i == k || (k == texts.size() && m.i > k)) w.raw(m.value);
  };
  for (size_t k = 0; k < texts.size(); ++k) {
    blocks_before(k);
    w.begin_object();
    w.field("text", texts[k]);
    w.end_object();
  }
  blocks_before(texts.size());
  w.end_array();
}

template <class S>
void encode_inference_config(const ir::BasicRequest<S>& req, JsonWriter& w) {
  if (!req.max_tokens && !req.temperature && !req.top_p && req.stop.empty()) return;
  w.key("inferenceConfig");
  w.begin_object();
  write_sampling(w, req, kSampling);
  w.end_object();
}

template <class S>
Status encode_tool_config(const ir::BasicRequest<S>& req, bool same, bool raw_verified,
                          JsonWriter& w, Warnings& warnings) {
  using Kind = ir::ToolChoiceKind;
  const Path path(kRoot, "toolConfig");
  if (req.tools.empty() && !has_raw_tools(req, same, kUnsupportedToolKey)) {
    if (req.tool_choice && req.tool_choice->kind != Kind::auto_ &&
        req.tool_choice->kind != Kind::none)
      warn(warnings, "dropped_tool_choice", Path(path, "toolChoice"),
           "a tool choice without tools cannot be sent to Bedrock; dropped");
    return Status::Ok();
  }
  const Path tools_path(path, "tools");
  // toolSpec members the IR has no field for, kept from a Bedrock request.
  std::vector<PlacedMember> placed;
  if (same) {
    placed = collect_placed(req.extra);
    std::erase_if(placed, [](const PlacedMember& m) { return m.where != kPlacedTool; });
  }
  w.key("toolConfig");
  w.begin_object();
  w.key("tools");
  w.begin_array();
  bool warned_strict = false;
  for (size_t i = 0; i < req.tools.size(); ++i) {
    const ir::BasicToolDefinition<S>& t = req.tools[i];
    const Path tpath(tools_path, i);
    const Path spath(tpath, "toolSpec");
    const Path input_schema_path(spath, "inputSchema");  // a Path keeps its parent's address
    TW_ASSIGN(std::string_view schema,
              checked_tool_schema(t, kDialect, kMaxToolNameLength, raw_verified,
                                  Path(spath, "name"), Path(input_schema_path, "json")));
    w.begin_object();
    w.key("toolSpec");
    w.begin_object();
    w.field("name", t.name);
    if (!t.description.empty()) w.field("description", t.description);
    w.key("inputSchema");
    w.begin_object();
    w.field_raw("json", schema);
    w.end_object();
    if (!placed.empty()) [[unlikely]]
      write_placed(placed, kPlacedTool, i, 0, w);
    w.end_object();
    w.end_object();
    if (t.strict.value_or(false) && !warned_strict) {
      warned_strict = true;
      warn(warnings, "dropped_tool_strict", tpath, "the 'strict' tool flag is not sent to Bedrock");
    }
  }
  write_raw_tools(w, req, same, kUnsupportedToolKey);
  w.end_array();
  for (const PlacedMember& m : placed)
    if (!m.written)  // its tool is gone
      warn(warnings, "dropped_unknown_field", std::string(m.path),
           "field '" + std::string(m.name) + "' lost the tool it came with");
  if (req.tool_choice) {
    const ir::BasicToolChoice<S>& c = *req.tool_choice;
    switch (c.kind) {
      case Kind::auto_:
        w.key("toolChoice");
        w.raw(R"({"auto":{}})");
        break;
      case Kind::required:
        w.key("toolChoice");
        w.raw(R"({"any":{}})");
        break;
      case Kind::tool:
        w.key("toolChoice");
        w.begin_object();
        w.key("tool");
        w.begin_object();
        w.field("name", c.name);
        w.end_object();
        w.end_object();
        break;
      case Kind::none:
        warn(warnings, "dropped_tool_choice_none", Path(path, "toolChoice"),
             "Bedrock has no 'none' tool choice; the tools stay offered and the model decides "
             "(auto)");
        break;
    }
  }
  w.end_object();
  if (req.parallel_tool_calls == false)
    warn(warnings, "dropped_parallel_tool_calls", Path(kRoot, "parallel_tool_calls"),
         "Bedrock has no switch for parallel tool calls; the model may make several");
  return Status::Ok();
}

// requestMetadata takes string values only.
template <class S>
Status encode_request_metadata(const ir::BasicRequest<S>& req, bool raw_verified, JsonWriter& w,
                               Warnings& warnings) {
  if (req.metadata.empty()) return Status::Ok();
  const Path path(kRoot, "requestMetadata");
  if (req.metadata.front() != '{' || (!raw_verified && !is_valid_json(req.metadata)))
    return json::invalid(Path(kRoot, "metadata"), "metadata is not a JSON object");
  thread_local simdjson::dom::parser parser;
  json::element root;
  json::object obj;
  if (parser.parse(req.metadata.data(), req.metadata.size(), true).get(root) ||
      root.get_object().get(obj))
    return json::invalid(Path(kRoot, "metadata"), "metadata is not a JSON object");
  for (auto field : obj)
    if (!field.value.is_string()) {
      warn(warnings, "dropped_metadata", path,
           "Bedrock requestMetadata takes string values only; the metadata was dropped");
      return Status::Ok();
    }
  w.field_raw("requestMetadata", req.metadata);
  return Status::Ok();
}

// Bedrock takes the model and the stream flag in the URL and writes its own
// requestMetadata: of the request tail only the extras remain.
const TailRules kTail{
    .dialect = kDialect,
    .unknown_field_suffix = " has no Bedrock equivalent",
    .unsupported_tool_message =
        [](std::string_view source) {
          return "a " + std::string(source) + " tool of a kind Bedrock does not have was dropped";
        },
    .written_in_place = [](std::string_view key) { return key.starts_with(kOutputConfigPrefix); },
    .places_members = true,
};

}  // namespace

template <class S>
Result<std::string> encode_request_from(const ir::BasicRequest<S>& req, Warnings& warnings,
                                        const EncodeOptions& options) {
  if (needs_forced_output(req,
                          req.source_dialect == kDialect)) {  // the answer comes as a tool's input
    TW_ASSIGN(auto forced, with_forced_output(req, warnings));
    return encode_request_from(forced, warnings, options);
  }
  return write_request_object(req, kDialect, [&](JsonWriter& w, bool same) -> Status {
    encode_messages(req, options.raw_json_verified, w, warnings);
    encode_system(req, same, w, warnings);
    encode_inference_config(req, w);
    warn_unsampled(req, {kSampling}, "Bedrock Converse", warnings);
    warn_no_verbosity(req, "Bedrock Converse", warnings);
    if (req.reasoning)  // model-specific there: additionalModelRequestFields
      warn_reasoning(warnings, "dropped_reasoning", req.source_dialect,
                     "Bedrock Converse has no reasoning field common to its models (it goes in "
                     "additionalModelRequestFields, in each model's own terms); not sent");
    TW_TRY(encode_tool_config(req, same, options.raw_json_verified, w, warnings));
    TW_TRY(encode_request_metadata(req, options.raw_json_verified, w, warnings));
    TW_TRY(write_output_config(w, req, same, options.raw_json_verified, warnings));
    return write_request_extras(w, req, warnings, kTail);
  });
}

TW_INSTANTIATE_REQUEST_ENCODER;

}  // namespace toolwire::dialects::bedrock_converse
