// Renderers with templates of their own: deepseek_r1 and deepseek_v31
// (<｜User｜>/<｜Assistant｜>, full-width markers), granite
// (<|start_of_role|>), command_r7b (<|START_OF_TURN_TOKEN|>, actions as a
// JSON list) and harmony (GPT-OSS channels; tools as a TypeScript namespace).
#include "textformats/deepseek_tokens.h"
#include "textformats/render_base.h"

namespace toolwire::textformats::render {

namespace {

using namespace deepseek;

class DeepSeek : public Base {
 public:
  DeepSeek(std::string_view family, bool r1) : Base(family), r1_(r1) {}
  std::string tools_block(std::span<const ir::ToolDefinition> tools) const override {
    std::string out = "## Tools\nYou have access to the following tools:\n";
    for (const auto& t : tools) {
      out += "\n### " + t.name + "\n";
      if (!t.description.empty()) out += "Description: " + t.description + "\n";
      out += "\nParameters: " + schema_of(t).dump() + "\n";
    }
    out += "\nIMPORTANT: ALWAYS adhere to this exact format for tool use:\n";
    out += std::string(kCallsBegin) + std::string(kCallBegin) + (r1_ ? "function" : "") +
           (r1_ ? std::string(kSep) + "tool_call_name\n```json\ntool_call_arguments\n```"
                : "tool_call_name" + std::string(kSep) + "tool_call_arguments") +
           std::string(kCallEnd) + "{{additional_tool_calls}}" + std::string(kCallsEnd);
    return out;
  }
  std::string calls(std::span<const ir::ToolCallPart> calls) const override {
    return std::string(kCallsBegin) +
           join_calls(calls, "",
                      [&](const ir::ToolCallPart& c) {
                        std::string out(kCallBegin);
                        if (r1_)
                          out += "function" + std::string(kSep) + c.name + "\n```json\n" +
                                 arguments_text(c) + "\n```";
                        else
                          out += c.name + std::string(kSep) + arguments_text(c);
                        return out + std::string(kCallEnd);
                      }) +
           std::string(kCallsEnd);
  }
  std::vector<TextMessage> results(std::span<const ToolResultText> rs) const override {
    std::string out = r1_ ? "<｜tool▁outputs▁begin｜>" : "";
    for (const auto& r : rs) out += "<｜tool▁output▁begin｜>" + r.content + "<｜tool▁output▁end｜>";
    if (r1_) out += "<｜tool▁outputs▁end｜>";
    return {{"tool", out}};
  }
  std::string_view prompt_start() const override { return "<｜begin▁of▁sentence｜>"; }
  std::string turn(const TextMessage& m) const override {
    if (m.role == "system") return m.content;
    if (m.role == "user") return "<｜User｜>" + m.content;
    if (m.role == "assistant") return "<｜Assistant｜>" + m.content + "<｜end▁of▁sentence｜>";
    return m.content;
  }
  std::string generation_prompt() const override {
    return r1_ ? "<｜Assistant｜><think>\n" : "<｜Assistant｜></think>";
  }
  std::string_view reply_prefix() const override { return r1_ ? "</think>\n\n" : ""; }
  bool opens_reasoning() const override { return r1_; }

