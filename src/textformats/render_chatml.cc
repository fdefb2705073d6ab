// Renderers of the families whose templates are ChatML or close to it:
// hermes (Hermes 2 Pro, Qwen 2.5/3), qwen3_coder, glm45, kimi_k2,
// generic_json and envelope.
#include "textformats/render_base.h"

namespace toolwire::textformats::render {

namespace {

constexpr std::string_view kMayCall =
    "# Tools\n\nYou may call one or more functions to assist with the user query.\n\n";

// The tools, then the rule of the families whose whole answer is JSON; the
// shape of that JSON follows.
std::string json_answer_tools(std::span<const ir::ToolDefinition> tools) {
  return "# Tools\n\nYou can call these tools:\n" + tools_json_array(tools, 2) +
         "\n\nAnswer with one JSON object and nothing else:";
}

class Hermes final : public Base {
 public:
  using Base::Base;
  std::string tools_block(std::span<const ir::ToolDefinition> tools) const override {
    return xml_tools_block(tools, kMayCall) +
           "For each function call, return a json object with function name and "
           "arguments within <tool_call></tool_call> XML tags:\n<tool_call>\n{\"name\": "
           "<function-name>, \"arguments\": <args-json-object>}\n</tool_call>";
  }
  std::string calls(std::span<const ir::ToolCallPart> calls) const override {
    return join_calls(calls, "\n", [](const ir::ToolCallPart& c) {
      return "<tool_call>\n{\"name\": " + json_quoted(c.name) +
             ", \"arguments\": " + arguments_text(c) + "}\n</tool_call>";
    });
  }
};

class Qwen3Coder final : public Base {
 public:
  using Base::Base;
  std::string tools_block(std::span<const ir::ToolDefinition> tools) const override {
    std::string out = "# Tools\n\nYou have access to the following functions:\n\n<tools>";
    for (const auto& t : tools) {
      out += "\n<function>\n<name>" + t.name + "</name>";
      if (!t.description.empty()) out += "\n<description>" + t.description + "</description>";
      out += "\n<parameters>";
      nlohmann::ordered_json s = schema_of(t);
      if (auto p = s.find("properties"); p != s.end() && p->is_object())
        for (const auto& [k, v] : p->items()) {
          out += "\n<parameter>\n<name>" + k + "</name>";
          if (v.is_object()) {
            if (auto ty = v.find("type"); ty != v.end())
              out +=
                  "\n<type>" + (ty->is_string() ? ty->get<std::string>() : ty->dump()) + "</type>";
            if (auto d = v.find("description"); d != v.end() && d->is_string())
              out += "\n<description>" + d->get<std::string>() + "</description>";
          }
          out += "\n</parameter>";
        }
      if (auto r = s.find("required"); r != s.end())
        out += "\n<required>" + r->dump() + "</required>";
      out += "\n</parameters>\n</function>";
    }
    out +=
        "\n</tools>\n\nIf you choose to call a function ONLY reply in the following format with NO "
        "suffix:\n\n<tool_call>\n<function=example_function_name>\n<parameter=example_parameter_1>"
        "\nvalue_1\n</parameter>\n<parameter=example_parameter_2>\nThis is the value for the "
        "second "
        "parameter\nthat can span\nmultiple lines\n</parameter>\n</function>\n</tool_call>\n\n"
        "<IMPORTANT>\nReminder:\n- Function calls MUST follow the specified format: an inner "
        "<function=...></function> block must be nested within <tool_call></tool_call> XML tags\n"
        "- Required parameters MUST be specified\n</IMPORTANT>";
    return out;
  }
  std::string calls(std::span<const ir::ToolCallPart> calls) const override {
    return join_calls(calls, "\n", [](const ir::ToolCallPart& c) {
      std::string out = "<tool_call>\n<function=" + c.name + ">\n";
      const nlohmann::ordered_json args = arguments_of(c);  // outlives the loop
      for (const auto& [k, v] : args.items())
        out += "<parameter=" + k + ">\n" + xml_value(v) + "\n</parameter>\n";
      return out + "</function>\n</tool_call>";
    });
  }
};

class Glm45 final : public Base {
 public:
  using Base::Base;
  std::string tools_block(std::span<const ir::ToolDefinition> tools) const override {
    return xml_tools_block(tools, kMayCall) +
           "For each function call, output the function name and arguments within "
           "the following XML format:\n<tool_call>{function-name}\n<arg_key>{arg-key-1}</arg_key>\n"
           "<arg_value>{arg-value-1}</arg_value>\n<arg_key>{arg-key-2}</arg_key>\n"
           "<arg_value>{arg-value-2}</arg_value>\n...\n</tool_call>";
  }
  std::string calls(std::span<const ir::ToolCallPart> calls) const override {
    return join_calls(calls, "\n", [](const ir::ToolCallPart& c) {
      std::string out = "<tool_call>" + c.name + "\n";
      const nlohmann::ordered_json args = arguments_of(c);  // outlives the loop
      for (const auto& [k, v] : args.items())
        out += "<arg_key>" + k + "</arg_key>\n<arg_value>" + xml_value(v) + "</arg_value>\n";
      return out + "</tool_call>";
    });
  }
  std::vector<TextMessage> results(std::span<const ToolResultText> rs) const override {
    std::vector<TextMessage> out = Base::results(rs);
    out[0].role = "observation";
    return out;
  }
  std::string_view prompt_start() const override { return "[gMASK]<sop>"; }
};

class KimiK2 final : public Base {
 public:
  using Base::Base;
  std::string tools_block(std::span<const ir::ToolDefinition> tools) const override {
    return "# Tools\n\nYou can call these tools (JSON):\n" + tools_json_array(tools) +
           "\n\nCall tools with <|tool_calls_section_begin|><|tool_call_begin|>functions."
           "NAME:INDEX<|tool_call_argument_begin|>{JSON arguments}<|tool_call_end|>"
           "<|tool_calls_section_end|>";
  }
  std::string calls(std::span<const ir::ToolCallPart> calls) const override {
    std::string out = "<|tool_calls_section_begin|>";
    int i = 0;
    for (const auto& c : calls) {
      out += "<|tool_call_begin|>" + call_id(c, i++) + "<|tool_call_argument_begin|>" +
             arguments_text(c) + "<|tool_call_end|>";
    }
    return out + "<|tool_calls_section_end|>";
  }
  std::vector<TextMessage> results(std::span<const ToolResultText> rs) const override {
    return message_per_result(rs, [](const ToolResultText& r) {
      return TextMessage{"tool", "## Return of " + r.call_id + "\n" + r.content};
    });
  }
  std::string turn(const TextMessage& m) const override {
    std::string_view token = m.role == "user"        ? "user"
                             : m.role == "assistant" ? "assistant"
                                                     : "system";
    return "<|im_" + std::string(token) + "|>" + m.role + "<|im_middle|>" + m.content +
           "<|im_end|>";
  }
  std::string generation_prompt() const override {
    return "<|im_assistant|>assistant<|im_middle|>";
  }

