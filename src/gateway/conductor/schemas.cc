// The JSON Schemas of the conductor's events: the one source for the
// validator (protocol.cc) and docs/conductor.md (a test keeps the two equal).
#include "gateway/conductor/protocol.h"

namespace toolwire::gateway::conductor {

std::string_view envelope_schema() {
  return R"({"type":"object","required":["type"],"properties":{"id":{"type":["string","integer"]},"type":{"type":"string"},"sessionId":{"type":"string"},"timestamp":{"type":"string"},"payload":{"type":"object"}}})";
}

const std::vector<std::pair<std::string, std::string>>& client_schemas() {
  static const std::vector<std::pair<std::string, std::string>> s = {
      {"session.start",
       R"({"type":"object","properties":{"model":{"type":"string"},"system":{"type":"string"},"apiKey":{"type":"string"},"tools":{"type":"array","maxItems":128,"items":{"type":"object","required":["name"],"properties":{"name":{"type":"string","pattern":"^[a-zA-Z0-9_.-]{1,64}$"},"description":{"type":"string"},"parameters":{"type":"object"}}}},"options":{"type":"object","properties":{"maxToolRounds":{"type":"integer","minimum":1,"maximum":100},"toolTimeoutMs":{"type":"integer","minimum":1,"maximum":3600000},"historyTurns":{"type":"integer","minimum":0,"maximum":10000},"partial":{"enum":["cumulative","delta"]},"uiCalls":{"type":"boolean"}}},"resume":{"type":"object","required":["sessionId","token"],"properties":{"sessionId":{"type":"string"},"token":{"type":"string"},"lastEventId":{"type":["string","integer"]}}}}})"},
      {"transcript.final",
       R"({"type":"object","required":["text"],"properties":{"text":{"type":"string","minLength":1}}})"},
      {"user.message",
       R"({"type":"object","required":["text"],"properties":{"text":{"type":"string","minLength":1}}})"},
      {"tool.result",
       R"({"type":"object","required":["callId"],"properties":{"callId":{"type":"string","minLength":1},"result":{},"error":{"type":"string"}}})"},
      {"session.cancel", R"({"type":"object"})"},
      {"ping", R"({"type":"object"})"},
  };
  return s;
}

const std::vector<std::pair<std::string, std::string>>& server_schemas() {
  static const std::vector<std::pair<std::string, std::string>> s = {
      {"session.ready",
       R"({"type":"object","required":["sessionId","resumeToken","tools"],"properties":{"sessionId":{"type":"string"},"resumeToken":{"type":"string"},"tools":{"type":"array","items":{"type":"string"}},"resumed":{"type":"boolean"}}})"},
      {"assistant.speech.partial",
       R"({"type":"object","required":["text"],"properties":{"text":{"type":"string"}}})"},
      {"assistant.text.delta",
       R"({"type":"object","required":["text"],"properties":{"text":{"type":"string"}}})"},
      {"assistant.speech.final",
       R"({"type":"object","required":["text"],"properties":{"text":{"type":"string"}}})"},
      {"assistant.say",
       R"({"type":"object","required":["text"],"properties":{"text":{"type":"string"}}})"},
      {"tool.call",
       R"({"type":"object","required":["callId","name","arguments"],"properties":{"callId":{"type":"string"},"name":{"type":"string"},"arguments":{"type":"string"}}})"},
      {"state",
       R"({"type":"object","required":["state"],"properties":{"state":{"enum":["thinking","speaking","idle"]}}})"},
      {"error",
       R"({"type":"object","required":["code","message","retryable"],"properties":{"code":{"type":"string"},"message":{"type":"string"},"retryable":{"type":"boolean"},"ref":{"type":"string"}}})"},
      {"pong", R"({"type":"object"})"},
  };
  return s;
}

}  // namespace toolwire::gateway::conductor
