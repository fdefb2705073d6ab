// The renderer every family starts from: ChatML turns, the assistant's text
// followed by its calls, and one message per round of results. A family
// overrides what its template writes differently.
#pragma once

#include <memory>
#include <string>

#include "textformats/render_util.h"
#include "toolwire/textformats/renderer.h"

namespace toolwire::textformats::render {

class Base : public PromptRenderer {
 public:
  explicit Base(std::string_view family) : family_(family) {}
  std::string_view family() const override { return family_; }

  std::string assistant(std::string_view text,
                        std::span<const ir::ToolCallPart> calls) const override {
    std::string c = calls.empty() ? std::string() : this->calls(calls);
    if (text.empty()) return c;
    if (c.empty()) return std::string(text);
    return std::string(text) + "\n" + c;
  }
  // The calls of one turn (never empty).
  virtual std::string calls(std::span<const ir::ToolCallPart> calls) const = 0;

  // `<tool_response>` blocks in one user message (Hermes / Qwen / GLM).
  std::vector<TextMessage> results(std::span<const ToolResultText> rs) const override {
    std::string out;
    for (const auto& r : rs) {
      if (!out.empty()) out += '\n';
      out += "<tool_response>\n" + r.content + "\n</tool_response>";
    }
    return {{"user", out}};
  }

  std::string_view prompt_start() const override { return {}; }
  std::string turn(const TextMessage& m) const override { return chatml_turn(m); }
  std::string generation_prompt() const override { return "<|im_start|>assistant\n"; }

 private:
  std::string_view family_;
};

using RendererPtr = std::unique_ptr<PromptRenderer>;

// One factory per group of families (render_<group>.cc); render.cc lists them.
RendererPtr make_chatml_renderer(
    std::string_view family);  // hermes, qwen3_coder, glm45, generic_json, envelope, kimi_k2
RendererPtr make_llama_renderer(
    std::string_view family);  // llama3_json, llama3_builtin, pythonic, functionary_v31/v32
RendererPtr make_mistral_renderer(std::string_view family);  // mistral_nemo, mistral_v11
RendererPtr make_other_renderer(
    std::string_view family);  // deepseek_r1/v31, granite, command_r7b, harmony

}  // namespace toolwire::textformats::render
