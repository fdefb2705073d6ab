// The envelope protocol's text (textformats/envelope_turn.h): answers with
// priorities, the order calls run in, the generated system prompt (golden
// file) and the results message.
#include <gtest/gtest.h>

#include <cstdlib>
#include <fstream>
#include <sstream>

#include <nlohmann/json.hpp>

#include "toolwire/textformats/envelope_turn.h"
#include "toolwire/textformats/tool_set.h"
#include "toolwire/tools/registry.h"

namespace toolwire::textformats {
namespace {

std::vector<std::string> names(const std::vector<EnvelopeCall>& calls) {
  std::vector<std::string> out;
  for (const auto& c : calls) out.push_back(c.name);
  return out;
}

TEST(EnvelopeTurn, KeepsPriorityAndOperation) {
  EnvelopeAnswer a = parse_envelope(R"({"toolCalls": [
    {"type": "get_weather", "id": "w1", "operation": "look up Paris", "parameters": {"city": "Paris"},
     "priority": 2},
    {"type": "send_chat", "parameters": {"content": "One moment"}, "priority": -1.5},
    {"type": "end_turn"}]})");
  ASSERT_TRUE(a.errors.empty()) << a.errors[0].message;
  ASSERT_EQ(a.calls.size(), 3u);
  EXPECT_EQ(a.calls[0],
            (EnvelopeCall{0, "w1", "get_weather", "look up Paris", R"({"city":"Paris"})", 2}));
  EXPECT_EQ(a.calls[1].priority, -1.5);
  EXPECT_EQ(a.calls[1].id, "");
  EXPECT_EQ(a.calls[2].arguments, "{}");
  EXPECT_EQ(a.calls[2].priority, 0);
}

