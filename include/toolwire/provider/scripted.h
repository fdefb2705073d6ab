// toolwire/provider/scripted.h — a deterministic model that follows a script.
//
// For tests and the offline demo: it speaks the same IR and stream events as
// a real upstream, but decides by rules over the last message. A rule matches
// when the conversation ends with a user message (or, with `after_tool`, with
// the results of that tool) and its `user_pattern` (ECMAScript regex,
// case-insensitive) is found in the latest user text. The first matching rule
// answers: text, tool calls with templated arguments, or an upstream error.
//
// Templates in `reply` and in the string values of call arguments:
//   $1..$9      capture groups of user_pattern        $0  the whole match
//   {{user}}    the latest user text                  {{result}}  the after_tool result text
// An argument value that is exactly "$N" becomes a JSON number when the
// capture is an integer ("complete (\\d+)" → {"id": 3}).
// A call name may be a template too ("$1"): it is dropped unless it names a
// tool the request offers, and a rule all of whose templated calls are
// dropped does not match (the next rule is tried).
//
//   {"rules": [
//     {"user_pattern": "add '([^']+)' to my to-?do", "calls": [{"name": "add_todo", "arguments":
//     {"text": "$1"}}]},
//     {"after_tool": "add_todo", "reply": "Done: {{result}}"}
//   ], "fallback": "I can only manage your to-do list."}
//
//   auto script = provider::parse_script(json);
//   provider::ScriptedProvider model(std::move(*script));
//   auto g = model.generate_sync(request);
#pragma once

#include <memory>
#include <string>
#include <string_view>
#include <vector>

#include "toolwire/core/result.h"
#include "toolwire/provider/provider.h"

namespace toolwire::provider {

struct ScriptedCall {
  std::string name;
  std::string arguments = "{}";  // a JSON object; string values are templates
};

struct ScriptRule {
  std::string user_pattern;  // empty: any user text
  std::string after_tool;    // empty: the conversation must end with a user message
  std::string reply;         // text before the calls (may be empty when calls are given)
  std::vector<ScriptedCall> calls;
  std::string error;  // non-empty: the "upstream" fails with this error type
};

struct Script {
  std::vector<ScriptRule> rules;
  std::string fallback = "I have no scripted answer for that.";
};

// Parses the JSON form shown above; errors name the JSON path. Patterns are
// compiled here, so a bad regex is reported at load time.
Result<Script> parse_script(std::string_view json);

struct ScriptedOptions {
  size_t chunk_chars = 12;  // text is streamed in pieces of about this size
  std::string model = "scripted-1";
};

class ScriptedProvider final : public Provider {
 public:
  explicit ScriptedProvider(Script script, ScriptedOptions options = {});
  ~ScriptedProvider() override;

  std::string_view name() const override { return "scripted"; }
  const Capabilities& capabilities() const override { return caps_; }
  std::string_view default_model() const override { return options_.model; }

  // Both run inline: every event and `done` happen before they return.
  ProviderCall generate(ir::Request request, DoneCallback done) override;
  ProviderCall stream(ir::Request request, EventCallback on_event, DoneCallback done) override;

  // The events the script produces for `request` (exposed for tests).
  Result<std::vector<ir::StreamEvent>> respond(const ir::Request& request) const;

 private:
  struct Compiled;
  std::unique_ptr<Compiled> compiled_;
  ScriptedOptions options_;
  Capabilities caps_;
};

}  // namespace toolwire::provider
