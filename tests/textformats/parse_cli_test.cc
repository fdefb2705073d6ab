// `toolwire parse`: the JSON summary, --events lines, --tools, and the exit
// statuses (0 parsed, errors included; 2 for a bad command line).
#include <gtest/gtest.h>
#include <nlohmann/json.hpp>

#include <filesystem>
#include <fstream>

#include "subprocess.h"

namespace toolwire::testing {
namespace {

struct CliResult {
  int status = -1;
  std::string out, err;
};

CliResult run_cli(std::vector<std::string> args, const std::string& input) {
  args.insert(args.begin(), TOOLWIRE_BINARY);
  Subprocess p(args);
  CliResult r;
  if (!p.started()) return r;
  p.write_stdin(input);
  r.status = p.wait(std::chrono::seconds(30));
  r.out = p.out();
  r.err = p.err();
  return r;
}

std::string temp_file(const std::string& name, const std::string& content) {
  auto path =
      std::filesystem::path(::testing::TempDir()) / (name + "_" + std::to_string(::getpid()));
  std::ofstream(path) << content;
  return path.string();
}

TEST(ParseCli, PrintsTheSummary) {
  auto r = run_cli({"parse", "--format", "hermes"},
                   "<think>plan</think>Sure.\n<tool_call>\n{\"name\": \"get_weather\", "
                   "\"arguments\": {\"city\": \"Paris\"}}\n</tool_call>\n<tool_call>{\"name\"");
  ASSERT_EQ(r.status, 0) << r.err;
  auto j = nlohmann::json::parse(r.out);
  EXPECT_EQ(j["content"], "Sure.");
  EXPECT_EQ(j["reasoning"], "plan");
  ASSERT_EQ(j["tool_calls"].size(), 1u);
  EXPECT_EQ(j["tool_calls"][0]["name"], "get_weather");
  EXPECT_EQ(j["tool_calls"][0]["arguments"], nlohmann::json::parse(R"({"city":"Paris"})"));
  EXPECT_FALSE(j["tool_calls"][0].contains("id"));
  ASSERT_EQ(j["errors"].size(), 1u);  // the cut-off second call
}

TEST(ParseCli, EventsAsJsonLines) {
  auto r = run_cli({"parse", "--format", "kimi_k2", "--events"},
                   "Hi<|tool_calls_section_begin|><|tool_call_begin|>functions.f:0"
                   "<|tool_call_argument_begin|>{}<|tool_call_end|><|tool_calls_section_end|>");
  ASSERT_EQ(r.status, 0) << r.err;
  std::vector<std::string> types;
  std::istringstream lines(r.out);
  for (std::string line; std::getline(lines, line);)
    types.push_back(nlohmann::json::parse(line)["type"]);
  EXPECT_EQ(types, (std::vector<std::string>{"text_delta", "tool_call_start", "tool_call_delta",
                                             "tool_call_end"}));
}

TEST(ParseCli, ToolsTypeValuesAndCheckArguments) {
  std::string tools = temp_file("tw_parse_tools.json", R"([{"type":"function","function":{
      "name":"get_weather","parameters":{"type":"object","properties":{
      "city":{"type":"string"},"days":{"type":"integer"}},"required":["city"]}}}])");
  auto r = run_cli({"parse", "--format", "qwen3_coder", "--tools", tools},
                   "<tool_call><function=get_weather><parameter=days>3</parameter></function>"
                   "</tool_call>");
  ASSERT_EQ(r.status, 0) << r.err;
  auto j = nlohmann::json::parse(r.out);
  EXPECT_EQ(j["tool_calls"][0]["arguments"]["days"], 3);
  ASSERT_EQ(j["errors"].size(), 1u);  // city is required
  EXPECT_NE(j["errors"][0].get<std::string>().find("city"), std::string::npos);
}

TEST(ParseCli, BadUsageExitsTwo) {
  EXPECT_EQ(run_cli({"parse"}, "").status, 2);
  auto unknown = run_cli({"parse", "--format", "nope"}, "");
  EXPECT_EQ(unknown.status, 2);
  EXPECT_NE(unknown.err.find("unknown tool format"), std::string::npos);
  EXPECT_EQ(
      run_cli({"parse", "--format", "hermes", "--tools", "/nonexistent/tools.json"}, "").status, 2);
  std::string bad = temp_file("tw_parse_bad_tools.json", "{\"not\": \"a list\"}");
  EXPECT_EQ(run_cli({"parse", "--format", "hermes", "--tools", bad}, "").status, 2);
}

}  // namespace
}  // namespace toolwire::testing