 private:
  bool r1_;
};

class Granite final : public Base {
 public:
  using Base::Base;
  std::string tools_block(std::span<const ir::ToolDefinition> tools) const override {
    return "You are a helpful assistant with access to the following function calls. Your task "
           "is to produce a list of function calls necessary to generate response to the user "
           "utterance. Use the following function calls as required.\n<|start_of_role|>"
           "available_tools<|end_of_role|>\n" +
           tools_json_array(tools, 4) +
           "\n\nTo call functions, answer <|tool_call|>[{\"name\": ..., \"arguments\": {...}}]";
  }
  std::string calls(std::span<const ir::ToolCallPart> calls) const override {
    return "<|tool_call|>[" +
           join_calls(calls, ", ",
                      [](const ir::ToolCallPart& c) {
                        return "{\"name\": " + json_quoted(c.name) +
                               ", \"arguments\": " + arguments_text(c) + "}";
                      }) +
           "]";
  }
  std::vector<TextMessage> results(std::span<const ToolResultText> rs) const override {
    return message_per_result(rs, [](const ToolResultText& r) {
      return TextMessage{"tool_response", r.content};
    });
  }
};

class CommandR7b final : public Base {
 public:
  using Base::Base;
  std::string tools_block(std::span<const ir::ToolDefinition> tools) const override {
    return "## Available Tools\nHere is the list of tools that you have available to you.\nYou "
           "can ONLY use the tools listed here. When a tool is not listed below, it is NOT "
           "available to you.\n\n```json\n" +
           tools_json_array(tools, 4) +
           "\n```\n\nTo call tools, write <|START_ACTION|>[{\"tool_call_id\": \"0\", "
           "\"tool_name\": <tool name>, \"parameters\": {<arguments>}}]<|END_ACTION|>; answer "
           "the user in <|START_RESPONSE|>...<|END_RESPONSE|>.";
  }
  std::string assistant(std::string_view text,
                        std::span<const ir::ToolCallPart> calls) const override {
    std::string out;
    if (!text.empty()) out += "<|START_RESPONSE|>" + std::string(text) + "<|END_RESPONSE|>";
    if (!calls.empty()) out += this->calls(calls);
    return out;
  }
  std::string calls(std::span<const ir::ToolCallPart> calls) const override {
    std::string out = "<|START_ACTION|>[";
    int i = 0;
    for (const auto& c : calls) {
      out += i ? ",\n" : "\n";
      std::string id = c.id.empty() ? std::to_string(i) : c.id;
      out += "    {\"tool_call_id\": " + json_quoted(id) +
             ", \"tool_name\": " + json_quoted(c.name) + ", \"parameters\": " + arguments_text(c) +
             "}";
      ++i;
    }
    return out + "\n]<|END_ACTION|>";
  }
  std::vector<TextMessage> results(std::span<const ToolResultText> rs) const override {
    nlohmann::ordered_json a = nlohmann::ordered_json::array();
    for (const auto& r : rs)
      a.push_back({{"tool_call_id", r.call_id},
                   {"results", {{"0", r.content}}},
                   {"is_error",
                    r.is_error ? nlohmann::ordered_json(true) : nlohmann::ordered_json(nullptr)}});
    return {{"system", "<|START_TOOL_RESULT|>" + a.dump(4) + "<|END_TOOL_RESULT|>"}};
  }
  std::string_view prompt_start() const override { return "<BOS_TOKEN>"; }
  std::string turn(const TextMessage& m) const override {
    std::string_view token = m.role == "user"        ? "<|USER_TOKEN|>"
                             : m.role == "assistant" ? "<|CHATBOT_TOKEN|>"
                                                     : "<|SYSTEM_TOKEN|>";
    return "<|START_OF_TURN_TOKEN|>" + std::string(token) + m.content + "<|END_OF_TURN_TOKEN|>";
  }
  std::string generation_prompt() const override {
    return "<|START_OF_TURN_TOKEN|><|CHATBOT_TOKEN|>";
  }
};

class Harmony final : public Base {
 public:
  using Base::Base;
  std::string tools_block(std::span<const ir::ToolDefinition> tools) const override {
    return "# Tools\n\n## functions\n\n" + typescript_namespace(tools);
  }
  // Each part is a message of its own: final text, then one commentary per call.
  std::string assistant(std::string_view text,
                        std::span<const ir::ToolCallPart> calls) const override {
    std::string out;
    if (!text.empty())
      out += "<|start|>assistant<|channel|>final<|message|>" + std::string(text) + "<|end|>";
    if (!calls.empty()) out += this->calls(calls);
    return out;
  }
  std::string calls(std::span<const ir::ToolCallPart> calls) const override {
    return join_calls(calls, "", [](const ir::ToolCallPart& c) {
      return "<|start|>assistant<|channel|>commentary to=functions." + c.name +
             " <|constrain|>json<|message|>" + arguments_text(c) + "<|call|>";
    });
  }
  std::vector<TextMessage> results(std::span<const ToolResultText> rs) const override {
    return message_per_result(rs, [](const ToolResultText& r) {
      return TextMessage{"functions." + r.name + " to=assistant<|channel|>commentary", r.content};
    });
  }
  std::string turn(const TextMessage& m) const override {
    if (m.role == "assistant") return m.content;  // already written as messages
    return "<|start|>" + m.role + "<|message|>" + m.content + "<|end|>";
  }
  std::string generation_prompt() const override { return "<|start|>assistant"; }
};

}  // namespace

RendererPtr make_other_renderer(std::string_view f) {
  if (f == "deepseek_r1") return std::make_unique<DeepSeek>("deepseek_r1", true);
  if (f == "deepseek_v31") return std::make_unique<DeepSeek>("deepseek_v31", false);
  if (f == "granite")
    return std::make_unique<Granite>(
        "granite", TurnLayout{"<|start_of_role|>", "<|end_of_role|>", "<|end_of_text|>\n"});
  if (f == "command_r7b") return std::make_unique<CommandR7b>("command_r7b");
  if (f == "harmony") return std::make_unique<Harmony>("harmony");
  return nullptr;
}

}  // namespace toolwire::textformats::render