TEST(EnvelopeTurn, BadElementsAreReportedAndTheOthersCount) {
  EnvelopeAnswer a = parse_envelope(R"(```json
{"toolCalls": [{"type": "a", "priority": "high"}, {"parameters": {}}, {"type": "b", "priority": 1}]}
```)");
  ASSERT_EQ(a.errors.size(), 2u);
  EXPECT_EQ(a.errors[0].message, "toolCalls[0]: priority is not a number");
  EXPECT_EQ(a.errors[1].message, "toolCalls[1]: a call has no name");
  ASSERT_EQ(a.calls.size(), 1u);
  EXPECT_EQ(a.calls[0].name, "b");
  EXPECT_EQ(a.calls[0].index, 0);
  EXPECT_EQ(a.calls[0].priority, 1);
}

TEST(EnvelopeTurn, NonJsonAnswerIsOneError) {
  EnvelopeAnswer a = parse_envelope("Sure! The weather in Paris is sunny.");
  EXPECT_TRUE(a.calls.empty());
  ASSERT_EQ(a.errors.size(), 1u);
  EXPECT_EQ(a.errors[0].message, R"(the answer is not JSON: expected {"toolCalls": [...]})");
  EXPECT_EQ(parse_envelope(R"({"toolCalls": [{"type": "a", "parameters": {"x": 1})").errors.size(),
            1u);  // cut off
}

TEST(EnvelopeTurn, SchemaErrorsNameTheCallWhenToolsAreGiven) {
  auto tools = ToolSet::from_definitions(envelope_pseudo_tools());
  ASSERT_TRUE(tools.ok());
  EnvelopeAnswer a = parse_envelope(
      R"({"toolCalls": [{"type": "send_chat", "parameters": {"text": "hi"}}, {"type": "end_turn"}]})",
      &*tools);
  ASSERT_EQ(a.calls.size(), 2u);
  ASSERT_EQ(a.errors.size(), 1u);
  EXPECT_EQ(a.errors[0].call_index, 0);
  EXPECT_NE(a.errors[0].message.find("content"), std::string::npos) << a.errors[0].message;
}

TEST(EnvelopeTurn, HigherPriorityFirstTiesInOrderWritten) {
  std::vector<EnvelopeCall> calls;
  int i = 0;
  for (auto [name, prio] : std::vector<std::pair<const char*, double>>{
           {"a", 0}, {"b", 5}, {"c", 0}, {"d", 5}, {"e", -1}, {"f", 0.5}})
    calls.push_back(EnvelopeCall{i++, "", name, "", "{}", prio});
  EXPECT_EQ(names(by_priority(calls)), (std::vector<std::string>{"b", "d", "f", "a", "c", "e"}));
}

TEST(EnvelopeTurn, ResultsMessage) {
  std::vector<EnvelopeResult> r{{"c1", "get_weather", true,
                                 "Sunny, 21 \xC2\xB0"
                                 "C"},
                                {"c2", "nope", false, "unknown tool 'nope'"}};
  std::vector<std::string> errors{"toolCalls[2]: a call has no name"};
  std::string msg = envelope_results_message(r, errors);
  EXPECT_EQ(msg,
            R"({"toolResults":[{"id":"c1","type":"get_weather","status":"ok","output":"Sunny, 21 )"
            "\xC2\xB0"
            R"(C"},{"id":"c2","type":"nope","status":"error","output":"unknown tool 'nope'"}],)"
            R"("errors":["toolCalls[2]: a call has no name"]})");
  EXPECT_FALSE(nlohmann::json::parse(msg, nullptr, false).is_discarded());
  EXPECT_EQ(envelope_results_message({}, {}), R"({"toolResults":[],"errors":[]})");
}

TEST(EnvelopeTurn, PseudoToolSchemas) {
  auto tools = ToolSet::from_definitions(envelope_pseudo_tools());
  ASSERT_TRUE(tools.ok());
  EXPECT_TRUE(tools->validate("send_chat", nlohmann::json{{"content", "hi"}}).ok());
  EXPECT_FALSE(tools->validate("send_chat", nlohmann::json::object()).ok());
  EXPECT_FALSE(tools->validate("say", nlohmann::json{{"utterance", 3}}).ok());
  EXPECT_TRUE(tools->validate("end_turn", nlohmann::json::object()).ok());
}

tools::ToolSpec spec(std::string name, std::string description, std::string schema) {
  tools::ToolSpec s;
  s.name = std::move(name);
  s.description = std::move(description);
  s.input_schema = std::move(schema);
  s.handler = tools::SyncHandler(
      [](const nlohmann::json&, tools::ToolContext&) { return tools::ToolOutput::text(""); });
  return s;
}

// The prompt generated from a registry, byte for byte. To accept a deliberate
// change: TOOLWIRE_UPDATE_GOLDEN=1 ./textformats_envelope_test, then review the diff.
TEST(EnvelopeTurn, SystemPromptGolden) {
  tools::Registry reg;
  ASSERT_TRUE(reg.add(spec("get_weather", "Current weather for a city.", R"({
    "type": "object",
    "properties": {"city": {"type": "string"}, "unit": {"enum": ["C", "F"]}},
    "required": ["city"]
  })"))
                  .ok());
  ASSERT_TRUE(reg.add(spec("agent.photo", "Takes a photo.", R"({"type":"object"})")).ok());
  std::string prompt = envelope_system_prompt(reg.definitions());
  const std::string path = std::string(TOOLWIRE_TEST_DATA) + "/textformats/envelope_prompt.golden";
  if (std::getenv("TOOLWIRE_UPDATE_GOLDEN")) std::ofstream(path, std::ios::binary) << prompt;
  std::ifstream in(path, std::ios::binary);
  ASSERT_TRUE(in) << path;
  std::stringstream golden;
  golden << in.rdbuf();
  EXPECT_EQ(prompt, golden.str());
  // What the golden file must hold whatever its wording.
  for (const char* s :
       {"## send_chat", "## say", "## end_turn", "## get_weather", "## agent__photo",
        "Current weather for a city.", R"("required":["city"])", R"({"toolCalls": [)", "priority"})
    EXPECT_NE(prompt.find(s), std::string::npos) << s;
  EXPECT_LT(prompt.find("## end_turn"), prompt.find("## get_weather"));
}

}  // namespace
}  // namespace toolwire::textformats
