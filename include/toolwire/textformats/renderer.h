// toolwire/textformats/renderer.h — the prompt side: a conversation written
// the way a format family's chat template writes it.
//
// A model without a native function-calling API learns its tools from text
// (a `<tools>` block in the system prompt, `[AVAILABLE_TOOLS]`, a TypeScript
// namespace, ...) and sees its earlier calls and their results as text too.
// A PromptRenderer writes those pieces for one family; render_chat() turns an
// IR request with tools into one a chat endpoint without tool support takes
// (tools stripped, their definitions in the system message, calls and
// results as text), render_prompt() into the whole prompt of a raw
// completion endpoint (the family's chat template, ending where the model
// writes). What a renderer writes as an assistant's calls, the same family's
// parser (parser.h) reads back as the same calls.
//
//   auto r = make_renderer("hermes").value();
//   Result<ir::Request> chat = render_chat(*r, request);   // for /v1/chat/completions
//   Result<std::string> prompt = render_prompt(*r, request);  // for /v1/completions
#pragma once

#include <memory>
#include <span>
#include <string>
#include <string_view>
#include <vector>

#include "toolwire/core/result.h"
#include "toolwire/ir/request.h"

namespace toolwire::textformats {

// One message of the conversation as text. `role` is what the template calls
// it: "system", "user", "assistant", or the family's role for results
// ("tool", "ipython", "observation", "tool_response", ...).
struct TextMessage {
  std::string role;
  std::string content;
  bool operator==(const TextMessage&) const = default;
};

// A tool result as the renderer sees it: the call's name is looked up from
// the assistant turn that made the call.
struct ToolResultText {
  std::string call_id;
  std::string name;
  std::string content;  // the result's text parts, joined
  bool is_error = false;
};

class PromptRenderer {
 public:
  virtual ~PromptRenderer() = default;
  virtual std::string_view family() const = 0;

  // The tool definitions and how to call them, for the system message.
  virtual std::string tools_block(std::span<const ir::ToolDefinition> tools) const = 0;
  // One assistant turn (text, then its calls) as the model writes it.
  virtual std::string assistant(std::string_view text,
                                std::span<const ir::ToolCallPart> calls) const = 0;
  // The results of one round of calls: the message(s) that carry them.
  virtual std::vector<TextMessage> results(std::span<const ToolResultText> results) const = 0;

  // The chat template, for a raw prompt: the text before the first message,
  // one message, and what opens the assistant's answer.
  virtual std::string_view prompt_start() const = 0;
  virtual std::string turn(const TextMessage& m) const = 0;
  virtual std::string generation_prompt() const = 0;
  // The generation prompt leaves the model inside its reasoning block (it
  // ends with an opened `<think>`): parse its output with
  // ParserOptions::reasoning_open.
  virtual bool opens_reasoning() const { return false; }
  // What the model writes before its answer when the prompt leaves it inside
  // a block (deepseek_r1 opens `<think>`): prepended to assistant() for the
  // round trip through the parser.
  virtual std::string_view reply_prefix() const { return {}; }
};

// The renderer of `family` (the names of families()); not_found otherwise.
Result<std::unique_ptr<PromptRenderer>> make_renderer(std::string_view family);

// The conversation as text messages: the system prompt with the tools block
// after it, user text, assistant turns with their calls written out, results
// as the family writes them. Thinking is dropped; an image or an unknown
// block (nothing text can carry) is invalid_argument naming its path.
Result<std::vector<TextMessage>> render_messages(const PromptRenderer& r, const ir::Request& req);

// For a chat endpoint without tool support: no tools, no tool choice, the
// tools block in the system prompt, every message text (results in the
// role the family uses when the endpoint knows it, else as user messages).
Result<ir::Request> render_chat(const PromptRenderer& r, const ir::Request& req);

// For a raw completion endpoint: the whole prompt, ending with the
// generation prompt.
Result<std::string> render_prompt(const PromptRenderer& r, const ir::Request& req);

}  // namespace toolwire::textformats
