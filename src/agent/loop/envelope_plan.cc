#include "agent/loop/envelope_plan.h"

#include <algorithm>
#include <unordered_set>

#include <nlohmann/json.hpp>

#include "toolwire/core/json_depth.h"
#include "toolwire/textformats/envelope_turn.h"

namespace toolwire::agent::envelope {

namespace {

textformats::ToolSet make_checks(const std::vector<RemoteTool>& remote) {
  std::vector<ir::ToolDefinition> defs = textformats::envelope_pseudo_tools();
  for (const auto& r : remote) defs.push_back(r.definition);
  if (auto set = textformats::ToolSet::from_definitions(defs)) return std::move(*set);
  // A remote schema that does not compile: its calls go unchecked, as in native mode.
  return std::move(*textformats::ToolSet::from_definitions(textformats::envelope_pseudo_tools()));
}

// The one string argument of send_chat / say (validated before).
std::string string_arg(const std::string& arguments, const char* key) {
  nlohmann::json j = parse_json_bounded<nlohmann::json>(arguments);
  if (auto it = j.find(key); j.is_object() && it != j.end() && it->is_string())
    return it->get<std::string>();
  return {};
}

}  // namespace

Protocol::Protocol(const tools::Registry& registry, const std::vector<RemoteTool>& remote)
    : checks_(make_checks(remote)) {
  std::vector<ir::ToolDefinition> defs = registry.definitions();
  for (const auto& r : remote) {
    defs.push_back(r.definition);
    remote_names_.push_back(r.definition.name);
  }
  prompt_ = textformats::envelope_system_prompt(defs);
}

Plan Protocol::plan(std::string_view answer, int round, bool native_calls) const {
  Plan p;
  textformats::EnvelopeAnswer a = textformats::parse_envelope(answer);
  for (auto& e : a.errors) p.errors.push_back(std::move(e.message));
  if (native_calls)
    p.errors.push_back(
        "native tool calls are not read in this protocol; write every call in "
        "{\"toolCalls\": [...]}");
  if (a.calls.empty() && p.errors.empty())
    p.errors.push_back("the envelope has no calls; only end_turn ends your turn");
  std::vector<textformats::EnvelopeCall> calls = textformats::by_priority(std::move(a.calls));
  std::unordered_set<std::string> ids;
  for (const auto& c : calls)
    if (!c.id.empty()) ids.insert(c.id);
  std::unordered_set<std::string> used;
  for (auto& c : calls) {
    Step s;
    s.call.id = std::move(c.id);
    if (s.call.id.empty() || used.contains(s.call.id)) {
      std::string base = "call_" + std::to_string(round) + "_" + std::to_string(c.index + 1);
      std::string id = base;
      for (int n = 2; ids.contains(id) || used.contains(id); ++n)
        id = base + "_" + std::to_string(n);
      s.call.id = std::move(id);
    }
    used.insert(s.call.id);
    s.call.name = std::move(c.name);
    s.call.arguments = std::move(c.arguments);
    const std::string& name = s.call.name;
    bool remote =
        std::find(remote_names_.begin(), remote_names_.end(), name) != remote_names_.end();
    if (name == textformats::kSendChat)
      s.kind = Kind::send_chat;
    else if (name == textformats::kSay)
      s.kind = Kind::say;
    else if (name == textformats::kEndTurn)
      s.kind = Kind::end_turn;
    else if (remote)
      s.kind = Kind::remote;
    if (s.kind != Kind::tool && checks_.has(name)) {
      // Registry tools are checked by the executor (the same validator); these here.
      Status st = checks_.validate(name, parse_json_bounded<nlohmann::json>(s.call.arguments));
      if (!st) {
        s.kind = Kind::invalid;
        s.text = "invalid arguments for tool '" + name + "':\n" + st.error().message;
      }
    }
    if (s.kind == Kind::send_chat) s.text = string_arg(s.call.arguments, "content");
    if (s.kind == Kind::say) s.text = string_arg(s.call.arguments, "utterance");
    p.steps.push_back(std::move(s));
  }
  return p;
}

}  // namespace toolwire::agent::envelope