 private:
  // Kimi's ids are `functions.NAME:INDEX`; others are replaced by one.
  static std::string call_id(const ir::ToolCallPart& c, int i) {
    if (c.id.starts_with("functions.") && c.id.find(':') != std::string::npos) return c.id;
    return "functions." + c.name + ":" + std::to_string(i);
  }
};

class GenericJson final : public Base {
 public:
  using Base::Base;
  std::string tools_block(std::span<const ir::ToolDefinition> tools) const override {
    return json_answer_tools(tools) +
           " {\"tool_calls\": [{\"name\": "
           "<tool name>, \"arguments\": {<arguments>}}]} to call tools, or {\"response\": "
           "\"<your answer>\"} to answer the user.";
  }
  std::string assistant(std::string_view text,
                        std::span<const ir::ToolCallPart> calls) const override {
    if (calls.empty()) return "{\"response\": " + json_quoted(text) + "}";
    return this->calls(calls);
  }
  std::string calls(std::span<const ir::ToolCallPart> calls) const override {
    return "{\"tool_calls\": [" +
           join_calls(calls, ", ",
                      [](const ir::ToolCallPart& c) {
                        std::string out = "{\"name\": " + json_quoted(c.name) +
                                          ", \"arguments\": " + arguments_text(c);
                        if (!c.id.empty()) out += ", \"id\": " + json_quoted(c.id);
                        return out + "}";
                      }) +
           "]}";
  }
  std::vector<TextMessage> results(std::span<const ToolResultText> rs) const override {
    nlohmann::ordered_json a = nlohmann::ordered_json::array();
    for (const auto& r : rs) {
      nlohmann::ordered_json x = {{"tool", r.name}, {"content", r.content}};
      if (!r.call_id.empty()) x["id"] = r.call_id;
      if (r.is_error) x["is_error"] = true;
      a.push_back(std::move(x));
    }
    return {{"user", "{\"tool_responses\": " + a.dump() + "}"}};
  }
};

class Envelope final : public Base {
 public:
  using Base::Base;
  std::string tools_block(std::span<const ir::ToolDefinition> tools) const override {
    return json_answer_tools(tools) +
           "\n{\"toolCalls\": [{\"type\": "
           "<tool name>, \"id\": <a short unique id>, \"operation\": <what the call does, for a "
           "human>, \"parameters\": {<arguments>}, \"priority\": 0}]}";
  }
  // Text cannot be written in an envelope; a turn with calls is the envelope alone.
  std::string assistant(std::string_view text,
                        std::span<const ir::ToolCallPart> calls) const override {
    return calls.empty() ? std::string(text) : this->calls(calls);
  }
  std::string calls(std::span<const ir::ToolCallPart> calls) const override {
    return "{\"toolCalls\": [" +
           join_calls(calls, ", ",
                      [](const ir::ToolCallPart& c) {
                        std::string out = "{\"type\": " + json_quoted(c.name);
                        if (!c.id.empty()) out += ", \"id\": " + json_quoted(c.id);
                        return out + ", \"parameters\": " + arguments_text(c) + "}";
                      }) +
           "]}";
  }
  std::vector<TextMessage> results(std::span<const ToolResultText> rs) const override {
    nlohmann::ordered_json a = nlohmann::ordered_json::array();
    for (const auto& r : rs)
      a.push_back(
          {{"id", r.call_id}, {"type", r.name}, {"result", r.content}, {"isError", r.is_error}});
    return {{"user", "{\"toolResults\": " + a.dump() + "}"}};
  }
};

}  // namespace

RendererPtr make_chatml_renderer(std::string_view f) {
  if (f == "hermes") return std::make_unique<Hermes>("hermes");
  if (f == "qwen3_coder") return std::make_unique<Qwen3Coder>("qwen3_coder");
  if (f == "glm45") return std::make_unique<Glm45>("glm45", TurnLayout{"<|", "|>\n", ""});
  if (f == "kimi_k2") return std::make_unique<KimiK2>("kimi_k2");
  if (f == "generic_json") return std::make_unique<GenericJson>("generic_json");
  if (f == "envelope") return std::make_unique<Envelope>("envelope");
  return nullptr;
}

}  // namespace toolwire::textformats::render
