// toolwire/textformats/envelope_turn.h — the JSON-envelope protocol as a turn protocol.
//
// The model answers every round with one envelope,
//   {"toolCalls": [{"type": NAME, "id": "c1", "operation": "...", "parameters": {...},
//                   "priority": 0}]}
// and is answered with the results of its calls as one JSON text message:
//   {"toolResults": [{"id": "c1", "type": NAME, "status": "ok", "output": "..."}],
//    "errors": ["toolCalls[1]: a call has no name"]}
// Three pseudo-tools belong to the protocol: send_chat {content} (text to the
// user), say {utterance} (speech, not waited for) and end_turn {} (the only way
// to end the turn). The agent loop runs it (AgentOptions::turn_protocol,
// docs/agent.md); this header is the protocol's text: parsing an answer, the
// system prompt that teaches it, and the results message.
//
//   EnvelopeAnswer a = parse_envelope(model_text);
//   for (const EnvelopeCall& c : by_priority(a.calls)) ...
//   std::string prompt = envelope_system_prompt(registry.definitions());
#pragma once

#include <span>
#include <string>
#include <string_view>
#include <vector>

#include "toolwire/ir/tool.h"
#include "toolwire/textformats/parser.h"

namespace toolwire::textformats {

inline constexpr std::string_view kSendChat = "send_chat";
inline constexpr std::string_view kSay = "say";
inline constexpr std::string_view kEndTurn = "end_turn";

struct EnvelopeCall {
  int index = 0;          // among the answer's valid calls, in the order written
  std::string id;         // as written; empty when none
  std::string name;       // `type`
  std::string operation;  // empty when none
  std::string arguments;  // `parameters`, a JSON object's text ({} when absent)
  double priority = 0;    // higher runs first
  bool operator==(const EnvelopeCall&) const = default;
};

struct EnvelopeAnswer {
  std::vector<EnvelopeCall> calls;  // the valid elements, in the order written
  // A non-JSON or non-envelope answer (then no calls), each bad element
  // ("toolCalls[2]: ..."), and with `tools`, unknown tools and schema
  // violations (call_index set; those calls are still in `calls`).
  std::vector<FormatError> errors;
  std::string text;  // prose after the envelope (not part of the protocol)
};

// Parses a whole answer (the `envelope` family's parser, fed in one piece).
EnvelopeAnswer parse_envelope(std::string_view text, const ToolSet* tools = nullptr);

// The calls in the order they run: higher priority first, ties in the order written.
std::vector<EnvelopeCall> by_priority(std::vector<EnvelopeCall> calls);

// send_chat, say and end_turn as tool definitions (names, descriptions, schemas).
std::vector<ir::ToolDefinition> envelope_pseudo_tools();

// The system prompt that teaches the protocol: the rules, then every tool
// (the pseudo-tools first, then `tools` in order) with its description and
// parameter schema. Deterministic (a golden file holds it).
std::string envelope_system_prompt(const std::vector<ir::ToolDefinition>& tools);

struct EnvelopeResult {
  std::string id;
  std::string type;
  bool ok = true;
  std::string output;  // the result's text, or the error message
};

// The message that feeds a round's results back:
// {"toolResults":[{"id","type","status":"ok"|"error","output"}],"errors":[...]}.
std::string envelope_results_message(std::span<const EnvelopeResult> results,
                                     std::span<const std::string> errors);

}  // namespace toolwire::textformats
