// user_assistant_messages.h — decoding the messages of the dialects whose
// roles are user and assistant only, tool results travelling in user
// messages (Anthropic, Bedrock).
#pragma once

#include <string>
#include <string_view>
#include <utility>

#include "dialects/common/fields.h"
#include "dialects/common/json_in.h"
#include "toolwire/ir/message.h"

namespace toolwire::dialects {

// Walks a messages array of {role, content} objects: `on_user(content,
// content_path, index)` or `on_assistant(content, content_path, index)` (each
// returning Status) decodes message `index` into `out`, reserved for all.
template <class Out, class OnUser, class OnAssistant>
Status decode_user_assistant_messages(json::element value, const json::Path& path, Out& out,
                                      OnUser&& on_user, OnAssistant&& on_assistant) {
  TW_ASSIGN(json::array messages, json::as_array(value, path));
  out.reserve(messages.size());
  size_t i = 0;
  for (json::element m : messages) {
    const size_t index = i;
    const json::Path mpath(path, i++);
    TW_ASSIGN(json::object obj, json::as_object(m, mpath));
    enum { kRole, kContent };
    static constexpr std::string_view kKeys[] = {"role", "content"};
    const auto f = json::pick(obj, kKeys);
    const json::Path role_path(mpath, "role"), content_path(mpath, "content");
    TW_ASSIGN(json::element role_el, f.need(kRole, "role", mpath));
    TW_ASSIGN(std::string_view role, json::as_string(role_el, role_path));
    TW_ASSIGN(json::element content, f.need(kContent, "content", mpath));
    if (role == "user") {
      TW_TRY(on_user(content, content_path, index));
    } else if (role == "assistant") {
      TW_TRY(on_assistant(content, content_path, index));
    } else {
      return json::invalid(role_path,
                           "unknown role '" + std::string(role) + "' (expected user or assistant)");
    }
  }
  return Status::Ok();
}

// A user message split in two: its tool results go first, as one IR tool
// message, then the rest as an IR user message (kept even when empty if
// there were no results, so that the message is not lost).
template <class S, class Out>
void push_user_message(ir::BasicMessage<S>&& tool, ir::BasicMessage<S>&& user, Out& out) {
  const bool has_results = !tool.parts.empty();
  if (has_results) out.push_back(std::move(tool));
  if (!user.parts.empty() || !has_results) out.push_back(std::move(user));
}

}  // namespace toolwire::dialects
