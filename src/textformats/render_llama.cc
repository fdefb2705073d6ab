// Renderers of the Llama-based families: llama3_json and llama3_builtin
// (Llama 3.1-3.3), pythonic (Llama 4), functionary_v31 and functionary_v32
// (Llama 3 templates). Results go back in the `ipython` role (`tool` for
// functionary v3.2).
#include "textformats/render_base.h"

namespace toolwire::textformats::render {

namespace {

class Llama3Base : public Base {
 public:
  explicit Llama3Base(std::string_view family, TurnLayout layout = kLlama3)
      : Base(family, layout) {}
  std::vector<TextMessage> results(std::span<const ToolResultText> rs) const override {
    return message_per_result(rs, [&](const ToolResultText& r) {
      return TextMessage{result_role(), r.content};
    });
  }
  std::string_view prompt_start() const override { return "<|begin_of_text|>"; }

 protected:
  virtual std::string result_role() const { return "ipython"; }
};

constexpr std::string_view kJsonInstructions =
    "Given the following functions, please respond with a JSON for a function call with its "
    "proper arguments that best answers the given prompt.\n\nRespond in the format {\"name\": "
    "function name, \"parameters\": dictionary of argument name and its value}. Do not use "
    "variables.\n\n";

std::string json_call(const ir::ToolCallPart& c) {
  return "{\"name\": " + json_quoted(c.name) + ", \"parameters\": " + arguments_text(c) + "}";
}

class Llama3Json final : public Llama3Base {
 public:
  using Llama3Base::Llama3Base;
  std::string tools_block(std::span<const ir::ToolDefinition> tools) const override {
    std::string out = "Environment: ipython\n\n" + std::string(kJsonInstructions);
    for (const auto& t : tools) out += openai_tool(t).dump(4) + "\n\n";
    return out;
  }
  std::string calls(std::span<const ir::ToolCallPart> calls) const override {
    return "<|python_tag|>" + join_calls(calls, "; ", json_call);
  }
};

bool is_builtin(std::string_view name) {
  return name == "brave_search" || name == "wolfram_alpha" || name == "code_interpreter";
}

class Llama3Builtin final : public Llama3Base {
 public:
  using Llama3Base::Llama3Base;
  std::string tools_block(std::span<const ir::ToolDefinition> tools) const override {
    std::string builtin;
    for (const auto& t : tools)
      if (is_builtin(t.name) && t.name != "code_interpreter")
        builtin += (builtin.empty() ? "" : ", ") + t.name;
    std::string out = "Environment: ipython\n";
    if (!builtin.empty()) out += "Tools: " + builtin + "\n";
    out += "\n";
    bool custom = false;
    for (const auto& t : tools)
      if (!is_builtin(t.name)) custom = true;
    if (custom) {
      out += kJsonInstructions;
      for (const auto& t : tools)
        if (!is_builtin(t.name)) out += openai_tool(t).dump(4) + "\n\n";
    }
    return out;
  }
  // Each call after its own <|python_tag|>, ended by <|eom_id|>.
  std::string calls(std::span<const ir::ToolCallPart> calls) const override {
    return join_calls(calls, "", [](const ir::ToolCallPart& c) {
      nlohmann::ordered_json args = arguments_of(c);
      std::string out = "<|python_tag|>";
      if (const std::string* code = code_argument(args); code && c.name == "code_interpreter")
        out += *code;
      else if (is_builtin(c.name))
        out += c.name + ".call(" + python_kwargs(args) + ")";
      else
        out += json_call(c);
      return out + "<|eom_id|>";
    });
  }
};

class Pythonic final : public Llama3Base {
 public:
  using Llama3Base::Llama3Base;
  std::string tools_block(std::span<const ir::ToolDefinition> tools) const override {
    return "You are an expert in composing functions. You are given a question and a set of "
           "possible functions. Based on the question, you may need to make one or more "
           "function/tool calls to achieve the purpose.\n\nIf you decide to invoke any of the "
           "function(s), you MUST put it in the format of [func_name1(params_name1=params_value1, "
           "params_name2=params_value2...), func_name2(params)]\nYou SHOULD NOT include any other "
           "text in the response if you call a function.\n\nHere is a list of functions in JSON "
           "format that you can invoke.\n" +
           tools_json_array(tools, 4);
  }
  // A list after prose is marked off (the parser takes a bare list only at the start).
  std::string assistant(std::string_view text,
                        std::span<const ir::ToolCallPart> calls) const override {
    if (text.empty() || calls.empty()) return Base::assistant(text, calls);
    return std::string(text) + "<|python_start|>" + this->calls(calls) + "<|python_end|>";
  }
  std::string calls(std::span<const ir::ToolCallPart> calls) const override {
    return "[" +
           join_calls(calls, ", ",
                      [](const ir::ToolCallPart& c) {
                        return c.name + "(" + python_kwargs(arguments_of(c)) + ")";
                      }) +
           "]";
  }
};

class FunctionaryV31 final : public Llama3Base {
 public:
  using Llama3Base::Llama3Base;
  std::string tools_block(std::span<const ir::ToolDefinition> tools) const override {
    std::string out = "Environment: ipython\n\nYou have access to the following functions:\n\n";
    for (const auto& t : tools)
      out += "Use the function '" + t.name + "' to '" + t.description + "'\n" +
             openai_tool(t)["function"].dump() + "\n\n";
    out +=
        "Think very carefully before calling functions.\nIf you choose to call a function ONLY "
        "reply in the following format:\n<function=function_name>{parameters}</function>\n"
        "where parameters is a JSON dict with the function argument name as key and function "
        "argument value as value.\n\nReminder:\n- Function calls MUST follow the specified "
        "format, start with <function= and end with </function>\n- Required parameters MUST be "
        "specified\n- Put the entire function call reply on one line\n";
    return out;
  }
  std::string calls(std::span<const ir::ToolCallPart> calls) const override {
    return join_calls(calls, "", [](const ir::ToolCallPart& c) {
      nlohmann::ordered_json args = arguments_of(c);
      if (const std::string* code = code_argument(args); code && c.name == "python")
        return "<|python_tag|>" + *code + "<|eom_id|>";
      return "<function=" + c.name + ">" + arguments_text(c) + "</function>";
    });
  }
};

class FunctionaryV32 final : public Llama3Base {
 public:
  using Llama3Base::Llama3Base;
  std::string tools_block(std::span<const ir::ToolDefinition> tools) const override {
    return "You are capable of executing available function(s) if required.\nOnly execute "
           "function(s) when absolutely necessary.\nAsk for the required input to:recipient==all\n"
           "Use JSON for function arguments.\nRespond in this format:\n>>>${recipient}\n"
           "${content}\nAvailable functions:\n// Supported function definitions that should be "
           "called when necessary.\n" +
           typescript_namespace(tools);
  }
  // Every part opens with >>>recipient; text goes to `all`.
  std::string assistant(std::string_view text,
                        std::span<const ir::ToolCallPart> calls) const override {
    std::string out;
    if (!text.empty()) out += ">>>all\n" + std::string(text);
    if (!calls.empty()) out += this->calls(calls);
    return out;
  }
  std::string calls(std::span<const ir::ToolCallPart> calls) const override {
    return join_calls(calls, "", [](const ir::ToolCallPart& c) {
      return ">>>" + c.name + "\n" + arguments_text(c);
    });
  }
  std::string generation_prompt() const override { return Llama3Base::generation_prompt() + ">>>"; }

 protected:
  std::string result_role() const override { return "tool"; }
};

}  // namespace

RendererPtr make_llama_renderer(std::string_view f) {
  if (f == "llama3_json") return std::make_unique<Llama3Json>("llama3_json");
  if (f == "llama3_builtin") return std::make_unique<Llama3Builtin>("llama3_builtin");
  if (f == "pythonic")  // Llama 4's template
    return std::make_unique<Pythonic>(
        "pythonic", TurnLayout{"<|header_start|>", "<|header_end|>\n\n", "<|eot|>"});
  if (f == "functionary_v31") return std::make_unique<FunctionaryV31>("functionary_v31");
  if (f == "functionary_v32") return std::make_unique<FunctionaryV32>("functionary_v32");
  return nullptr;
}

}  // namespace toolwire::textformats::render
