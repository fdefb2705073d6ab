#include "cases.h"

namespace toolwire::textformats::testing {

namespace {

const std::string kNested =
    R"({"options": {"query": "say \"hi\" {now}", "list": [1, {"x": "]"}]}, "tags": ["a,b", "}"]})";
const std::string kUnicode = R"({"city": "Zürich 東京 🌧"})";
const std::string kParis = R"({"city": "Paris"})";

std::vector<Case> make() {
  std::vector<Case> c;
  // ---- hermes
  c.push_back({"hermes",
               "single",
               "<tool_call>\n{\"name\": \"get_weather\", \"arguments\": {\"city\": \"Paris\"}}\n"
               "</tool_call>",
               "",
               "",
               {{"get_weather", kParis}}});
  c.push_back({"hermes",
               "parallel_prose_reasoning",
               "<think>\nThe user wants two cities.\n</think>\n\nLet me check both.\n"
               "<tool_call>\n{\"name\": \"get_weather\", \"arguments\": {\"city\": \"Paris\"}}\n"
               "</tool_call>\n<tool_call>\n{\"name\": \"get_weather\", \"arguments\": "
               "{\"city\": \"Oslo\", \"days\": 2}}\n</tool_call>\nOne moment.",
               "Let me check both.\nOne moment.",
               "The user wants two cities.",
               {{"get_weather", kParis}, {"get_weather", R"({"city":"Oslo","days":2})"}}});
  c.push_back({"hermes",
               "nested_quotes_braces",
               "<tool_call>{\"name\": \"configure\", \"arguments\": " + kNested + "}</tool_call>",
               "",
               "",
               {{"configure", kNested}}});
  c.push_back({"hermes",
               "unicode",
               "Voilà ✓ <tool_call>{\"name\": \"get_weather\", \"arguments\": " + kUnicode +
                   "}</tool_call>",
               "Voilà ✓",
               "",
               {{"get_weather", kUnicode}}});
  c.push_back({"hermes",
               "empty_and_missing_args",
               "<tool_call>{\"name\": \"list_files\", \"arguments\": {}}</tool_call>"
               "<tool_call>{\"name\": \"list_files\"}</tool_call>",
               "",
               "",
               {{"list_files", "{}"}, {"list_files", "{}"}}});
  c.push_back(
      {"hermes",
       "arguments_as_string",
       R"(<tool_call>{"name": "get_weather", "arguments": "{\"city\": \"Paris\"}"}</tool_call>)",
       "",
       "",
       {{"get_weather", kParis}}});
  c.push_back({"hermes",
               "truncated",
               "Checking.\n<tool_call>\n{\"name\": \"get_weather\", \"argum",
               "Checking.",
               "",
               {},
               {"ended inside"}});
  c.push_back({"hermes",
               "closing_tag_stripped",
               "<tool_call>\n{\"name\": \"get_weather\", \"arguments\": {\"city\": \"Paris\"}}\n",
               "",
               "",
               {{"get_weather", kParis}}});
  c.push_back({"hermes",
               "format_ignored",
               "The weather is <b>nice</b> today; use <tool_call in prose.",
               "The weather is <b>nice</b> today; use <tool_call in prose.",
               "",
               {}});
  c.push_back({"hermes",
               "bad_json_block",
               "<tool_call>{name: get_weather}</tool_call>After.",
               "After.",
               "",
               {},
               {"not valid JSON"}});
  c.push_back(
      {"hermes",
       "schema_checked",
       "<tool_call>{\"name\": \"get_weather\", \"arguments\": {\"days\": \"two\"}}</tool_call>"
       "<tool_call>{\"name\": \"launch\", \"arguments\": {}}</tool_call>",
       "",
       "",
       {{"get_weather", R"({"days":"two"})"}, {"launch", "{}"}},
       {"get_weather", "unknown tool"},
       true});

  // ---- qwen3_coder
  c.push_back({"qwen3_coder",
               "single_typed",
               "I'll look it up.\n<tool_call>\n<function=get_weather>\n<parameter=city>\nParis\n"
               "</parameter>\n<parameter=days>\n3\n</parameter>\n</function>\n</tool_call>",
               "I'll look it up.",
               "",
               {{"get_weather", R"({"city":"Paris","days":3})"}},
               {},
               true});
  c.push_back({"qwen3_coder",
               "untyped_without_tools",
               "<tool_call>\n<function=get_weather>\n<parameter=city>\nParis\n</parameter>\n"
               "<parameter=days>\n3\n</parameter>\n</function>\n</tool_call>",
               "",
               "",
               {{"get_weather", R"({"city":"Paris","days":"3"})"}}});
  c.push_back(
      {"qwen3_coder",
       "parallel_object_boolean",
       "<tool_call>\n<function=configure>\n<parameter=options>\n{\"a\": [1, \"}\"]}\n"
       "</parameter>\n<parameter=tags>\n[\"x\"]\n</parameter>\n</function>\n</tool_call>\n"
       "<tool_call>\n<function=set_flag>\n<parameter=on>\nTrue\n</parameter>\n</function>\n"
       "</tool_call>",
       "",
       "",
       {{"configure", R"({"options":{"a":[1,"}"]},"tags":["x"]})"}, {"set_flag", R"({"on":true})"}},
       {},
       true});
  c.push_back({"qwen3_coder",
               "multiline_code_value",
               "<tool_call>\n<function=write>\n<parameter=text>\nline \"1\" {\n  </param>\n}\n"
               "</parameter>\n</function>\n</tool_call>",
               "",
               "",
               {{"write", R"({"text":"line \"1\" {\n  </param>\n}"})"}}});
  c.push_back(
      {"qwen3_coder",
       "reasoning_unicode_empty",
       "<think>Zürich? 東京.</think><tool_call>\n<function=list_files>\n</function>\n"
       "</tool_call><tool_call><function=get_weather><parameter=city>東京 🌧</parameter>"
       "</function></tool_call>",
       "",
       "Zürich? 東京.",
       {{"list_files", "{}"}, {"get_weather", R"({"city":"東京 🌧"})"}}});
  c.push_back({"qwen3_coder",
               "truncated",
               "<tool_call>\n<function=get_weather>\n<parameter=city>\nPar",
               "",
               "",
               {},
               {"ended inside"}});
  c.push_back({"qwen3_coder",
               "hermes_json_inside",
               "<tool_call>\n{\"name\": \"get_weather\", \"arguments\": {\"city\": \"Paris\"}}\n"
               "</tool_call>",
               "",
               "",
               {{"get_weather", kParis}}});
  c.push_back({"qwen3_coder",
               "format_ignored",
               "a < b and <function is a word",
               "a < b and <function is a word",
               "",
               {}});

  // ---- llama3_json
  c.push_back({"llama3_json",
               "single",
               R"({"name": "get_weather", "parameters": {"city": "Paris"}})",
               "",
               "",
               {{"get_weather", kParis}}});
  c.push_back({"llama3_json",
               "python_tag_parallel",
               "<|python_tag|>{\"name\": \"get_weather\", \"parameters\": {\"city\": \"Paris\"}}; "
               "{\"name\": \"configure\", \"parameters\": " +
                   kNested + "}<|eom_id|>",
               "",
               "",
               {{"get_weather", kParis}, {"configure", kNested}}});
  c.push_back({"llama3_json",
               "prose_then_call_unicode",
               "Sure — checking {the} weather: {\"name\": \"get_weather\", \"parameters\": " +
                   kUnicode + "}",
               "Sure — checking {the} weather:",
               "",
               {{"get_weather", kUnicode}}});
  c.push_back({"llama3_json",
               "json_not_a_call",
               R"({"answer": 42} is the answer)",
               R"({"answer": 42} is the answer)",
               "",
               {}});
  c.push_back({"llama3_json",
               "empty_args",
               R"({"name": "list_files", "parameters": {}})",
               "",
               "",
               {{"list_files", "{}"}}});
  c.push_back({"llama3_json",
               "truncated",
               R"({"name": "get_weather", "parameters": {"city": "Pa)",
               "",
               "",
               {},
               {"ended inside"}});
  c.push_back(
      {"llama3_json", "format_ignored", "It is sunny in Paris.", "It is sunny in Paris.", "", {}});

  // ---- pythonic
  c.push_back({"pythonic",
               "parallel",
               R"([get_weather(city="Paris", days=3), set_flag(on=True), list_files()])",
               "",
               "",
               {{"get_weather", R"({"city":"Paris","days":3})"},
                {"set_flag", R"({"on":true})"},
                {"list_files", "{}"}}});
  c.push_back(
      {"pythonic",
       "nested_quotes",
       R"([configure(options={'query': 'say "hi" {now}', "list": [1, {'x': ']'}], 'n': None}, tags=('a,b', '}'))])",
       "",
       "",
       {{"configure",
         R"({"options":{"query":"say \"hi\" {now}","list":[1,{"x":"]"}],"n":null},"tags":["a,b","}"]})"}}});
  c.push_back({"pythonic",
               "python_start_unicode",
               "<|python_start|>[get_weather(city='Zürich 東京 🌧')]<|python_end|>",
               "",
               "",
               {{"get_weather", kUnicode}}});
  c.push_back({"pythonic",
               "reasoning_then_call",
               "<think>Need weather.</think>\n[get_weather(city='Paris')]",
               "",
               "Need weather.",
               {{"get_weather", kParis}}});
  c.push_back(
      {"pythonic", "not_calls", "[1] See the note below.", "[1] See the note below.", "", {}});
  c.push_back({"pythonic", "truncated", "[get_weather(city='Par", "", "", {}, {"ended inside"}});
  c.push_back({"pythonic", "format_ignored", "The answer is 42.", "The answer is 42.", "", {}});

  // ---- mistral_nemo
  c.push_back({"mistral_nemo",
               "parallel_ids",
               "[TOOL_CALLS][{\"name\": \"get_weather\", \"arguments\": {\"city\": \"Paris\"}, "
               "\"id\": \"abcDEF123\"}, {\"name\": \"configure\", \"arguments\": " +
                   kNested + ", \"id\": \"zyxWVU987\"}]",
               "",
               "",
               {{"get_weather", kParis, "abcDEF123"}, {"configure", kNested, "zyxWVU987"}}});
  c.push_back({"mistral_nemo",
               "prose_unicode_bad_element",
               "Voilà: [TOOL_CALLS][{\"name\": \"get_weather\", \"arguments\": " + kUnicode +
                   "}, {\"arguments\": {}}, {\"name\": \"list_files\", \"arguments\": {}}]",
               "Voilà:",
               "",
               {{"get_weather", kUnicode}, {"list_files", "{}"}},
               {"no name"}});
  c.push_back({"mistral_nemo",
               "truncated",
               "[TOOL_CALLS][{\"name\": \"get_weather\", \"argu",
               "",
               "",
               {},
               {"ended inside"}});
  c.push_back({"mistral_nemo",
               "format_ignored",
               "[1] is a [TOOL] reference.",
               "[1] is a [TOOL] reference.",
               "",
               {}});

  // ---- mistral_v11
  c.push_back(
      {"mistral_v11",
       "parallel",
       "[TOOL_CALLS]get_weather[ARGS]{\"city\": \"Paris\"}[TOOL_CALLS]configure[ARGS]" + kNested,
       "",
       "",
       {{"get_weather", kParis}, {"configure", kNested}}});
  c.push_back({"mistral_v11",
               "call_id_unicode_prose",
               "Un instant…[TOOL_CALLS]get_weather[CALL_ID]a1b2c3d4e[ARGS]" + kUnicode,
               "Un instant…",
               "",
               {{"get_weather", kUnicode, "a1b2c3d4e"}}});
  c.push_back({"mistral_v11",
               "reasoning_empty_args",
               "<think>No args needed.</think>[TOOL_CALLS]list_files[ARGS]{}",
               "",
               "No args needed.",
               {{"list_files", "{}"}}});
  c.push_back({"mistral_v11",
               "truncated",
               "[TOOL_CALLS]get_weather[ARGS]{\"city\": \"Pa",
               "",
               "",
               {},
               {"ended inside"}});
  c.push_back(
      {"mistral_v11", "format_ignored", "Use [ARGS] like this.", "Use [ARGS] like this.", "", {}});

  // ---- deepseek_r1
  const std::string ds_begin = "<｜tool▁calls▁begin｜>";
  const std::string ds_call = "<｜tool▁call▁begin｜>";
  const std::string ds_sep = "<｜tool▁sep｜>";
  const std::string ds_call_end = "<｜tool▁call▁end｜>";
  const std::string ds_end = "<｜tool▁calls▁end｜>";
  c.push_back({"deepseek_r1",
               "reasoning_parallel",
               "The user wants weather.\n</think>\n\nChecking." + ds_begin + ds_call + "function" +
                   ds_sep + "get_weather\n```json\n{\"city\": \"Paris\"}\n```" + ds_call_end +
                   "\n" + ds_call + "function" + ds_sep + "configure\n```json\n" + kNested +
                   "\n```" + ds_call_end + ds_end,
               "Checking.",
               "The user wants weather.",
               {{"get_weather", kParis}, {"configure", kNested}}});
  c.push_back({"deepseek_r1",
               "think_tag_unicode",
               "<think>Hmm.</think>" + ds_begin + ds_call + "function" + ds_sep +
                   "get_weather\n```json\n" + kUnicode + "\n```" + ds_call_end + ds_end,
               "",
               "Hmm.",
               {{"get_weather", kUnicode}}});
  c.push_back(
      {"deepseek_r1",
       "truncated",
       "ok</think>" + ds_begin + ds_call + "function" + ds_sep + "get_weather\n```json\n{\"ci",
       "",
       "ok",
       {},
       {"ended inside"}});
  c.push_back({"deepseek_r1",
               "format_ignored",
               "<think>x</think>Just text < here.",
               "Just text < here.",
               "x",
               {}});

  // ---- deepseek_v31
  c.push_back({"deepseek_v31",
               "parallel_prose",
               "Let me check." + ds_begin + ds_call + "get_weather" + ds_sep +
                   "{\"city\": \"Paris\"}" + ds_call_end + ds_call + "list_files" + ds_sep + "{}" +
                   ds_call_end + ds_end,
               "Let me check.",
               "",
               {{"get_weather", kParis}, {"list_files", "{}"}}});
  c.push_back({"deepseek_v31",
               "nested_reasoning",
               "<think>plan</think>" + ds_begin + ds_call + "configure" + ds_sep + kNested +
                   ds_call_end + ds_end,
               "",
               "plan",
               {{"configure", kNested}}});
  c.push_back({"deepseek_v31",
               "truncated",
               ds_begin + ds_call + "get_weather" + ds_sep + "{\"city\": ",
               "",
               "",
               {},
               {"ended inside"}});
  c.push_back({"deepseek_v31", "format_ignored", "Plain answer.", "Plain answer.", "", {}});

  // ---- harmony
  c.push_back({"harmony",
               "analysis_then_call",
               "<|channel|>analysis<|message|>User wants weather.<|end|><|start|>assistant"
               "<|channel|>commentary to=functions.get_weather <|constrain|>json<|message|>"
               "{\"city\": \"Paris\"}<|call|>",
               "",
               "User wants weather.",
               {{"get_weather", kParis}}});
  c.push_back({"harmony",
               "final_answer_unicode",
               "<|channel|>analysis<|message|>Easy.<|end|><|start|>assistant<|channel|>final"
               "<|message|>Il fait beau à Zürich ✓<|return|>",
               "Il fait beau à Zürich ✓",
               "Easy.",
               {}});
  c.push_back({"harmony",
               "recipient_in_role_nested",
               "<|start|>assistant to=functions.configure<|channel|>commentary json<|message|>" +
                   kNested + "<|call|>",
               "",
               "",
               {{"configure", kNested}}});
  c.push_back({"harmony",
               "preamble_and_stripped_stop",
               "<|channel|>commentary<|message|>Checking now.<|end|><|start|>assistant"
               "<|channel|>commentary to=functions.list_files <|constrain|>json<|message|>{}",
               "Checking now.",
               "",
               {{"list_files", "{}"}}});
  c.push_back({"harmony",
               "truncated",
               "<|channel|>commentary to=functions.get_weather<|message|>{\"city\": \"Pa",
               "",
               "",
               {},
               {"ended inside"}});
  c.push_back({"harmony",
               "format_ignored",
               "Plain words, no channels.",
               "Plain words, no channels.",
               "",
               {}});

  // ---- kimi_k2
  c.push_back({"kimi_k2",
               "parallel_ids",
               "I'll check.<|tool_calls_section_begin|><|tool_call_begin|>functions.get_weather:0"
               "<|tool_call_argument_begin|>{\"city\": \"Paris\"}<|tool_call_end|>"
               "<|tool_call_begin|>functions.configure:1<|tool_call_argument_begin|>" +
                   kNested + "<|tool_call_end|><|tool_calls_section_end|>",
               "I'll check.",
               "",
               {{"get_weather", kParis, "functions.get_weather:0"},
                {"configure", kNested, "functions.configure:1"}}});
  c.push_back(
      {"kimi_k2",
       "reasoning_unicode_empty",
       "<think>ok</think><|tool_calls_section_begin|><|tool_call_begin|>functions.get_weather:0"
       "<|tool_call_argument_begin|>" +
           kUnicode +
           "<|tool_call_end|>"
           "<|tool_call_begin|>functions.list_files:1<|tool_call_argument_begin|>"
           "<|tool_call_end|><|tool_calls_section_end|>",
       "",
       "ok",
       {{"get_weather", kUnicode, "functions.get_weather:0"},
        {"list_files", "{}", "functions.list_files:1"}}});
  c.push_back({"kimi_k2",
               "truncated",
               "<|tool_calls_section_begin|><|tool_call_begin|>functions.get_weather:0"
               "<|tool_call_argument_begin|>{\"city\"",
               "",
               "",
               {},
               {"ended inside"}});
  c.push_back({"kimi_k2", "format_ignored", "No <|tools|> here.", "No <|tools|> here.", "", {}});

  // ---- glm45
  c.push_back(
      {"glm45",
       "typed_parallel_reasoning",
       "<think>Two calls.</think>\nLet me see.\n<tool_call>get_weather\n<arg_key>city</arg_key>\n"
       "<arg_value>Paris</arg_value>\n<arg_key>days</arg_key>\n<arg_value>3</arg_value>\n"
       "</tool_call>\n<tool_call>configure\n<arg_key>options</arg_key>\n<arg_value>"
       "{\"a\": [1, \"}\"]}</arg_value>\n</tool_call>",
       "Let me see.",
       "Two calls.",
       {{"get_weather", R"({"city":"Paris","days":3})"},
        {"configure", R"({"options":{"a":[1,"}"]}})"}},
       {},
       true});
  c.push_back({"glm45",
               "string_kept_when_schema_says_string",
               "<tool_call>get_weather\n<arg_key>city</arg_key>\n<arg_value>123</arg_value>\n"
               "</tool_call>",
               "",
               "",
               {{"get_weather", R"({"city":"123"})"}},
               {},
               true});
  c.push_back({"glm45",
               "unicode_no_args",
               "<tool_call>list_files\n</tool_call><tool_call>get_weather<arg_key>city</arg_key>"
               "<arg_value>Zürich 東京 🌧</arg_value></tool_call>",
               "",
               "",
               {{"list_files", "{}"}, {"get_weather", kUnicode}}});
  c.push_back({"glm45",
               "truncated",
               "<tool_call>get_weather\n<arg_key>city</arg_key>\n<arg_value>Pa",
               "",
               "",
               {},
               {"ended inside"}});
  c.push_back({"glm45",
               "format_ignored",
               "x <tool and <arg_key> words",
               "x <tool and <arg_key> words",
               "",
               {}});

  // ---- granite, command_r7b, functionary_v31
  c.push_back({"granite",
               "parallel",
               "<|tool_call|>[{\"name\": \"get_weather\", \"arguments\": {\"city\": \"Paris\"}}, "
               "{\"name\": \"list_files\", \"arguments\": {}}]",
               "",
               "",
               {{"get_weather", kParis}, {"list_files", "{}"}}});
  c.push_back({"command_r7b",
               "thinking_action",
               "<|START_THINKING|>Need the weather.<|END_THINKING|><|START_ACTION|>[\n"
               "{\"tool_call_id\": \"0\", \"tool_name\": \"get_weather\", \"parameters\": "
               "{\"city\": \"Paris\"}}\n]<|END_ACTION|>",
               "",
               "Need the weather.",
               {{"get_weather", kParis, "0"}}});
  c.push_back({"command_r7b",
               "response",
               "<|START_RESPONSE|>It is sunny.<|END_RESPONSE|>",
               "It is sunny.",
               "",
               {}});
  c.push_back({"functionary_v31",
               "function_and_python",
               "Let me compute.<function=get_weather>{\"city\": \"Paris\"}</function>"
               "<|python_tag|>print(1 + 1)",
               "Let me compute.",
               "",
               {{"get_weather", kParis}, {"python", R"j({"code":"print(1 + 1)"})j"}}});

  // ---- llama3_builtin
  c.push_back(
      {"llama3_builtin",
       "brave_search",
       "<|python_tag|>brave_search.call(query=\"weather in \\\"Paris\\\" {today}\")<|eom_id|>",
       "",
       "",
       {{"brave_search", R"({"query":"weather in \"Paris\" {today}"})"}}});
  c.push_back({"llama3_builtin",
               "prose_then_wolfram_unicode",
               "Let me compute — ✓.\n<|python_tag|>wolfram_alpha.call(query='∫ x² dx, Zürich')",
               "Let me compute — ✓.",
               "",
               {{"wolfram_alpha", R"({"query":"∫ x² dx, Zürich"})"}}});
  c.push_back({"llama3_builtin",
               "code_interpreter",
               "<|python_tag|>import math\nd = {\"a\": [1, 2]}\nprint(math.pi, d)<|eom_id|>",
               "",
               "",
               {{"code_interpreter",
                 R"j({"code":"import math\nd = {\"a\": [1, 2]}\nprint(math.pi, d)"})j"}}});
  c.push_back(
      {"llama3_builtin",
       "json_custom_tool_and_builtin",
       "<|python_tag|>{\"name\": \"configure\", \"parameters\": " + kNested +
           "}<|python_tag|>brave_search.call(query=\"x\", count=3, safe=True)<|eom_id|>",
       "",
       "",
       {{"configure", kNested}, {"brave_search", R"({"query":"x","count":3,"safe":true})"}}});
  c.push_back({"llama3_builtin",
               "empty_args_and_reasoning",
               "<think>Search first.</think><|python_tag|>brave_search.call()<|eot_id|>",
               "",
               "Search first.",
               {{"brave_search", "{}"}}});
  c.push_back({"llama3_builtin",
               "truncated",
               "Searching.<|python_tag|>brave_search.call(query=\"weath",
               "Searching.",
               "",
               {},
               {"ended inside"}});
  c.push_back({"llama3_builtin",
               "format_ignored",
               "The answer is 42 <|eot_id|>",
               "The answer is 42",
               "",
               {}});

  // ---- functionary_v32
  c.push_back({"functionary_v32",
               "single",
               "get_weather\n{\"city\": \"Paris\"}",
               "",
               "",
               {{"get_weather", kParis}}});
  c.push_back({"functionary_v32",
               "text_then_parallel",
               "all\nLet me check both — ✓.>>>get_weather\n{\"city\": \"Paris\"}>>>configure\n" +
                   kNested + "<|eot_id|>",
               "Let me check both — ✓.",
               "",
               {{"get_weather", kParis}, {"configure", kNested}}});
  c.push_back({"functionary_v32",
               "leading_marker_unicode_empty",
               ">>>get_weather\n" + kUnicode + "\n>>>list_files\n{}",
               "",
               "",
               {{"get_weather", kUnicode}, {"list_files", "{}"}}});
  c.push_back({"functionary_v32",
               "python_code",
               "all\nComputing.\n>>>python\nx = {\"a\": 1}\nprint(x)",
               "Computing.",
               "",
               {{"python", R"j({"code":"x = {\"a\": 1}\nprint(x)"})j"}}});
  c.push_back({"functionary_v32",
               "reasoning_then_call_schema",
               "<think>Need it.</think>get_weather\n{\"days\": \"two\"}",
               "",
               "Need it.",
               {{"get_weather", R"({"days":"two"})"}},
               {"get_weather"},
               true});
  c.push_back({"functionary_v32",
               "truncated",
               "all\nChecking.>>>get_weather\n{\"city\": \"Pa",
               "Checking.",
               "",
               {},
               {"ended inside"}});
  c.push_back({"functionary_v32",
               "format_ignored",
               "The weather is nice.\nUse a >>> b in prose.",
               "The weather is nice.\nUse a >>> b in prose.",
               "",
               {}});
  c.push_back({"functionary_v32",
               "name_line_without_json_is_text",
               "Hello\nworld",
               "Hello\nworld",
               "",
               {}});

  // ---- generic_json
  c.push_back({"generic_json",
               "tool_call",
               R"({"tool_call": {"name": "get_weather", "arguments": {"city": "Paris"}}})",
               "",
               "",
               {{"get_weather", kParis}}});
  c.push_back({"generic_json",
               "tool_calls_fenced",
               "```json\n{\"tool_calls\": [{\"name\": \"get_weather\", \"arguments\": " + kUnicode +
                   "}, {\"name\": \"configure\", \"arguments\": " + kNested + "}]}\n```",
               "",
               "",
               {{"get_weather", kUnicode}, {"configure", kNested}}});
  c.push_back({"generic_json",
               "response",
               R"({"response": "It is \"sunny\" {today}."})",
               "It is \"sunny\" {today}.",
               "",
               {}});
  c.push_back({"generic_json",
               "bare_call_reasoning",
               "<think>short</think>{\"name\": \"list_files\", \"arguments\": {}}",
               "",
               "short",
               {{"list_files", "{}"}}});
  c.push_back({"generic_json",
               "truncated",
               R"({"tool_call": {"name": "get_weather", "argu)",
               "",
               "",
               {},
               {"ended inside"}});
  c.push_back({"generic_json",
               "format_ignored",
               "It is sunny {probably}.",
               "It is sunny {probably}.",
               "",
               {}});

  // ---- envelope
  c.push_back(
      {"envelope",
       "calls_with_ids",
       R"({"toolCalls": [{"type": "send_chat", "id": "c1", "operation": "tell the user", )"
       R"("parameters": {"content": "Looking… ✓"}, "priority": 1}, {"type": "get_weather", )"
       R"("id": "c2", "operation": "look up", "parameters": {"city": "Paris"}, "priority": 0}]})",
       "",
       "",
       {{"send_chat", R"({"content":"Looking… ✓"})", "c1"}, {"get_weather", kParis, "c2"}}});
  c.push_back(
      {"envelope",
       "fenced_with_invalid_elements",
       "```json\n{\"toolCalls\": [{\"id\": \"x\", \"parameters\": {}}, {\"type\": \"end_turn\", "
       "\"id\": \"c3\", \"parameters\": {}}, {\"type\": \"get_weather\", \"parameters\": 5}, "
       "{\"type\": \"configure\", \"parameters\": " +
           kNested + "}]}\n```",
       "",
       "",
       {{"end_turn", "{}", "c3"}, {"configure", kNested}},
       {"toolCalls[0]", "toolCalls[2]"}});
  c.push_back({"envelope",
               "not_json",
               "Sure, I will check the weather.",
               "Sure, I will check the weather.",
               "",
               {},
               {"not JSON"}});
  c.push_back({"envelope",
               "truncated",
               R"({"toolCalls": [{"type": "get_weather", "param)",
               "",
               "",
               {},
               {"ended inside"}});
  add_real_output_cases(c);
  return c;
}

}  // namespace

const std::vector<Case>& all_cases() {
  static const std::vector<Case> cases = make();
  return cases;
}

}  // namespace toolwire::textformats::testing
