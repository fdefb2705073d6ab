// openai_request.h — what the two OpenAI request codecs (Chat Completions,
// Responses) do alike: read the model and the tool fields, write
// `tool_choice`, and hand each message to the member of the folder's encoder
// for its role.
#pragma once

#include "dialects/common/borrowed_ir.h"
#include "dialects/common/source_map.h"
#include "dialects/common/style.h"
#include "toolwire/core/json_writer.h"
#include "toolwire/ir/request.h"

namespace toolwire::dialects {

// Top-level fields Chat Completions and Responses both have, with the same
// meaning: a request of one keeps them into the other. (`store` is not one:
// Chat stores a completion for evals, Responses a response to continue.)
inline bool is_openai_shared_field(std::string_view key) {
  return key == "user" || key == "service_tier" || key == "prompt_cache_key" ||
         key == "prompt_cache_retention" || key == "safety_identifier";
}

// Decodes `model` (and sets `have_model`), `tools` (each through the folder's
// `decode_tool(element, path, req)`), `tool_choice` (`decode_tool_choice(
// element, path, req)`) and `parallel_tool_calls`; false for any other key.
template <class S, class DecodeTool, class DecodeToolChoice>
Result<bool> decode_openai_tool_field(std::string_view key, json::element value,
                                      const json::Path& path, ir::BasicRequest<S>& req,
                                      bool& have_model, DecodeTool&& decode_tool,
                                      DecodeToolChoice&& decode_tool_choice) {
  if (key == "model") {
    TW_ASSIGN(std::string_view model, json::as_string(value, path));
    req.model = IrText<S>::keep(model);
    have_model = true;
  } else if (key == "tools") {
    TW_ASSIGN(json::array tools, json::as_array(value, path));
    req.tools.reserve(tools.size());
    size_t i = 0;
    for (json::element t : tools) TW_TRY(decode_tool(t, json::Path(path, i++), req));
  } else if (key == "tool_choice") {
    TW_TRY(decode_tool_choice(value, path, req));
  } else if (key == "parallel_tool_calls") {
    TW_ASSIGN(bool parallel, json::as_bool(value, path));
    req.parallel_tool_calls = parallel;
  } else {
    return false;
  }
  return true;
}

// "tool_choice": "auto" | "none" | "required" | {"type":"function", <name>},
// the name inside "function":{...} when `nested` (Chat), beside "type"
// otherwise (Responses).
template <class S>
void write_openai_tool_choice(JsonWriter& w, const ir::BasicToolChoice<S>& c, bool nested) {
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
      if (nested) {
        w.key("function");
        w.begin_object();
      }
      w.field("name", c.name);
      if (nested) w.end_object();
      w.end_object();
      return;
  }
}

// Where an OpenAI encoder is in the request, for its warnings' paths: the
// client's path of the part being written (else of its message), or the IR
// message's if the request has no source map.
template <class S>
struct WarnAt {
  SourcePlaces places;
  size_t index = 0;                          // IR message
  const ir::BasicMessage<S>* msg = nullptr;  // that message
  const ir::BasicPart<S>* part = nullptr;    // the part being written; null: the message

  std::string path(std::string_view member = {}) const {
    const json::Path root, msgs(root, "messages");
    const bool in_msg =
        msg && part && part >= msg->parts.data() && part < msg->parts.data() + msg->parts.size();
    const json::SourcePlace place =
        in_msg ? places.at(index, static_cast<size_t>(part - msg->parts.data())) : places.at(index);
    const json::Path at(msgs, index, place);
    return member.empty() ? at.str() : json::Path(at, member).str();
  }
};

// `enc.user_like(m, role)` for system and user messages, `enc.assistant(m)`,
// `enc.tool(m)`; `enc.at` follows the messages (warning paths).
template <class Messages, class Enc>
void encode_by_role(const Messages& messages, Enc& enc) {
  for (const auto& m : messages) {
    enc.at.msg = &m;
    enc.at.part = nullptr;
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
    ++enc.at.index;
  }
}

}  // namespace toolwire::dialects
