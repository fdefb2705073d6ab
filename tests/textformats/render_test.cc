// The prompt side (renderer.h): every family's rendering of one conversation
// against a golden file (tests/data/textformats/render/<family>.txt: the raw
// prompt, then the chat-endpoint messages), and the round trip: what a
// renderer writes as an assistant turn, the same family's parser reads back
// as the same text and calls, in one piece and one byte at a time.
//
// TOOLWIRE_UPDATE_GOLDEN=1 rewrites the golden files (review the diff).
#include <cstdlib>
#include <fstream>
#include <sstream>

#include <gtest/gtest.h>
#include <nlohmann/json.hpp>

#include "cases.h"
#include "support.h"
#include "toolwire/textformats/renderer.h"

namespace toolwire::textformats::testing {
namespace {

const ToolSet& tools() {
  static const ToolSet set = ToolSet::from_json(kTools).value();
  return set;
}

std::vector<ir::ToolDefinition> definitions() {
  std::vector<ir::ToolDefinition> out;
  for (const auto& t : nlohmann::json::parse(kTools)) {
    const auto& f = t["function"];
    ir::ToolDefinition d;
    d.name = f["name"];
    d.description = "Tool " + d.name + ".";
    d.input_schema = f["parameters"].dump();
    out.push_back(std::move(d));
  }
  return out;
}

ir::Message text_message(ir::Role role, std::string text) {
  ir::Message m;
  m.role = role;
  m.parts.push_back(ir::TextPart{std::move(text)});
  return m;
}

ir::ToolCallPart call(std::string id, std::string name, std::string args) {
  return ir::ToolCallPart{std::move(id), std::move(name), std::move(args), true};
}

// System prompt, user question, an assistant turn with text and two calls,
// their results, the assistant's answer, a second question.
ir::Request conversation() {
  ir::Request r;
  r.model = "m";
  r.system.push_back({"You are terse.", false});
  r.tools = definitions();
  r.messages.push_back(text_message(ir::Role::user, "Weather in Paris and Oslo?"));
  ir::Message a = text_message(ir::Role::assistant, "Checking both.");
  a.parts.push_back(call("call_1", "get_weather", R"({"city":"Paris","days":2})"));
  a.parts.push_back(call("call_2", "get_weather", R"({"city":"Oslo"})"));
  r.messages.push_back(std::move(a));
  for (auto [id, text] : {std::pair{"call_1", "sunny, 21 °C"}, std::pair{"call_2", "rain"}}) {
    ir::Message t;
    t.role = ir::Role::tool;
    t.parts.push_back(ir::ToolResultPart{id, {ir::TextPart{text}}, false});
    r.messages.push_back(std::move(t));
  }
  r.messages.push_back(text_message(ir::Role::assistant, "Paris is sunny; Oslo has rain."));
  r.messages.push_back(text_message(ir::Role::user, "Thanks!"));
  return r;
}

std::string golden_text(const PromptRenderer& r) {
  std::string out = "=== prompt\n" + render_prompt(r, conversation()).value() + "\n=== chat\n";
  ir::Request chat = render_chat(r, conversation()).value();
  EXPECT_TRUE(chat.tools.empty());
  EXPECT_FALSE(chat.tool_choice.has_value());
  for (const auto& s : chat.system) out += "--- system\n" + s.text + "\n";
  for (const auto& m : chat.messages) {
    out += "--- " + std::string(ir::to_string(m.role)) + "\n";
    for (const auto& p : m.parts) out += std::get<ir::TextPart>(p).text;
    out += "\n";
  }
  return out;
}

class Render : public ::testing::TestWithParam<std::string_view> {};

TEST_P(Render, MatchesGolden) {
  auto r = make_renderer(GetParam());
  ASSERT_TRUE(r.ok()) << r.error().message;
  std::string got = golden_text(**r);
  std::string file = std::string(TOOLWIRE_SOURCE_DIR) + "/tests/data/textformats/render/" +
                     std::string(GetParam()) + ".txt";
  if (std::getenv("TOOLWIRE_UPDATE_GOLDEN")) {
    std::ofstream(file, std::ios::binary) << got;
    return;
  }
  std::ifstream in(file, std::ios::binary);
  ASSERT_TRUE(in) << "missing " << file;
  std::stringstream want;
  want << in.rdbuf();
  EXPECT_EQ(got, want.str());
}

struct RoundTrip {
  std::string text;
  std::vector<ir::ToolCallPart> calls;
};

// What each family is asked to write back: prose, nested JSON and quotes,
// unicode, empty arguments; plus its own built-in calls.
RoundTrip round_trip_for(std::string_view family) {
  RoundTrip rt;
  rt.text = "Let me check — ✓.";
  rt.calls.push_back(call("call_a1", "get_weather", R"({"city":"Zürich 東京","days":3})"));
  rt.calls.push_back(call("call_b2", "configure",
                          R"({"options":{"query":"say \"hi\" {now}","n":[1,{"x":"]"}]},)"
                          R"("tags":["a,b","}"]})"));
  rt.calls.push_back(call("call_c3", "list_files", "{}"));
  rt.calls.push_back(call("call_d4", "set_flag", R"({"on":true})"));
  if (family == "llama3_builtin") {
    rt.calls.push_back(call("", "brave_search", R"({"query":"weather \"Paris\"","count":2})"));
    rt.calls.push_back(call("", "code_interpreter", R"j({"code":"print(1 + 1)\nx = {'a': 1}"})j"));
  }
  if (family == "functionary_v31" || family == "functionary_v32")
    rt.calls.push_back(call("", "python", R"j({"code":"print(1 + 1)"})j"));
  // The JSON-only answers carry no prose next to calls.
  if (family == "generic_json" || family == "envelope") rt.text.clear();
  return rt;
}

