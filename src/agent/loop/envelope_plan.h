// The envelope turn protocol's side of an AgentRun (TurnProtocol::envelope):
// the system prompt, and one answer turned into the calls of a round in the
// order they run, each with what the run does with it. The run itself
// (agent_run.cc) executes them one at a time.
#pragma once

#include <string>
#include <string_view>
#include <vector>

#include "toolwire/agent/options.h"
#include "toolwire/ir/parts.h"
#include "toolwire/textformats/tool_set.h"
#include "toolwire/tools/registry.h"

namespace toolwire::agent::envelope {

enum class Kind {
  tool,       // a registry tool (or an unknown name: the executor answers it)
  remote,     // AgentOptions::remote_tools
  send_chat,  // text to the user
  say,        // speech
  end_turn,
  invalid,  // arguments that fail a pseudo or remote tool's schema: an error result
};

struct Step {
  ir::ToolCallPart call;  // id unique within the round (generated when missing or repeated)
  Kind kind = Kind::tool;
  std::string text;  // send_chat's content, say's utterance, or the invalid call's error
};

struct Plan {
  std::vector<Step> steps;          // in the order they run
  std::vector<std::string> errors;  // what could not be read, fed back to the model
};

class Protocol {
 public:
  Protocol(const tools::Registry& registry, const std::vector<RemoteTool>& remote);

  // Appended to the request's system prompt.
  const std::string& system_prompt() const { return prompt_; }

  // One answer of round `round`. `native_calls`: the upstream also sent tool
  // calls of its own (they are dropped and reported).
  Plan plan(std::string_view answer, int round, bool native_calls) const;

 private:
  std::vector<std::string> remote_names_;
  textformats::ToolSet checks_;  // the pseudo-tools' and remote tools' schemas
  std::string prompt_;
};

}  // namespace toolwire::agent::envelope
