// Renderers of the Mistral families: mistral_nemo (Nemo, 7B v0.3: a JSON
// list after [TOOL_CALLS], 9-character call ids) and mistral_v11 (Small
// 3.2, Magistral, Devstral: [TOOL_CALLS]NAME[ARGS]{...}). Tools go in
// [AVAILABLE_TOOLS], results in [TOOL_RESULTS].
#include "textformats/render_base.h"

namespace toolwire::textformats::render {

namespace {

class MistralBase : public Base {
 public:
  using Base::Base;
  std::string tools_block(std::span<const ir::ToolDefinition> tools) const override {
    return "[AVAILABLE_TOOLS]" + tools_json_array(tools) + "[/AVAILABLE_TOOLS]";
  }
  std::string_view prompt_start() const override { return "<s>"; }
  std::string turn(const TextMessage& m) const override {
    if (m.role == "user") return "[INST]" + m.content + "[/INST]";
    if (m.role == "assistant") return m.content + "</s>";
    if (m.role == "system") return "[SYSTEM_PROMPT]" + m.content + "[/SYSTEM_PROMPT]";
    return m.content;  // results carry their own [TOOL_RESULTS] markup
  }
  std::string generation_prompt() const override { return {}; }
};

// Mistral's tokenizer wants call ids of 9 letters and digits.
std::string nemo_id(std::string_view id) {
  std::string out;
  for (char c : id)
    if (std::isalnum(static_cast<unsigned char>(c))) out += c;
  if (out.size() > 9) out = out.substr(out.size() - 9);
  while (out.size() < 9) out.insert(out.begin(), '0');
  return out;
}

class MistralNemo final : public MistralBase {
 public:
  using MistralBase::MistralBase;
  std::string calls(std::span<const ir::ToolCallPart> calls) const override {
    return "[TOOL_CALLS][" +
           join_calls(calls, ", ",
                      [](const ir::ToolCallPart& c) {
                        return "{\"name\": " + json_quoted(c.name) +
                               ", \"arguments\": " + arguments_text(c) +
                               ", \"id\": " + json_quoted(nemo_id(c.id)) + "}";
                      }) +
           "]";
  }
  std::vector<TextMessage> results(std::span<const ToolResultText> rs) const override {
    return message_per_result(rs, [](const ToolResultText& r) {
      return TextMessage{"tool", "[TOOL_RESULTS]{\"content\": " + json_quoted(r.content) +
                                     ", \"call_id\": " + json_quoted(nemo_id(r.call_id)) +
                                     "}[/TOOL_RESULTS]"};
    });
  }
};

class MistralV11 final : public MistralBase {
 public:
  using MistralBase::MistralBase;
  std::string calls(std::span<const ir::ToolCallPart> calls) const override {
    return join_calls(calls, "", [](const ir::ToolCallPart& c) {
      return "[TOOL_CALLS]" + c.name + "[ARGS]" + arguments_text(c);
    });
  }
  std::vector<TextMessage> results(std::span<const ToolResultText> rs) const override {
    return message_per_result(rs, [](const ToolResultText& r) {
      return TextMessage{"tool", "[TOOL_RESULTS]" + r.content + "[/TOOL_RESULTS]"};
    });
  }
};

}  // namespace

RendererPtr make_mistral_renderer(std::string_view f) {
  if (f == "mistral_nemo") return std::make_unique<MistralNemo>("mistral_nemo");
  if (f == "mistral_v11") return std::make_unique<MistralV11>("mistral_v11");
  return nullptr;
}

}  // namespace toolwire::textformats::render