// Families whose markup carries the call id, and the id it comes back as.
std::string expected_id(std::string_view family, const ir::ToolCallPart& c, size_t i) {
  if (family == "generic_json" || family == "envelope" || family == "command_r7b") return c.id;
  if (family == "kimi_k2") return "functions." + c.name + ":" + std::to_string(i);
  if (family == "mistral_nemo") {
    std::string id;
    for (char ch : c.id)
      if (std::isalnum(static_cast<unsigned char>(ch))) id += ch;
    return std::string(9 - id.size(), '0') + id;
  }
  return "";
}

TEST_P(Render, ParserReadsBackWhatTheRendererWrites) {
  std::string_view family = GetParam();
  auto r = make_renderer(family).value();
  RoundTrip rt = round_trip_for(family);
  std::string written = std::string(r->reply_prefix()) + r->assistant(rt.text, rt.calls);
  ParseOutput whole = run_pieces(family, {written}, &tools());
  ParseSummary s = summarize(whole);
  EXPECT_EQ(s.content, rt.text) << written;
  ASSERT_EQ(s.tool_calls.size(), rt.calls.size()) << written << "\n" << to_json(s);
  for (size_t i = 0; i < rt.calls.size(); ++i) {
    const auto& got = s.tool_calls[i];
    EXPECT_TRUE(got.complete) << i;
    EXPECT_EQ(got.name, rt.calls[i].name);
    EXPECT_EQ(nlohmann::json::parse(got.arguments, nullptr, false),
              nlohmann::json::parse(rt.calls[i].arguments))
        << written;
    EXPECT_EQ(got.id, expected_id(family, rt.calls[i], i)) << written;
  }
  // Only the tools the parser does not know (built-ins) are reported.
  for (const auto& e : s.errors)
    EXPECT_NE(e.message.find("unknown tool"), std::string::npos) << e.message;
  std::vector<std::string_view> bytes;
  for (size_t i = 0; i < written.size(); ++i)
    bytes.push_back(std::string_view(written).substr(i, 1));
  EXPECT_EQ(normalized(run_pieces(family, bytes, &tools())), normalized(whole));
}

TEST_P(Render, TextOnlyTurnRoundTrips) {
  std::string_view family = GetParam();
  if (family == "envelope") GTEST_SKIP() << "an envelope answer is calls only";
  auto r = make_renderer(family).value();
  std::string written = std::string(r->reply_prefix()) + r->assistant("It is sunny {today}.", {});
  ParseSummary s = parse_text(family, written, &tools()).value();
  EXPECT_EQ(s.content, "It is sunny {today}.") << written;
  EXPECT_TRUE(s.tool_calls.empty());
  EXPECT_TRUE(s.errors.empty()) << to_json(s);
}

INSTANTIATE_TEST_SUITE_P(All, Render, ::testing::ValuesIn(families()),
                         [](const auto& info) { return std::string(info.param); });

TEST(RenderRequest, ChatRequestLosesToolsAndKeepsSettings) {
  auto r = make_renderer("hermes").value();
  ir::Request req = conversation();
  req.tool_choice = ir::ToolChoice{ir::ToolChoice::Kind::required, ""};
  req.max_tokens = 77;
  req.temperature = 0.5;
  ir::Request chat = render_chat(*r, req).value();
  EXPECT_TRUE(chat.tools.empty());
  EXPECT_EQ(chat.max_tokens, 77);
  EXPECT_EQ(chat.temperature, 0.5);
  ASSERT_EQ(chat.system.size(), 1u);
  EXPECT_NE(chat.system[0].text.find("<tools>"), std::string::npos);
  EXPECT_NE(chat.system[0].text.find("Call at least one tool"), std::string::npos);
  // No role the endpoint would need tool support for.
  for (const auto& m : chat.messages) EXPECT_NE(m.role, ir::Role::tool);
}

TEST(RenderRequest, ToolChoiceNoneLeavesTheToolsOut) {
  auto r = make_renderer("hermes").value();
  ir::Request req = conversation();
  req.tool_choice = ir::ToolChoice{ir::ToolChoice::Kind::none, ""};
  std::string prompt = render_prompt(*r, req).value();
  EXPECT_EQ(prompt.find("<tools>"), std::string::npos);
  EXPECT_NE(prompt.find("<tool_call>"), std::string::npos);  // the history still has its calls
}

TEST(RenderRequest, ImagesAreRefusedWithTheirPath) {
  auto r = make_renderer("hermes").value();
  ir::Request req = conversation();
  req.messages[0].parts.push_back(ir::ImagePart{"https://x/y.png", "", "", ""});
  auto out = render_chat(*r, req);
  ASSERT_FALSE(out.ok());
  EXPECT_EQ(out.error().code, ErrorCode::invalid_argument);
  EXPECT_NE(out.error().to_string().find("$.messages[0].parts[1]"), std::string::npos);
}

TEST(RenderRequest, UnknownFamily) {
  auto r = make_renderer("nope");
  ASSERT_FALSE(r.ok());
  EXPECT_EQ(r.error().code, ErrorCode::not_found);
}

}  // namespace
}  // namespace toolwire::textformats::testing
