// toolwire embedded in a program of its own (built against an installed
// toolwire, see CMakeLists.txt): translates an OpenAI Chat request into an
// Anthropic Messages one, then runs one agent turn in which the scripted
// model calls a C++ tool. Prints what it did; exits 1 on any failure.
#include <atomic>
#include <iostream>
#include <string>
#include <variant>

#include <nlohmann/json.hpp>

#include "toolwire/agent/agent.h"
#include "toolwire/agent/events.h"
#include "toolwire/dialects/codec.h"
#include "toolwire/provider/scripted.h"
#include "toolwire/tools/registry.h"
#include "toolwire/tools/tool.h"

namespace tw = toolwire;

namespace {

int fail(const std::string& what) {
  std::cerr << "toolwire_embed: FAIL: " << what << "\n";
  return 1;
}

constexpr const char* kOpenAiRequest = R"({
  "model": "gpt-4o",
  "messages": [{"role": "system", "content": "You are terse."},
               {"role": "user", "content": "Weather in Paris?"}],
  "tools": [{"type": "function", "function": {"name": "get_weather",
    "description": "Current weather for a city",
    "parameters": {"type": "object", "properties": {"city": {"type": "string"}},
                   "required": ["city"]}}}],
  "max_completion_tokens": 256
})";

int translate() {
  const tw::dialects::Codec* from = tw::dialects::find_codec("openai_chat");
  const tw::dialects::Codec* to = tw::dialects::find_codec("anthropic_messages");
  if (!from || !to) return fail("a built-in codec is missing");
  tw::Warnings warnings;
  auto out = tw::dialects::translate_request(*from, *to, kOpenAiRequest, warnings);
  if (!out) return fail("translate: " + out.error().to_string());
  std::cout << "translate " << from->name() << " -> " << to->name() << ": " << *out << "\n";
  for (const tw::Warning& w : warnings)
    std::cout << "  warning " << w.code << " " << w.path << "\n";
  auto body = nlohmann::json::parse(*out);
  if (body["system"] != "You are terse." || body["max_tokens"] != 256 ||
      body["tools"][0]["input_schema"]["required"][0] != "city")
    return fail("the Anthropic request lacks system, max_tokens or the tool's input_schema");
  return 0;
}

// The model calls get_weather with the city it was asked about, then answers
// with the tool's result.
constexpr const char* kScript = R"js({"rules": [
  {"user_pattern": "weather in (\\w+)",
   "calls": [{"name": "get_weather", "arguments": {"city": "$1"}}]},
  {"after_tool": "get_weather", "reply": "Forecast: {{result}}"}]})js";

int agent_turn() {
  tw::tools::Registry registry;
  std::atomic<int> calls{0};
  tw::tools::ToolSpec spec;
  spec.name = "get_weather";
  spec.description = "Current weather for a city";
  spec.input_schema =
      R"({"type":"object","properties":{"city":{"type":"string"}},"required":["city"]})";
  spec.handler =
      tw::tools::SyncHandler([&calls](const nlohmann::json& args, tw::tools::ToolContext&) {
        ++calls;
        return tw::tools::ToolOutput::text("sunny, 18C in " + args["city"].get<std::string>());
      });
  if (auto st = registry.add(std::move(spec)); !st)
    return fail("add tool: " + st.error().to_string());

  auto script = tw::provider::parse_script(kScript);
  if (!script) return fail("script: " + script.error().to_string());
  tw::provider::ScriptedProvider model(std::move(*script));
  tw::agent::Agent agent(model, registry);
  tw::agent::RunResult r =
      agent.run("What is the weather in Paris?", [](const tw::agent::Event& e) {
        if (auto* c = std::get_if<tw::agent::ToolCallEvent>(&e))
          std::cout << "agent: call " << c->call.name << " " << c->call.arguments << "\n";
        else if (auto* t = std::get_if<tw::agent::ToolResultEvent>(&e))
          std::cout << "agent: result " << t->tool_name << ": " << tw::agent::result_text(t->result)
                    << "\n";
      });
  if (r.error) return fail("agent: " + r.error->to_string());
  std::cout << "agent: answer after " << r.rounds << " model calls: " << r.text << "\n";
  if (r.reason != tw::agent::StopReason::final_text || calls != 1 || r.rounds != 2 ||
      r.text != "Forecast: sunny, 18C in Paris")
    return fail("the agent turn did not end with the tool's forecast");
  return 0;
}

}  // namespace

int main() {
  if (int rc = translate()) return rc;
  if (int rc = agent_turn()) return rc;
  std::cout << "toolwire_embed: ok\n";
  return 0;
}
