// The renderer every family starts from: ChatML turns, the assistant's text
// followed by its calls, and one message per round of results. A family
// overrides what its template writes differently.
#pragma once

#include <memory>
#include <string>

#include "textformats/render_util.h"
#include "toolwire/textformats/renderer.h"

namespace toolwire::textformats::render {

// A turn written `open ROLE middle CONTENT close`; the generation prompt is
// the assistant's turn, opened.
struct TurnLayout {
  std::string_view open;
  std::string_view middle;
  std::string_view close;
};
inline constexpr TurnLayout kChatml{"<|im_start|>", "\n", "<|im_end|>\n"};
inline constexpr TurnLayout kLlama3{"<|start_header_id|>", "<|end_header_id|>\n\n", "<|eot_id|>"};

class Base : public PromptRenderer {
 public:
  explicit Base(std::string_view family, TurnLayout layout = kChatml)
      : family_(family), layout_(layout) {}
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
  std::string turn(const TextMessage& m) const override {
    return std::string(layout_.open) + m.role + std::string(layout_.middle) + m.content +
           std::string(layout_.close);
  }
  std::string generation_prompt() const override {
    return std::string(layout_.open) + "assistant" + std::string(layout_.middle);
  }

 private:
  std::string_view family_;
  TurnLayout layout_;
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
