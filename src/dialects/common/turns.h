// turns.h — requests of the dialects whose messages alternate between the
// user's side (user messages, tool results) and the model's, with the system
// text outside the messages (Anthropic, Gemini, Bedrock): grouping messages
// into turns and gathering the system text, with the warnings both cost.
#pragma once

#include <string>
#include <string_view>
#include <variant>
#include <vector>

#include "dialects/common/source_map.h"
#include "dialects/common/style.h"
#include "toolwire/core/json_writer.h"
#include "toolwire/ir/request.h"

namespace toolwire::dialects {

// Tool results travel in user turns.
inline bool user_side(ir::Role r) { return r == ir::Role::user || r == ir::Role::tool; }

// Writes `key`: [turns], each turn by `on_group(i, j)` (returning Status)
// for a run msgs[i, j) of one side that writes something (`emits(message)`).
// System messages are skipped (the system text takes them); a message that
// writes nothing is dropped with a warning, and dropping it joins its
// neighbours into one turn, as decoding the output and encoding it again
// would. `name`: the dialect, for warnings; `places`: the client's paths.
template <class Msgs, class Emits, class OnGroup>
Status write_turns(JsonWriter& w, std::string_view key, const Msgs& msgs, const json::Path& path,
                   std::string_view name, Warnings& warnings, Emits&& emits, OnGroup&& on_group,
                   const SourcePlaces& places = {}) {
  const auto dropped = [&](size_t k) {
    const json::SourcePlace place = places.at(k);
    warn(warnings, "dropped_empty_message", json::Path(path, k, place),
         "a message with no content " + std::string(name) + " accepts was dropped");
  };
  w.key(key);
  w.begin_array();
  size_t i = 0;
  while (i < msgs.size()) {
    if (msgs[i].role == ir::Role::system) {
      ++i;
      continue;
    }
    if (!emits(msgs[i])) {
      dropped(i++);
      continue;
    }
    const bool user = user_side(msgs[i].role);
    size_t j = i + 1;
    for (; j < msgs.size(); ++j) {
      const auto& m = msgs[j];
      if (m.role == ir::Role::system || user_side(m.role) == user) continue;
      if (emits(m)) break;
      dropped(j);
    }
    TW_TRY(on_group(i, j));
    i = j;
  }
  w.end_array();
  return Status::Ok();
}

template <class S>
bool is_tool_result(const ir::BasicPart<S>& part) {
  return std::holds_alternative<ir::BasicToolResultPart<S>>(part);
}

// Where visit_group_parts found a part.
enum class GroupPart { model, tool_result, user };

// Visits the parts of msgs[i, j) — consecutive messages of one side, written
// as one wire message — in the order that message needs them: on the user's
// side the tool results first (they answer the turn before), then the rest;
// on the model's side in order. `visit(part, where, part_path)`. A message's
// name is dropped with a warning (`name`: the dialect). Paths are the
// client's where `places` knows them.
template <class Msgs, class Visit>
void visit_group_parts(const Msgs& msgs, size_t i, size_t j, const json::Path& msgs_path,
                       std::string_view name, Warnings& warnings, Visit&& visit,
                       const SourcePlaces& places = {}) {
  const bool user = user_side(msgs[i].role);
  for (int pass = user ? 0 : 1; pass < 2; ++pass) {
    for (size_t k = i; k < j; ++k) {
      const auto& m = msgs[k];
      if (m.role == ir::Role::system || user_side(m.role) != user) continue;
      const json::SourcePlace mplace = places.at(k);
      const json::Path mpath(msgs_path, k, mplace);
      if (pass == (user ? 0 : 1) && !m.name.empty())
        warn(warnings, "dropped_message_name", json::Path(mpath, "name"),
             std::string(name) + " messages have no participant name");
      const json::Path parts_path(mpath, "content");
      for (size_t n = 0; n < m.parts.size(); ++n) {
        const auto& part = m.parts[n];
        const bool result = is_tool_result(part);
        const json::SourcePlace pplace = places.at(k, n);
        if (!user)
          visit(part, GroupPart::model, json::Path(parts_path, n, pplace));
        else if (pass == 0 && result)
          visit(part, GroupPart::tool_result, json::Path(parts_path, n, pplace));
        else if (pass == 1 && !result)
          visit(part, GroupPart::user, json::Path(parts_path, n, pplace));
      }
    }
  }
}

// The system text: the non-empty system parts (`direct` of them), then the
// text of each system message, moved with a warning ("its text was appended
// to <target>"); the developer flag is dropped with a warning.
struct SystemTexts {
  std::vector<std::string_view> texts;
  size_t direct = 0;
};
template <class S>
SystemTexts collect_system_texts(const ir::BasicRequest<S>& req, std::string_view name,
                                 std::string_view target, Warnings& warnings) {
  SystemTexts out;
  bool developer = false;
  for (const auto& s : req.system) {
    if (!s.text.empty()) out.texts.push_back(s.text);
    developer |= s.developer;
  }
  out.direct = out.texts.size();
  const json::Path root;
  if (developer)
    warn(warnings, "dropped_developer_flag", json::Path(root, "system"),
         std::string(name) +
             " has no developer role; developer instructions were sent as system text");
  const json::Path msgs_path(root, "messages");
  const SourcePlaces places = source_places(req);
  for (size_t i = 0; i < req.messages.size(); ++i) {
    const ir::BasicMessage<S>& m = req.messages[i];
    if (m.role != ir::Role::system) continue;
    const json::SourcePlace place = places.at(i);
    warn(warnings, "moved_system_message", json::Path(msgs_path, i, place),
         std::string(name) + " has no mid-conversation system messages; its text was appended to " +
             std::string(target));
    for (const auto& p : m.parts)
      if (auto* t = std::get_if<ir::BasicTextPart<S>>(&p); t && !t->text.empty())
        out.texts.push_back(t->text);
  }
  return out;
}

// [{"type"?: `type`, "text": t}, ...] for each of `texts`.
inline void write_text_objects(JsonWriter& w, const std::vector<std::string_view>& texts,
                               std::string_view type = {}) {
  w.begin_array();
  for (std::string_view t : texts) {
    w.begin_object();
    if (!type.empty()) w.field("type", type);
    w.field("text", t);
    w.end_object();
  }
  w.end_array();
}

}  // namespace toolwire::dialects
