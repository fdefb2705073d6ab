// What real model output contains beyond the textbook markup (issue 23):
// markers inside JSON strings, markers named in prose and prose after calls,
// each family's reasoning markup (unclosed, opened by the prompt, calls
// inside it), call ids between name and arguments, an arguments marker lost
// in detokenisation, calls in code fences after prose, and answers that
// ignore the format. Written from the families' chat templates and the
// public parsers' test suites (facts only).
#include "cases.h"

namespace toolwire::textformats::testing {

namespace {

const std::string kParis = R"({"city": "Paris"})";
const std::string kWeatherJson = R"({"name": "get_weather", "arguments": {"city": "Paris"}})";

const std::string ds_begin = "<｜tool▁calls▁begin｜>";
const std::string ds_call = "<｜tool▁call▁begin｜>";
const std::string ds_sep = "<｜tool▁sep｜>";
const std::string ds_call_end = "<｜tool▁call▁end｜>";
const std::string ds_end = "<｜tool▁calls▁end｜>";

const std::string kimi_open = "<|tool_calls_section_begin|><|tool_call_begin|>";
const std::string kimi_args = "<|tool_call_argument_begin|>";
const std::string kimi_close = "<|tool_call_end|><|tool_calls_section_end|>";

void markers_in_strings(std::vector<Case>& c) {
  c.push_back({"hermes",
               "marker_in_string",
               R"(<tool_call>{"name": "write", "arguments": {"text": "ends at </tool_call>, )"
               R"(opens <tool_call>"}}</tool_call>Done.)",
               "Done.",
               "",
               {{"write", R"({"text": "ends at </tool_call>, opens <tool_call>"})"}}});
  c.push_back({"qwen3_coder",
               "marker_in_json_string",
               "<tool_call>\n{\"name\": \"write\", \"arguments\": {\"text\": \"a </tool_call> b\"}}"
               "\n</tool_call>",
               "",
               "",
               {{"write", R"({"text": "a </tool_call> b"})"}}});
  c.push_back({"kimi_k2",
               "marker_in_string",
               kimi_open + "functions.write:0" + kimi_args +
                   R"({"text": "x <|tool_call_end|> <|tool_calls_section_end|> y"})" + kimi_close,
               "",
               "",
               {{"write", R"({"text": "x <|tool_call_end|> <|tool_calls_section_end|> y"})",
                 "functions.write:0"}}});
  c.push_back({"deepseek_v31",
               "marker_in_string",
               ds_begin + ds_call + "write" + ds_sep + R"({"text": "a )" + ds_call_end + ds_end +
                   R"( b"})" + ds_call_end + ds_end,
               "",
               "",
               {{"write", R"({"text": "a )" + ds_call_end + ds_end + R"( b"})"}}});
  c.push_back({"deepseek_r1",
               "marker_in_string",
               "</think>" + ds_begin + ds_call + "function" + ds_sep + "write\n```json\n" +
                   R"({"text": "```" })" + "\n```" + ds_call_end + ds_end,
               "",
               "",
               {{"write", R"({"text": "```"})"}}});
  c.push_back({"mistral_v11",
               "marker_in_string",
               R"([TOOL_CALLS]write[ARGS]{"text": "[TOOL_CALLS]x[ARGS]{}"}After.)",
               "After.",
               "",
               {{"write", R"({"text": "[TOOL_CALLS]x[ARGS]{}"})"}}});
  c.push_back({"functionary_v31",
               "marker_in_string",
               R"(<function=write>{"text": "</function><function=x>"}</function>)",
               "",
               "",
               {{"write", R"({"text": "</function><function=x>"})"}}});
  c.push_back({"harmony",
               "marker_in_string",
               "<|start|>assistant<|channel|>commentary to=functions.write <|constrain|>json"
               "<|message|>{\"text\": \"stop <|call|> or <|end|>\"}<|call|>",
               "",
               "",
               {{"write", R"({"text": "stop <|call|> or <|end|>"})"}}});
  c.push_back(
      {"llama3_builtin",
       "marker_in_string",
       R"(<|python_tag|>{"name": "write", "parameters": {"text": "a <|eom_id|> b"}}<|eom_id|>)",
       "",
       "",
       {{"write", R"({"text": "a <|eom_id|> b"})"}}});
  c.push_back({"llama3_json",
               "call_in_string",
               R"({"name": "write", "parameters": {"text": "{\"name\": \"x\"} <|python_tag|>"}})",
               "",
               "",
               {{"write", R"({"text": "{\"name\": \"x\"} <|python_tag|>"})"}}});
  c.push_back({"mistral_nemo",
               "marker_in_string",
               R"([TOOL_CALLS][{"name": "write", "arguments": {"text": "[TOOL_CALLS] ] }"}}])",
               "",
               "",
               {{"write", R"({"text": "[TOOL_CALLS] ] }"})"}}});
  c.push_back({"command_r7b",
               "marker_in_string",
               R"(<|START_ACTION|>[{"tool_call_id": "0", "tool_name": "write", "parameters": )"
               R"({"text": "<|END_ACTION|>"}}]<|END_ACTION|>)",
               "",
               "",
               {{"write", R"({"text": "<|END_ACTION|>"})", "0"}}});
  c.push_back({"functionary_v32",
               "marker_in_string",
               "write\n{\"text\": \"a >>>all\\nb\"}",
               "",
               "",
               {{"write", R"({"text": "a >>>all\nb"})"}}});
  c.push_back({"glm45",
               "marker_in_value",
               "<tool_call>write\n<arg_key>text</arg_key>\n<arg_value>use </tool_call> here"
               "</arg_value>\n</tool_call>",
               "",
               "",
               {{"write", R"({"text": "use </tool_call> here"})"}}});
  c.push_back({"generic_json",
               "marker_in_string",
               R"({"tool_call": {"name": "write", "arguments": {"text": "```\n}"}}})",
               "",
               "",
               {{"write", R"({"text": "```\n}"})"}}});
}

void prose(std::vector<Case>& c) {
  c.push_back({"hermes",
               "tag_named_in_prose",
               "Wrap each call in <tool_call> tags, like <tool_call>this</tool_call>.",
               "Wrap each call in <tool_call> tags, like <tool_call>this</tool_call>.",
               "",
               {}});
  c.push_back({"hermes",
               "prose_after_call",
               "<tool_call>\n" + kWeatherJson + "\n</tool_call>\nI asked for Paris.",
               "I asked for Paris.",
               "",
               {{"get_weather", kParis}}});
  c.push_back({"qwen3_coder",
               "tags_named_in_prose",
               "Use <tool_call> with <function=name> tags.",
               "Use <tool_call> with <function=name> tags.",
               "",
               {}});
  c.push_back({"qwen3_coder",
               "prose_after_call",
               "<tool_call>\n<function=get_weather>\n<parameter=city>\nParis\n</parameter>\n"
               "</function>\n</tool_call>\nDone.",
               "Done.",
               "",
               {{"get_weather", kParis}}});
  c.push_back({"glm45",
               "tag_named_in_prose",
               "GLM writes <tool_call> blocks around each call.",
               "GLM writes <tool_call> blocks around each call.",
               "",
               {}});
  c.push_back({"mistral_v11",
               "marker_named_in_prose",
               "The [TOOL_CALLS] token starts a call.",
               "The [TOOL_CALLS] token starts a call.",
               "",
               {}});
  c.push_back({"mistral_v11",
               "prose_after_call",
               "[TOOL_CALLS]get_weather[ARGS]" + kParis + "\nAsked.",
               "Asked.",
               "",
               {{"get_weather", kParis}}});
  c.push_back({"mistral_nemo",
               "marker_named_in_prose",
               "Use [TOOL_CALLS] to call a tool.",
               "Use [TOOL_CALLS] to call a tool.",
               "",
               {}});
  c.push_back({"granite",
               "marker_named_in_prose",
               "The <|tool_call|> token opens a list.",
               "The <|tool_call|> token opens a list.",
               "",
               {}});
  c.push_back({"functionary_v31",
               "tag_named_in_prose",
               "Write <function=name> and then the JSON.",
               "Write <function=name> and then the JSON.",
               "",
               {}});
  c.push_back({"functionary_v31",
               "prose_after_call",
               "<function=get_weather>" + kParis + "</function>\nDone.",
               "Done.",
               "",
               {{"get_weather", kParis}}});
  c.push_back(
      {"kimi_k2",
       "prose_after_section",
       kimi_open + "functions.get_weather:0" + kimi_args + kParis + kimi_close + "\nChecked.",
       "Checked.",
       "",
       {{"get_weather", kParis, "functions.get_weather:0"}}});
  c.push_back(
      {"deepseek_v31",
       "prose_after_calls",
       ds_begin + ds_call + "get_weather" + ds_sep + kParis + ds_call_end + ds_end + "\nChecked.",
       "Checked.",
       "",
       {{"get_weather", kParis}}});
  c.push_back({"llama3_json",
               "prose_after_call",
               R"({"name": "get_weather", "parameters": {"city": "Paris"}} Let me know.)",
               "Let me know.",
               "",
               {{"get_weather", kParis}}});
  c.push_back({"pythonic",
               "prose_after_call",
               "[get_weather(city='Paris')]\nChecking now.",
               "Checking now.",
               "",
               {{"get_weather", kParis}}});
  c.push_back(
      {"harmony",
       "prose_after_call",
       "<|channel|>commentary to=functions.get_weather<|message|>" + kParis + "<|call|>Checking.",
       "Checking.",
       "",
       {{"get_weather", kParis}}});
}

void reasoning(std::vector<Case>& c) {
  const std::string call = "<tool_call>\n" + kWeatherJson + "\n</tool_call>";
  c.push_back({"hermes",
               "call_inside_unclosed_think",
               "<think>I need the weather.\n" + call,
               "",
               "I need the weather.",
               {{"get_weather", kParis}}});
  c.push_back({"hermes",
               "prompt_opened_think",
               "The user wants Paris.\n</think>\n\n" + call,
               "",
               "The user wants Paris.",
               {{"get_weather", kParis}},
               {},
               false,
               true});
  c.push_back({"hermes",
               "prompt_opened_think_call_inside",
               "The user wants Paris." + call + "Asked.",
               "Asked.",
               "The user wants Paris.",
               {{"get_weather", kParis}},
               {},
               false,
               true});
  c.push_back({"hermes",
               "prompt_opened_think_tag_repeated",
               "<think>Short.</think>Hi.",
               "Hi.",
               "Short.",
               {},
               {},
               false,
               true});
  c.push_back({"hermes", "stray_close_at_start", "</think>\n\nHello.", "Hello.", "", {}});
  c.push_back({"qwen3_coder",
               "call_inside_unclosed_think",
               "<think>Look it up.<tool_call>\n<function=get_weather>\n<parameter=city>\nParis\n"
               "</parameter>\n</function>\n</tool_call>",
               "",
               "Look it up.",
               {{"get_weather", kParis}}});
  c.push_back({"deepseek_r1",
               "call_inside_unclosed_reasoning",
               "The user wants weather." + ds_begin + ds_call + "function" + ds_sep +
                   "get_weather\n```json\n" + kParis + "\n```" + ds_call_end + ds_end,
               "",
               "The user wants weather.",
               {{"get_weather", kParis}}});
  c.push_back({"deepseek_v31",
               "prompt_opened_think",
               "Plan it.</think>" + ds_begin + ds_call + "get_weather" + ds_sep + kParis +
                   ds_call_end + ds_end,
               "",
               "Plan it.",
               {{"get_weather", kParis}},
               {},
               false,
               true});
  c.push_back({"deepseek_v31",
               "call_inside_unclosed_think",
               "<think>Plan it." + ds_begin + ds_call + "get_weather" + ds_sep + kParis +
                   ds_call_end + ds_end,
               "",
               "Plan it.",
               {{"get_weather", kParis}}});
  c.push_back({"glm45",
               "call_inside_unclosed_think",
               "<think>Weather first.\n<tool_call>get_weather\n<arg_key>city</arg_key>\n"
               "<arg_value>Paris</arg_value>\n</tool_call>",
               "",
               "Weather first.",
               {{"get_weather", kParis}}});
  c.push_back({"glm45",
               "prompt_opened_think",
               "Weather first.</think>\n<tool_call>get_weather\n<arg_key>city</arg_key>\n"
               "<arg_value>Paris</arg_value>\n</tool_call>",
               "",
               "Weather first.",
               {{"get_weather", kParis}},
               {},
               false,
               true});
  c.push_back({"kimi_k2",
               "call_inside_unclosed_think",
               "<think>Weather first." + kimi_open + "functions.get_weather:0" + kimi_args +
                   kParis + kimi_close,
               "",
               "Weather first.",
               {{"get_weather", kParis, "functions.get_weather:0"}}});
  c.push_back({"mistral_v11",
               "think_brackets",
               "[THINK]Paris, then answer.[/THINK]Sure.[TOOL_CALLS]get_weather[ARGS]" + kParis,
               "Sure.",
               "Paris, then answer.",
               {{"get_weather", kParis}}});
  c.push_back({"mistral_v11",
               "call_inside_unclosed_think",
               "[THINK]Paris, then answer.[TOOL_CALLS]get_weather[ARGS]" + kParis,
               "",
               "Paris, then answer.",
               {{"get_weather", kParis}}});
  c.push_back({"granite",
               "think_then_response",
               "<think>Need Paris.</think><response>Checking.<|tool_call|>[" + kWeatherJson +
                   "]</response>",
               "Checking.",
               "Need Paris.",
               {{"get_weather", kParis}}});
  c.push_back({"granite",
               "response_text",
               "<think>Easy.</think>\n<response>It is sunny.</response>",
               "It is sunny.",
               "Easy.",
               {}});
  c.push_back({"command_r7b",
               "action_inside_unclosed_thinking",
               "<|START_THINKING|>Need it.<|START_ACTION|>[{\"tool_call_id\": \"0\", "
               "\"tool_name\": \"get_weather\", \"parameters\": " +
                   kParis + "}]<|END_ACTION|>",
               "",
               "Need it.",
               {{"get_weather", kParis, "0"}}});
  c.push_back({"harmony",
               "analysis_unclosed_then_call",
               "<|channel|>analysis<|message|>Need the weather.<|start|>assistant<|channel|>"
               "commentary to=functions.get_weather <|constrain|>json<|message|>" +
                   kParis + "<|call|>",
               "",
               "Need the weather.",
               {{"get_weather", kParis}}});
  c.push_back({"generic_json",
               "prompt_opened_think",
               "Answer in JSON.</think>{\"response\": \"Hi.\"}",
               "Hi.",
               "Answer in JSON.",
               {},
               {},
               false,
               true});
}

void ids_and_lost_markers(std::vector<Case>& c) {
  c.push_back({"mistral_v11",
               "parallel_call_ids",
               "[TOOL_CALLS]get_weather[CALL_ID]abc123def[ARGS]" + kParis +
                   "[TOOL_CALLS]list_files[CALL_ID]xyz987uvw[ARGS]{}",
               "",
               "",
               {{"get_weather", kParis, "abc123def"}, {"list_files", "{}", "xyz987uvw"}}});
  c.push_back({"kimi_k2",
               "id_without_functions_prefix",
               kimi_open + "get_weather:3" + kimi_args + kParis + kimi_close,
               "",
               "",
               {{"get_weather", kParis, "get_weather:3"}}});
  c.push_back({"mistral_v11",
               "args_marker_lost",
               "[TOOL_CALLS]get_weather" + kParis + "[TOOL_CALLS]list_files[CALL_ID]a1b2c3d4e{}",
               "",
               "",
               {{"get_weather", kParis}, {"list_files", "{}", "a1b2c3d4e"}}});
  c.push_back({"kimi_k2",
               "argument_marker_lost",
               kimi_open + "functions.get_weather:0" + kParis + kimi_close,
               "",
               "",
               {{"get_weather", kParis, "functions.get_weather:0"}}});
  c.push_back({"deepseek_v31",
               "separator_lost",
               ds_begin + ds_call + "get_weather" + kParis + ds_call_end + ds_end,
               "",
               "",
               {{"get_weather", kParis}}});
}

void fences(std::vector<Case>& c) {
  c.push_back({"hermes",
               "fenced_tool_call_after_prose",
               "I'll check.\n```xml\n<tool_call>\n" + kWeatherJson + "\n</tool_call>\n```",
               "I'll check.",
               "",
               {{"get_weather", kParis}}});
  c.push_back({"hermes",
               "fenced_json_after_prose",
               "Calling it:\n```json\n" + kWeatherJson + "\n```\nDone.",
               "Calling it:\nDone.",
               "",
               {{"get_weather", kParis}}});
  c.push_back({"hermes",
               "fence_not_a_call",
               "Example:\n```json\n{\"a\": [1, 2]}\n```\nand ```code```.",
               "Example:\n```json\n{\"a\": [1, 2]}\n```\nand ```code```.",
               "",
               {}});
  c.push_back(
      {"llama3_json",
       "fenced_after_prose",
       "Let me look.\n```json\n{\"name\": \"get_weather\", \"parameters\": " + kParis + "}\n```",
       "Let me look.",
       "",
       {{"get_weather", kParis}}});
  c.push_back({"generic_json",
               "fenced_after_prose",
               "Sure.\n```json\n{\"tool_call\": " + kWeatherJson + "}\n```",
               "Sure.",
               "",
               {{"get_weather", kParis}}});
  c.push_back({"generic_json",
               "fence_not_json",
               "Run:\n```sh\nls -l\n```",
               "Run:\n```sh\nls -l\n```",
               "",
               {}});
  c.push_back({"envelope",
               "fenced_after_prose",
               "Here is my plan:\n```json\n{\"toolCalls\": [{\"type\": \"get_weather\", \"id\": "
               "\"c1\", \"parameters\": " +
                   kParis + "}]}\n```",
               "Here is my plan:",
               "",
               {{"get_weather", kParis, "c1"}}});
}

void format_ignored(std::vector<Case>& c) {
  c.push_back({"envelope",
               "plain_text_kept",
               "I cannot call tools, but Paris is sunny.",
               "I cannot call tools, but Paris is sunny.",
               "",
               {},
               {"not JSON"}});
  for (const char* family : {"granite", "command_r7b", "functionary_v31", "mistral_nemo"})
    c.push_back({family,
                 "plain_text",
                 "It is <b>sunny</b> in Paris [1].",
                 "It is <b>sunny</b> in Paris [1].",
                 "",
                 {}});
}

}  // namespace

void add_real_output_cases(std::vector<Case>& c) {
  markers_in_strings(c);
  prose(c);
  reasoning(c);
  ids_and_lost_markers(c);
  fences(c);
  format_ignored(c);
}

}  // namespace toolwire::textformats::testing
