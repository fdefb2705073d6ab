// IR request → Anthropic Messages request JSON.
#include <algorithm>

#include "dialects/anthropic_messages/structured_output.h"
#include "dialects/anthropic_messages/wire.h"
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

namespace toolwire::dialects::anthropic_messages {
namespace {

using ir::Role;
using json::Path;

// stop_sequences goes before the sampling fields.
constexpr SamplingKeys kStop{.stop = "stop_sequences"};
constexpr SamplingKeys kSampling{.temperature = "temperature", .top_p = "top_p", .top_k = "top_k"};

const Path kRoot;

const TailRules kTail{
    .dialect = kDialect,
    .unknown_field_suffix = " has no Anthropic equivalent",
    .unsupported_tool_message =
        [](std::string_view source) {
          return "a " + std::string(source) + " tool of a kind Anthropic does not have was dropped";
        },
    .written_in_place = [](std::string_view key) { return key.starts_with(kOutputConfigPrefix); },
    .metadata_member = "user_id",
    .metadata_member_why = "Anthropic's metadata takes user_id only",
    .places_members = true,
};

// The request's own placed members (cache_control, citations, a tool's
// defer_loading...: common/placed_member.h), written back into the blocks,
// system blocks and tools they came with; empty for another dialect's request.
using Placed = std::vector<PlacedMember>;

// Where part `part` of msgs[i, j) is: its PlaceAt (kPlacedPart, message, index).
template <class S>
PlaceAt place_of(Placed* placed, const typename S::template Vector<ir::BasicMessage<S>>& msgs,
                 size_t i, size_t j, const ir::BasicPart<S>& part) {
  if (!placed) return {};
  for (size_t k = i; k < j; ++k) {
    const auto& parts = msgs[k].parts;
    if (!parts.empty() && &part >= &parts.front() && &part <= &parts.back())
      return PlaceAt{placed, kPlacedPart, k, static_cast<size_t>(&part - &parts.front())};
  }
  return {};
}

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
                        Warnings& warnings, const PlaceAt& at) {
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
  // Members of its blocks (cache_control...) need the blocks: no shorthand.
  const bool members = at.placed && has_placed_result_blocks(*at.placed, at.i, at.j);
  if (emitted == 1 && only_text && !members) {
    w.field("content", only_text->text);  // the plain-string form
  } else if (emitted > 0) {
    w.key("content");
    w.begin_array();
    for (size_t k = 0; k < r.content.size(); ++k) {
      const auto& c = r.content[k];
      const PlaceAt block_at{at.placed, kPlacedResultBlock, at.i, result_block_slot(at.j, k)};
      if (auto* t = std::get_if<ir::BasicTextPart<S>>(&c)) {
        if (t->text.empty()) continue;
        w.begin_object();
        w.field("type", "text");
        w.field("text", t->text);
        block_at.write(w);
        w.end_object();
      } else if (auto* img = std::get_if<ir::BasicImagePart<S>>(&c)) {
        encode_image(*img, path, w, warnings, block_at);
      } else if (auto* u = std::get_if<ir::BasicUnknownPart<S>>(&c)) {
        if (u->dialect == kDialect) w.raw(u->raw_json);
      }
    }
    w.end_array();
  }
  for (const auto& c : r.content) {
    auto* u = std::get_if<ir::BasicUnknownPart<S>>(&c);
    if (u && u->dialect != kDialect)
      warn_unknown_part(*u, "Anthropic", "tool result content", path, warnings);
  }
  if (r.is_error) w.field("is_error", true);
  at.write(w);
  w.end_object();
}

template <class S>
void encode_user_part(const ir::BasicPart<S>& part, const Path& path, JsonWriter& w,
                      Warnings& warnings, const PlaceAt& at) {
  if (auto* t = std::get_if<ir::BasicTextPart<S>>(&part)) {
    if (t->text.empty()) return;
    w.begin_object();
    w.field("type", "text");
    w.field("text", t->text);
    at.write(w);
    w.end_object();
  } else if (auto* img = std::get_if<ir::BasicImagePart<S>>(&part)) {
    encode_image(*img, path, w, warnings, at);
  } else if (auto* u = std::get_if<ir::BasicUnknownPart<S>>(&part)) {
    write_unknown_part(*u, kDialect, "Anthropic", path, w, warnings);
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
                  const Path& msgs_path, bool raw_verified, Placed* placed,
                  const SourcePlaces& places, JsonWriter& w, Warnings& warnings) {
  const bool user = user_side(msgs[i].role);
  w.begin_object();
  w.field("role", user ? "user" : "assistant");
  w.key("content");
  const ir::BasicTextPart<S>* only = single_text<S>(msgs, i, j, user);
  if (only && placed) {  // members to write into its block: no shorthand
    const ir::BasicPart<S>* part = nullptr;
    for (size_t k = i; k < j && !part; ++k)
      for (const auto& p : msgs[k].parts)
        if (std::get_if<ir::BasicTextPart<S>>(&p) == only) part = &p;
    const PlaceAt at = place_of<S>(placed, msgs, i, j, *part);
    if (has_placed(*placed, at.where, at.i, at.j)) only = nullptr;
  }
  if (only)
    w.string(only->text);  // Anthropic's shorthand for one text block
  else
    w.begin_array();
  visit_group_parts(
      msgs, i, j, msgs_path, "Anthropic", warnings,
      [&](const ir::BasicPart<S>& part, GroupPart where, const Path& ppath) {
        // With the shorthand, only parts that write nothing (but may warn) remain.
        if (only && part_emits(part, user)) return;
        const PlaceAt at = place_of<S>(placed, msgs, i, j, part);
        if (where == GroupPart::model)
          encode_assistant_part(part, /*in_request=*/true, raw_verified, ppath, w, warnings, at);
        else if (where == GroupPart::tool_result)
          encode_tool_result(std::get<ir::BasicToolResultPart<S>>(part), ppath, w, warnings, at);
        else
          encode_user_part(part, ppath, w, warnings, at);
      },
      places);
  if (!only) w.end_array();
  w.end_object();
}

template <class S>
void encode_messages(const ir::BasicRequest<S>& req, bool raw_verified, Placed* placed,
                     JsonWriter& w, Warnings& warnings) {
  const Path path(kRoot, "messages");
  const SourcePlaces places = source_places(req);
  (void)write_turns(
      w, "messages", req.messages, path, "Anthropic", warnings,
      [](const ir::BasicMessage<S>& m) { return message_emits(m); },
      [&](size_t i, size_t j) {
        encode_group<S>(req.messages, i, j, path, raw_verified, placed, places, w, warnings);
        return Status::Ok();
      },
      places);
}

template <class S>
void encode_system(const ir::BasicRequest<S>& req, Placed* placed, JsonWriter& w,
                   Warnings& warnings) {
  const auto [texts, direct] =
      collect_system_texts(req, "Anthropic", "the top-level system", warnings);
  if (texts.empty()) return;
  w.key("system");
  const bool blocks = placed && std::any_of(placed->begin(), placed->end(),
                                            [](const auto& m) { return m.where == kPlacedSystem; });
  if (blocks) {  // the system blocks with their members (prompt caching)
    w.begin_array();
    for (size_t i = 0; i < req.system.size(); ++i) {
      if (req.system[i].text.empty()) continue;
      w.begin_object();
      w.field("type", "text");
      w.field("text", req.system[i].text);
      write_placed(*placed, kPlacedSystem, i, 0, w);
      w.end_object();
    }
    for (size_t k = direct; k < texts.size(); ++k) {
      w.begin_object();
      w.field("type", "text");
      w.field("text", texts[k]);
      w.end_object();
    }
    w.end_array();
    return;
  }
  if (texts.size() == 1 && direct == 1) {
    w.string(texts[0]);
    return;
  }
  write_text_objects(w, texts, "text");
}

template <class S>
Status encode_tools(const ir::BasicRequest<S>& req, bool same, bool raw_verified, Placed* placed,
                    JsonWriter& w, Warnings& warnings) {
  if (req.tools.empty() && !has_raw_tools(req, same, kUnsupportedToolKey)) return Status::Ok();
  const Path path(kRoot, "tools");
  w.key("tools");
  w.begin_array();
  bool warned_strict = false;
  for (size_t i = 0; i < req.tools.size(); ++i) {
    const ir::BasicToolDefinition<S>& t = req.tools[i];
    const Path tpath(path, i);
    TW_ASSIGN(std::string_view schema,
              checked_tool_schema(t, kDialect, kMaxToolNameLength, raw_verified,
                                  Path(tpath, "name"), Path(tpath, "input_schema")));
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
    if (placed) write_placed(*placed, kPlacedTool, i, 0, w);
    w.end_object();
  }
  write_raw_tools(w, req, same, kUnsupportedToolKey);
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

// Anthropic's smallest thinking budget.
constexpr int64_t kMinThinkingBudget = 1024;

// Why thinking cannot go beside the rest of `req`; empty: it can.
template <class S>
std::string thinking_conflict(const ir::BasicRequest<S>& req) {
  using Kind = ir::ToolChoiceKind;
  if (req.tool_choice &&
      (req.tool_choice->kind == Kind::required || req.tool_choice->kind == Kind::tool))
    return "Anthropic refuses thinking with a forced tool choice";
  if ((req.temperature && *req.temperature != 1.0) || req.top_k)
    return "Anthropic refuses thinking beside a temperature other than 1 or top_k";
  return {};
}

// `thinking`. The request's own spelling for this dialect (enabled with a
// budget, adaptive, disabled; the effort word goes in output_config); from
// another dialect a budget (from its word, if it gave one) fitted to
// max_tokens, or nothing when thinking is off or cannot be sent.
template <class S>
void write_thinking(const ir::BasicRequest<S>& req, bool same, int64_t max_tokens, JsonWriter& w,
                    Warnings& warnings) {
  const ir::BasicReasoning<S>& r = *req.reasoning;
  const std::string_view source = req.source_dialect;
  std::optional<int64_t> budget;
  if (same) {
    if (!r.budget_tokens && !r.enabled) return;
    w.key("thinking");
    w.begin_object();
    if (r.budget_tokens) {
      w.field("type", "enabled");
      w.field("budget_tokens", *r.budget_tokens);
    } else {
      w.field("type", *r.enabled ? "adaptive" : "disabled");
    }
    w.end_object();
    return;
  }
  budget = budget_to_write(r, "Anthropic", source, warnings);
  if (!budget && r.enabled == true) {  // a dynamic budget: the middle word's
    budget = budget_for_effort("medium");
    warn_reasoning(warnings, "approximated_reasoning", source,
                   "thinking with a dynamic budget sent to Anthropic as a budget of " +
                       std::to_string(*budget) + " tokens");
  }
  if (!budget || *budget <= 0) return;  // off: Anthropic's default
  if (std::string why = thinking_conflict(req); !why.empty()) {
    warn_reasoning(warnings, "dropped_reasoning", source, why + "; thinking not sent");
    return;
  }
  if (max_tokens <= kMinThinkingBudget) {
    warn_reasoning(warnings, "dropped_reasoning", source,
                   "max_tokens " + std::to_string(max_tokens) +
                       " leaves no room for Anthropic's smallest thinking budget (1024 tokens); "
                       "thinking not sent");
    return;
  }
  const int64_t fitted = std::clamp(*budget, kMinThinkingBudget, max_tokens - 1);
  if (fitted != *budget)
    warn_reasoning(warnings, "approximated_reasoning", source,
                   "a thinking budget of " + std::to_string(*budget) + " tokens sent as " +
                       std::to_string(fitted) + " (Anthropic takes 1024 up to max_tokens - 1)");
  w.key("thinking");
  w.begin_object();
  w.field("type", "enabled");
  w.field("budget_tokens", fitted);
  w.end_object();
}

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
    Placed placed_members;
    if (same) placed_members = collect_placed(req.extra);
    Placed* placed = placed_members.empty() ? nullptr : &placed_members;
    w.field("model", req.model);
    const int64_t max_tokens = req.max_tokens.value_or(kDefaultMaxTokens);
    if (req.max_tokens) {
      w.field("max_tokens", *req.max_tokens);
    } else {
      w.field("max_tokens", kDefaultMaxTokens);
      warn(warnings, "defaulted_max_tokens", Path(kRoot, "max_tokens"),
           "Anthropic requires max_tokens; defaulted to " + std::to_string(kDefaultMaxTokens));
    }
    encode_system(req, placed, w, warnings);
    encode_messages(req, options.raw_json_verified, placed, w, warnings);
    TW_TRY(encode_tools(req, same, options.raw_json_verified, placed, w, warnings));
    if (placed) [[unlikely]]
      for (const PlacedMember& m : *placed)
        if (!m.written)  // its block, system block or tool is gone
          warn(warnings, "dropped_unknown_field", std::string(m.path),
               "field '" + std::string(m.name) + "' lost the block it came with");
    encode_tool_choice(req, w);
    write_sampling(w, req, kStop);
    write_sampling(w, req, kSampling);
    warn_unsampled(req, {kStop, kSampling}, "Anthropic", warnings);
    warn_no_verbosity(req, "Anthropic", warnings);
    if (req.reasoning) write_thinking(req, same, max_tokens, w, warnings);
    TW_TRY(write_output_config(w, req, same, options.raw_json_verified, warnings));
    return write_request_tail(w, req, options.raw_json_verified, warnings, kTail);
  });
}

TW_INSTANTIATE_REQUEST_ENCODER;

}  // namespace toolwire::dialects::anthropic_messages
