// toolwire/agent/events.h — what an agent run reports while it works.
//
// One run of the loop (one user turn) emits, in order:
//   per round:  TextDeltaEvent* / ThinkingDeltaEvent*  (as the model streams)
//               ToolCallEvent*                         (once the turn is complete)
//               ToolResultEvent*                       (as each call finishes)
//               RoundFinishedEvent
//   then:       FinalAnswerEvent                       (always last, also after an error or a
//   cancel) ErrorEvent may come before the final answer when the model call failed.
// With TurnProtocol::envelope a round's events follow its calls in the order
// they run: send_chat is a TextDeltaEvent, say a SpeechEvent, other calls a
// ToolCallEvent and its ToolResultEvent; the model's own text is not shown.
// All events of a run are delivered on the thread that called Agent::run().
#pragma once

#include <chrono>
#include <optional>
#include <string>
#include <string_view>
#include <variant>

#include "toolwire/core/result.h"
#include "toolwire/ir/parts.h"
#include "toolwire/ir/response.h"
#include "toolwire/provider/provider.h"

namespace toolwire::agent {

// Why a run stopped.
enum class StopReason {
  final_text,     // the model answered without calling a tool
  end_turn_tool,  // the model called the configured end-turn tool (envelope: end_turn)
  round_limit,    // max_rounds model calls were made
  cancelled,      // Agent::cancel()
  client_calls,   // the turn called tools the caller runs (AgentOptions::hand_back_unknown_calls)
  error,          // the provider failed (see ErrorEvent / RunResult::error)
};
std::string_view to_string(StopReason reason);

struct TextDeltaEvent {
  int round = 0;
  std::string text;
};

struct ThinkingDeltaEvent {
  int round = 0;
  std::string text;
};

struct ToolCallEvent {
  int round = 0;
  ir::ToolCallPart call;  // id, wire name, raw arguments
  bool remote = false;    // answered from outside through Agent::submit_result()
};

struct ToolResultEvent {
  int round = 0;
  std::string tool_name;
  ir::ToolResultPart result;
  std::chrono::microseconds duration{0};  // from the call's start to its result
};

struct RoundFinishedEvent {
  int round = 0;
  ir::FinishReason finish;
  ir::Usage usage;
  provider::Timing timing;
  provider::RateLimits limits;
  int tool_calls = 0;
};

struct FinalAnswerEvent {
  StopReason reason = StopReason::final_text;
  std::string text;  // the model's final text, or the end-turn tool's answer
  int rounds = 0;
};

struct ErrorEvent {
  int round = 0;
  Error error;
};

// Something to speak aloud (the envelope protocol's `say`): a channel of its
// own, not part of the answer text; the run does not wait for it.
struct SpeechEvent {
  int round = 0;
  std::string text;
  std::string call_id;
};

using Event = std::variant<TextDeltaEvent, ThinkingDeltaEvent, ToolCallEvent, ToolResultEvent,
                           RoundFinishedEvent, FinalAnswerEvent, ErrorEvent, SpeechEvent>;

// The event as one JSON object (one line of `toolwire chat --json`):
// {"type":"text_delta","round":1,"text":"Hel"}, {"type":"tool_call",...}, ...
std::string to_json(const Event& event);

// The text of a tool result's text parts, joined by newlines.
std::string result_text(const ir::ToolResultPart& result);

}  // namespace toolwire::agent
