// The envelope protocol's text: call order, the pseudo-tools, the system
// prompt and the results message (parse_envelope lives with the parser, in
// envelope.cc).
#include "toolwire/textformats/envelope_turn.h"

#include <algorithm>

#include <nlohmann/json.hpp>

#include "toolwire/core/json_depth.h"
#include "toolwire/core/json_writer.h"

namespace toolwire::textformats {

namespace {

// A schema on one line, keys in their order; text that is not JSON as it is.
std::string one_line_schema(std::string_view schema) {
  nlohmann::ordered_json j = parse_json_bounded<nlohmann::ordered_json>(schema);
  if (j.is_discarded()) return std::string(schema);
  return j.dump();
}

constexpr std::string_view kRules =
    R"(You work in turns. In each turn you act only by calling tools, and every answer you write is exactly one JSON object and nothing else:

{"toolCalls": [{"type": "TOOL_NAME", "id": "c1", "operation": "what this call does, in a few words", "parameters": {...}, "priority": 0}]}

- "type" is the tool's name; "parameters" its arguments, a JSON object that matches the tool's parameter schema; "id" a short id of your choice, unique within the answer; "operation" a short description for people reading along; "priority" a number, 0 when left out.
- The calls of one answer run one after another: higher priority first, equal priorities in the order written.
- The user sees only what you send with send_chat, at the moment it runs. Text outside the JSON object is shown to no one.
- say speaks a short sentence aloud; it does not wait for the speech to finish.
- Your turn ends only when you call end_turn; the other calls of that answer still run. A usual last answer: send_chat with your reply, then end_turn.
- Until you call end_turn, each answer is followed by a message with the results of its calls, in the order they ran, and the problems found in your answer:
  {"toolResults": [{"id": "c1", "type": "TOOL_NAME", "status": "ok", "output": "..."}], "errors": ["..."]}
  A call with "status": "error" did not do its work; its "output" says why. Correct what the errors name and answer again with {"toolCalls": [...]}.
)";

}  // namespace

std::vector<EnvelopeCall> by_priority(std::vector<EnvelopeCall> calls) {
  std::stable_sort(calls.begin(), calls.end(), [](const EnvelopeCall& a, const EnvelopeCall& b) {
    return a.priority > b.priority;
  });
  return calls;
}

std::vector<ir::ToolDefinition> envelope_pseudo_tools() {
  std::vector<ir::ToolDefinition> out(3);
  out[0].name = std::string(kSendChat);
  out[0].description =
      "Sends a chat message to the user, who sees it at once. Does not end your turn.";
  out[0].input_schema =
      R"({"type":"object","properties":{"content":{"type":"string","description":"The message text."}},"required":["content"]})";
  out[1].name = std::string(kSay);
  out[1].description =
      "Speaks a short utterance aloud on the user's speech channel. Does not wait for the speech "
      "to finish and does not end your turn.";
  out[1].input_schema =
      R"({"type":"object","properties":{"utterance":{"type":"string","description":"What to say."}},"required":["utterance"]})";
  out[2].name = std::string(kEndTurn);
  out[2].description =
      "Ends your turn once the other calls of this answer have run. The only way to end it.";
  out[2].input_schema = R"({"type":"object","properties":{}})";
  return out;
}

std::string envelope_system_prompt(const std::vector<ir::ToolDefinition>& tools) {
  std::string out(kRules);
  out += "\nTools:\n";
  auto add = [&](const ir::ToolDefinition& t) {
    out += "\n## " + t.name + "\n";
    if (!t.description.empty()) out += t.description + "\n";
    out += "Parameters: " + one_line_schema(t.input_schema) + "\n";
  };
  for (const auto& t : envelope_pseudo_tools()) add(t);
  for (const auto& t : tools) add(t);
  return out;
}

std::string envelope_results_message(std::span<const EnvelopeResult> results,
                                     std::span<const std::string> errors) {
  std::string out;
  JsonWriter w(out);
  w.begin_object();
  w.key("toolResults");
  w.begin_array();
  for (const auto& r : results) {
    w.begin_object();
    w.field("id", std::string_view(r.id));
    w.field("type", std::string_view(r.type));
    w.field("status", r.ok ? "ok" : "error");
    w.field("output", std::string_view(r.output));
    w.end_object();
  }
  w.end_array();
  w.key("errors");
  w.begin_array();
  for (const auto& e : errors) w.string(e);
  w.end_array();
  w.end_object();
  return out;
}

}  // namespace toolwire::textformats
