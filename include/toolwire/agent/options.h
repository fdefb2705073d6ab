// toolwire/agent/options.h — what configures an agent run and what it returns.
//
// Shared by the blocking Agent (agent.h) and the asynchronous AgentRun
// (agent_run.h).
#pragma once

#include <any>
#include <chrono>
#include <functional>
#include <memory>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include "toolwire/agent/events.h"
#include "toolwire/core/result.h"
#include "toolwire/ir/request.h"
#include "toolwire/ir/response.h"

namespace toolwire::agent {

// A tool executed outside this process (a phone, a browser, a gateway client).
struct RemoteTool {
  ir::ToolDefinition definition;                     // what the model sees (wire name)
  std::optional<std::chrono::milliseconds> timeout;  // else AgentOptions::remote_timeout
};

// How the model's answer is read.
enum class TurnProtocol {
  native,    // the upstream's own tool calls; final text ends the turn
  envelope,  // a JSON envelope in the answer text; only end_turn ends the turn (docs/agent.md)
};
std::string_view to_string(TurnProtocol protocol);
// "native" | "envelope"; invalid_argument otherwise.
Result<TurnProtocol> parse_turn_protocol(std::string_view name);

struct AgentOptions {
  int max_rounds = 8;                                                  // model calls per run
  std::chrono::milliseconds tool_timeout{std::chrono::seconds(30)};    // per local call
  std::chrono::milliseconds remote_timeout{std::chrono::seconds(30)};  // per remote call
  // false: the model is asked for one call per turn and calls run in order
  bool parallel_tool_calls = true;
  size_t max_concurrency = 4;  // local calls running at once
  // A tool whose call ends the run; its "answer" argument (or its raw
  // arguments) becomes the final answer. When the registry has no such tool,
  // the agent offers one taking {"answer": string}.
  std::string end_turn_tool;
  size_t max_turns = 0;  // history window sent to the model; 0 = everything
  // envelope: no tools are sent; the system prompt teaches the envelope
  // (textformats/envelope_turn.h) and end_turn_tool is not used.
  TurnProtocol turn_protocol = TurnProtocol::native;
  bool stream = true;  // stream the model's answer (else generate)
  // Model, system prompt, sampling, tool_choice... messages and tools are
  // filled in by the loop.
  ir::Request base;
  std::vector<RemoteTool> remote_tools;
  // The caller's own tools (a gateway client's, in mixed mode): offered to
  // the model before the registry's, never run by the run.
  std::vector<ir::ToolDefinition> client_tools;
  // true: a call the run cannot make — neither in the registry nor remote (a
  // client tool, or a name the model made up) — is handed back. A turn with
  // such calls runs its other calls, then ends the run
  // (StopReason::client_calls): the handed-back calls in RunResult::client_calls,
  // the history ending with that turn and, when there were others, their results.
  bool hand_back_unknown_calls = false;
  std::shared_ptr<std::any> session;  // handed to every tool's ToolContext
  // Notices such as an ignored late result; default: stderr.
  std::function<void(std::string_view)> log;
};

struct RunResult {
  StopReason reason = StopReason::final_text;
  std::string text;  // final answer (model text or end-turn answer)
  int rounds = 0;    // model calls made
  ir::Usage usage;   // summed over the rounds
  std::optional<Error> error;
  std::vector<ir::ToolCallPart> client_calls;  // StopReason::client_calls, in turn order
};

using EventSink = std::function<void(const Event&)>;

}  // namespace toolwire::agent
