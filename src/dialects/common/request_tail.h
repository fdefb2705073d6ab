// request_tail.h — the end of a request object, which every encoder writes
// the same way: after the sampling fields (sampling.h), `stream`, `metadata` and
// the extra fields — written raw for the request's own dialect, dropped with
// a warning for any other. Only the dialect's wording differs (TailRules).
#pragma once

#include <string>
#include <string_view>

#include "dialects/common/metadata_member.h"
#include "dialects/common/placed_member.h"
#include "dialects/common/style.h"
#include "toolwire/core/json_valid.h"
#include "toolwire/core/json_writer.h"
#include "toolwire/ir/request.h"

namespace toolwire::dialects {

struct TailRules {
  std::string_view dialect;  // the encoder's: extras of this source are written
  // A dialect whose extras named by `shared_with_sibling` mean the same here
  // (OpenAI Chat and Responses share `user`, `service_tier`...): written too.
  std::string_view sibling;
  bool (*shared_with_sibling)(std::string_view key) = nullptr;
  // A same-dialect `tool_choice` extra yields to the IR's tool choice.
  bool tool_choice_extra_yields = false;
  // The unknown-field warning: "field '<key>'" + this.
  std::string_view unknown_field_suffix;
  // The warning for a dropped x-unsupported-tool of another dialect; nullptr:
  // the encoder writes or warns about those with its tools.
  std::string (*unsupported_tool_message)(std::string_view source_dialect) = nullptr;
  // A same-dialect extra the encoder already wrote where it belongs (Gemini's
  // generationConfig.* members); nullptr: none.
  bool (*written_in_place)(std::string_view key) = nullptr;
  // A dialect whose metadata has fixed members (Anthropic: `user_id`):
  // another dialect's metadata is cut to this one (metadata_member.h); "":
  // any JSON object is written as it came.
  std::string_view metadata_member;
  std::string_view metadata_member_why;
  // The encoder writes the request's own placed members (placed_member.h)
  // back into their objects (or warns about those it could not place).
  bool places_members = false;
};

// The tools a request writes besides its definitions: the extras named
// `key` (kUnsupportedToolKey, kProviderToolKey), kept raw for the request's
// own dialect (`same`) only.
template <class S>
bool has_raw_tools(const ir::BasicRequest<S>& req, bool same, std::string_view key) {
  if (!same) return false;
  for (const auto& x : req.extra)
    if (x.key == key) return true;
  return false;
}
template <class S>
void write_raw_tools(JsonWriter& w, const ir::BasicRequest<S>& req, bool same,
                     std::string_view key) {
  if (same)
    for (const auto& x : req.extra)
      if (x.key == key) w.raw(x.raw_json);
}

// Extras another dialect must not drop (style.h): the request is refused.
inline bool refused_across(std::string_view key) {
  return key == kProviderToolKey || key == kPreviousResponseKey || key == kConversationKey;
}
inline Error refused_extra(std::string_view key, std::string_view raw, std::string_view source,
                           std::string_view target) {
  const json::Path root;
  if (key == kPreviousResponseKey || key == kConversationKey)
    return make_error(
        ErrorCode::failed_precondition,
        std::string(key) + " " + std::string(raw.substr(0, 200)) +
            " continues a conversation stored by OpenAI; it cannot be sent to " +
            std::string(target) +
            (key == kPreviousResponseKey ? " (a gateway needs a response store for it)" : ""),
        json::Path(root, key).str());
  return make_error(ErrorCode::invalid_argument,
                    "the " + std::string(source) + " tool " + std::string(raw.substr(0, 200)) +
                        " runs on the provider's side and has no form in " + std::string(target),
                    json::Path(root, "tools").str());
}

// The extra fields: written raw for the request's own dialect, refused or
// dropped with a warning for any other.
template <class S>
Status write_request_extras(JsonWriter& w, const ir::BasicRequest<S>& req, Warnings& warnings,
                            const TailRules& rules) {
  const bool same = req.source_dialect == rules.dialect;
  const bool from_sibling =
      !same && !rules.sibling.empty() && std::string_view(req.source_dialect) == rules.sibling;
  const json::Path root;
  for (const auto& x : req.extra) {
    if (from_sibling && rules.shared_with_sibling(x.key)) {
      w.field_raw(x.key, x.raw_json);
      continue;
    }
    if (!same && refused_across(x.key)) [[unlikely]]
      return refused_extra(x.key, x.raw_json, req.source_dialect, rules.dialect);
    if (x.key == kUnsupportedToolKey) {
      if (!same && rules.unsupported_tool_message)
        warn(warnings, "dropped_unsupported_tool", json::Path(root, "tools"),
             rules.unsupported_tool_message(req.source_dialect));
      continue;
    }
    if (is_placed_key(x.key) && (!same || rules.places_members)) [[unlikely]] {
      // A nested member: its own dialect's encoder wrote it in place; any
      // other drops it at its path in the source.
      if (!same)
        warn(warnings, "dropped_unknown_field", std::string(x.key),
             "field '" + std::string(placed_member_name(x.key)) + "'" +
                 std::string(rules.unknown_field_suffix));
      continue;
    }
    if (same) {
      if (rules.tool_choice_extra_yields && x.key == "tool_choice" && req.tool_choice) continue;
      if (rules.written_in_place && rules.written_in_place(x.key)) continue;
      w.field_raw(x.key, x.raw_json);
    } else {
      warn(warnings, "dropped_unknown_field", json::Path(root, x.key),
           "field '" + std::string(x.key) + "'" + std::string(rules.unknown_field_suffix));
    }
  }
  return Status::Ok();
}

// `stream`, `metadata` (checked unless `raw_verified`, see EncodeOptions) and
// the extra fields; the caller closes the object.
template <class S>
Status write_request_tail(JsonWriter& w, const ir::BasicRequest<S>& req, bool raw_verified,
                          Warnings& warnings, const TailRules& rules) {
  const json::Path root;
  if (req.stream) w.field("stream", true);
  if (!req.metadata.empty()) {
    if (req.metadata.front() != '{' || (!raw_verified && !is_valid_json(req.metadata)))
      return json::invalid(json::Path(root, "metadata"), "metadata is not a JSON object");
    if (!rules.metadata_member.empty() && std::string_view(req.source_dialect) != rules.dialect)
      write_metadata_member(w, req.metadata, rules.metadata_member, rules.metadata_member_why,
                            warnings);
    else
      w.field_raw("metadata", req.metadata);
  }
  return write_request_extras(w, req, warnings, rules);
}

}  // namespace toolwire::dialects
