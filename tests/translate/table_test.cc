// The table of docs/translation.md, one test per row, run for every dialect of
// the dialect list (codec::all_dialects()). Spelling rows: an IR built here is
// encoded into the dialect, the concept is found at its documented JSON
// location, and decoding gives the concept back. Loss rows: a dialect that
// cannot express the concept gives the documented warning (or error); one
// that can keeps it. A dialect this file does not know fails every row, so a
// new dialect cannot join the list without joining the table.
#include <gtest/gtest.h>

#include <map>
#include <nlohmann/json.hpp>
#include <set>
#include <string>
#include <vector>

#include "ir_print.h"
#include "normalize.h"
#include "toolwire/codec/dialect.h"
#include "wire.h"

namespace toolwire::testing {
namespace {

using nlohmann::json;
using Names = std::set<std::string_view>;

// One documented location: `value` at JSON pointer `at`, or nothing there.
struct Spot {
  std::string at;
  json value;
  bool absent = false;
};
Spot none_at(std::string at) { return {std::move(at), nullptr, true}; }
// Where each codec writes one concept (the table's row), by codec name.
using Spelling = std::map<std::string_view, std::vector<Spot>>;

std::vector<const codec::Dialect*> dialects_with_codecs() {
  std::vector<const codec::Dialect*> out;
  for (const auto& d : codec::all_dialects())
    if (d.has_codec()) out.push_back(&d);
  return out;
}

class TableTest : public ::testing::TestWithParam<const codec::Dialect*> {
 protected:
  const codec::Dialect& dialect() const { return *GetParam(); }
  const codec::Codec& codec() const { return GetParam()->codec(); }
  std::string_view name() const { return GetParam()->name; }
  bool in(const Names& names) const { return names.contains(name()); }

  // The wire JSON of `r` in this dialect; warnings appended to `w`.
  json encode(const ir::Request& r, Warnings& w) const {
    auto bytes = codec().encode_request(r, w);
    EXPECT_TRUE(bytes) << name() << ": " << bytes.error().to_string();
    return bytes ? json::parse(*bytes) : json();
  }
  json encode(const ir::Response& r, Warnings& w) const {
    auto bytes = codec().encode_response(r, w);
    EXPECT_TRUE(bytes) << name() << ": " << bytes.error().to_string();
    return bytes ? json::parse(*bytes) : json();
  }
  ir::Request decode_request(const json& wire) const {
    Warnings w;
    auto r = codec().decode_request(wire.dump(), w);
    EXPECT_TRUE(r) << name() << ": " << r.error().to_string() << "\n" << wire.dump(2);
    return r ? *r : ir::Request{};
  }
  ir::Response decode_response(const json& wire) const {
    Warnings w;
    auto r = codec().decode_response(wire.dump(), w);
    EXPECT_TRUE(r) << name() << ": " << r.error().to_string() << "\n" << wire.dump(2);
    return r ? *r : ir::Response{};
  }

  // The row's spots for this dialect are all where the table says.
  void expect_spelling(const json& wire, const Spelling& row) const {
    auto it = row.find(name());
    if (it == row.end()) {
      ADD_FAILURE() << name() << " has no spelling in this row: add it to docs/translation.md "
                    << "and to this test";
      return;
    }
    for (const Spot& s : it->second) {
      json::json_pointer p(s.at);
      if (s.absent) {
        EXPECT_FALSE(wire.contains(p)) << name() << ": " << s.at << " is set\n" << wire.dump(2);
      } else if (!wire.contains(p)) {
        ADD_FAILURE() << name() << ": nothing at " << s.at << "\n" << wire.dump(2);
      } else {
        EXPECT_EQ(wire.at(p), s.value) << name() << " at " << s.at << "\n" << wire.dump(2);
      }
    }
  }

  // A loss row whose warning differs by dialect: the dialects in `codes`
  // warn their code; the others give none of these codes.
  void expect_loss(const Warnings& w,
                   const std::map<std::string_view, std::string_view>& codes) const {
    if (auto it = codes.find(name()); it != codes.end()) {
      EXPECT_TRUE(has_warning(w, it->second)) << name() << " should warn " << it->second << "\n"
                                              << warnings_text(w);
      return;
    }
    for (const auto& [dialect, code] : codes)
      EXPECT_FALSE(has_warning(w, code)) << name() << " expresses it\n" << warnings_text(w);
  }

  // A loss row: the dialects in `lossy` warn `code` (at least once); the
  // others express the concept and give no such warning.
  void expect_loss(const Warnings& w, const Names& lossy, std::string_view code) const {
    if (in(lossy)) {
      EXPECT_TRUE(has_warning(w, code)) << name() << " should warn " << code << "\n"
                                        << warnings_text(w);
    } else {
      EXPECT_FALSE(has_warning(w, code)) << name() << " expresses it\n" << warnings_text(w);
    }
  }
};

// ---- IR built here -------------------------------------------------------

ir::Message user(std::string text) { return {ir::Role::user, {ir::TextPart{std::move(text)}}}; }

ir::ToolDefinition weather_tool() {
  return {.name = "get_weather",
          .description = "Weather of a city",
          .input_schema =
              R"({"type":"object","properties":{"city":{"type":"string"}},"required":["city"]})"};
}

ir::Request ask() {
  ir::Request r;
  r.model = "m-1";
  r.max_tokens = 100;
  r.messages = {user("Weather in Paris?")};
  r.tools = {weather_tool()};
  return r;
}

ir::ToolCallPart weather_call() {
  return {.id = "call_1", .name = "get_weather", .arguments = R"({"city":"Paris"})"};
}

// ask() + the model's call + its result.
ir::Request answered(std::vector<ir::ResultContent> content, bool is_error = false) {
  ir::Request r = ask();
  r.messages.push_back({ir::Role::assistant, {weather_call()}});
  r.messages.push_back(
      {ir::Role::tool, {ir::ToolResultPart{"call_1", std::move(content), is_error}}});
  return r;
}

ir::Response reply(std::vector<ir::Part> parts, ir::FinishReason::Kind finish) {
  ir::Response r;
  r.id = "resp_1";
  r.model = "m-1";
  r.created = 1700000000;
  r.parts = std::move(parts);
  r.finish.kind = finish;
  r.usage.input_tokens = 100;
  r.usage.output_tokens = 7;
  return r;
}

template <class T, class Parts>
const T* first(const Parts& parts) {
  for (const auto& p : parts)
    if (auto* x = std::get_if<T>(&p)) return x;
  return nullptr;
}
template <class T>
const T* first_in(const std::vector<ir::Message>& messages) {
  for (const auto& m : messages)
    if (auto* x = first<T>(m.parts)) return x;
  return nullptr;
}

std::string text_of(const std::vector<ir::ResultContent>& content) {
  std::string out;
  for (const auto& c : content)
    if (auto* t = std::get_if<ir::TextPart>(&c)) out += t->text;
  return out;
}

// ---- Spelling rows ---------------------------------------------------------

TEST_P(TableTest, SystemPromptSpelling) {
  ir::Request r = ask();
  r.system = {{"Be brief."}};
  Warnings w;
  json wire = encode(r, w);
  expect_spelling(
      wire,
      {
          {"openai_chat", {{"/messages/0/role", "system"}, {"/messages/0/content", "Be brief."}}},
          {"anthropic_messages", {{"/system", "Be brief."}}},
          {"openai_responses", {{"/instructions", "Be brief."}}},
          {"gemini", {{"/systemInstruction/parts/0/text", "Be brief."}}},
          {"bedrock_converse", {{"/system/0/text", "Be brief."}}},
      });
  ir::Request back = decode_request(wire);
  ASSERT_EQ(back.system.size(), 1u) << print(back);
  EXPECT_EQ(back.system[0].text, "Be brief.");
  EXPECT_EQ(back.messages.size(), 1u) << print(back);
}

TEST_P(TableTest, ToolDefinitionSpelling) {
  Warnings w;
  json wire = encode(ask(), w);
  EXPECT_FALSE(has_warning(w, "reduced_tool_schema")) << warnings_text(w);  // inside the subset
  const json city = {{"type", "string"}};
  expect_spelling(wire,
                  {
                      {"openai_chat",
                       {{"/tools/0/type", "function"},
                        {"/tools/0/function/name", "get_weather"},
                        {"/tools/0/function/description", "Weather of a city"},
                        {"/tools/0/function/parameters/properties/city", city}}},
                      {"anthropic_messages",
                       {{"/tools/0/name", "get_weather"},
                        {"/tools/0/description", "Weather of a city"},
                        {"/tools/0/input_schema/properties/city", city}}},
                      {"openai_responses",
                       {{"/tools/0/type", "function"},
                        {"/tools/0/name", "get_weather"},
                        {"/tools/0/description", "Weather of a city"},
                        {"/tools/0/parameters/properties/city", city}}},
                      {"gemini",
                       {{"/tools/0/functionDeclarations/0/name", "get_weather"},
                        {"/tools/0/functionDeclarations/0/description", "Weather of a city"},
                        {"/tools/0/functionDeclarations/0/parameters/properties/city", city}}},
                      {"bedrock_converse",
                       {{"/toolConfig/tools/0/toolSpec/name", "get_weather"},
                        {"/toolConfig/tools/0/toolSpec/description", "Weather of a city"},
                        {"/toolConfig/tools/0/toolSpec/inputSchema/json/properties/city", city}}},
                  });
  ir::Request back = decode_request(wire);
  ASSERT_EQ(back.tools.size(), 1u) << print(back);
  EXPECT_EQ(back.tools[0].name, "get_weather");
  EXPECT_EQ(back.tools[0].description, "Weather of a city");
  EXPECT_EQ(canonical_json(back.tools[0].input_schema),
            canonical_json(weather_tool().input_schema));
}

TEST_P(TableTest, ToolSchemaSpelling) {
  ir::Request r = ask();
  r.tools[0].input_schema =
      R"({"type":"object","properties":{"city":{"$ref":"#/$defs/City","default":"Paris"}},)"
      R"("$defs":{"City":{"type":"string"}},"additionalProperties":false})";
  Warnings w;
  json wire = encode(r, w);
  // JSON Schema as given, or Gemini's subset ($ref inlined; no $defs, no
  // additionalProperties; `default` is in the subset).
  const json ref = "#/$defs/City";
  expect_spelling(
      wire, {
                {"openai_chat",
                 {{"/tools/0/function/parameters/additionalProperties", false},
                  {"/tools/0/function/parameters/properties/city/$ref", ref}}},
                {"anthropic_messages",
                 {{"/tools/0/input_schema/additionalProperties", false},
                  {"/tools/0/input_schema/properties/city/$ref", ref}}},
                {"openai_responses",
                 {{"/tools/0/parameters/additionalProperties", false},
                  {"/tools/0/parameters/properties/city/$ref", ref}}},
                {"gemini",
                 {none_at("/tools/0/functionDeclarations/0/parameters/additionalProperties"),
                  none_at("/tools/0/functionDeclarations/0/parameters/$defs"),
                  {"/tools/0/functionDeclarations/0/parameters/properties/city/type", "string"},
                  {"/tools/0/functionDeclarations/0/parameters/properties/city/default", "Paris"}}},
                {"bedrock_converse",
                 {{"/toolConfig/tools/0/toolSpec/inputSchema/json/additionalProperties", false},
                  {"/toolConfig/tools/0/toolSpec/inputSchema/json/properties/city/$ref", ref}}},
            });
  expect_loss(w, {"gemini"}, "reduced_tool_schema");
  ir::Request back = decode_request(wire);
  ASSERT_EQ(back.tools.size(), 1u);
  json schema = json::parse(back.tools[0].input_schema);
  EXPECT_EQ(schema.contains("$defs"), name() != "gemini") << schema;
}

TEST_P(TableTest, ToolNameRuleSpelling) {
  // A leading digit: Gemini's rule refuses it, its codec maps it reversibly.
  ir::Request r = ask();
  r.tools[0].name = "3d_render";
  Warnings w;
  json wire = encode(r, w);
  expect_spelling(wire,
                  {
                      {"openai_chat", {{"/tools/0/function/name", "3d_render"}}},
                      {"anthropic_messages", {{"/tools/0/name", "3d_render"}}},
                      {"openai_responses", {{"/tools/0/name", "3d_render"}}},
                      {"gemini", {{"/tools/0/functionDeclarations/0/name", "_3d_render"}}},
                      {"bedrock_converse", {{"/toolConfig/tools/0/toolSpec/name", "3d_render"}}},
                  });
  EXPECT_EQ(decode_request(wire).tools.at(0).name, "3d_render");

  // A dot: Gemini's rule only. Over 64 characters: Anthropic's rule only.
  const Names takes_dot = {"gemini"};
  const Names takes_100 = {"anthropic_messages"};
  for (const auto& [tool_name, takers] : {std::pair{std::string("weather.get"), takes_dot},
                                          std::pair{std::string(100, 'a'), takes_100}}) {
    ir::Request bad = ask();
    bad.tools[0].name = tool_name;
    Warnings bw;
    auto bytes = codec().encode_request(bad, bw);
    if (in(takers)) {
      EXPECT_TRUE(bytes) << name() << " should take " << tool_name;
    } else {
      ASSERT_FALSE(bytes) << name() << " should refuse " << tool_name << "\n" << *bytes;
      EXPECT_EQ(bytes.error().code, ErrorCode::invalid_argument) << bytes.error().to_string();
    }
  }
}

TEST_P(TableTest, ToolChoiceSpelling) {
  using K = ir::ToolChoice::Kind;
  struct Case {
    ir::ToolChoice choice;
    Spelling row;
  };
  // Built by a function: GCC 12 at -O3 misreads brace-built ToolChoice arrays
  // as reading an uninitialized name (-Wmaybe-uninitialized).
  auto choice = [](K kind, std::string name = {}) {
    ir::ToolChoice c;
    c.kind = kind;
    c.name = std::move(name);
    return c;
  };
  const std::vector<Case> cases = {
      {choice(K::auto_),
       {{"openai_chat", {{"/tool_choice", "auto"}}},
        {"anthropic_messages", {{"/tool_choice/type", "auto"}}},
        {"openai_responses", {{"/tool_choice", "auto"}}},
        {"gemini", {{"/toolConfig/functionCallingConfig/mode", "AUTO"}}},
        {"bedrock_converse", {{"/toolConfig/toolChoice", {{"auto", json::object()}}}}}}},
      {choice(K::required),
       {{"openai_chat", {{"/tool_choice", "required"}}},
        {"anthropic_messages", {{"/tool_choice/type", "any"}}},
        {"openai_responses", {{"/tool_choice", "required"}}},
        {"gemini", {{"/toolConfig/functionCallingConfig/mode", "ANY"}}},
        {"bedrock_converse", {{"/toolConfig/toolChoice", {{"any", json::object()}}}}}}},
      {choice(K::none),
       {{"openai_chat", {{"/tool_choice", "none"}}},
        {"anthropic_messages", {{"/tool_choice/type", "none"}}},
        {"openai_responses", {{"/tool_choice", "none"}}},
        {"gemini", {{"/toolConfig/functionCallingConfig/mode", "NONE"}}},
        {"bedrock_converse", {none_at("/toolConfig/toolChoice")}}}},  // a loss row
      {choice(K::tool, "get_weather"),
       {{"openai_chat", {{"/tool_choice/function/name", "get_weather"}}},
        {"anthropic_messages",
         {{"/tool_choice/type", "tool"}, {"/tool_choice/name", "get_weather"}}},
        {"openai_responses",
         {{"/tool_choice/type", "function"}, {"/tool_choice/name", "get_weather"}}},
        {"gemini",
         {{"/toolConfig/functionCallingConfig/mode", "ANY"},
          {"/toolConfig/functionCallingConfig/allowedFunctionNames",
           json::array({"get_weather"})}}},
        {"bedrock_converse", {{"/toolConfig/toolChoice/tool/name", "get_weather"}}}}},
  };
  for (const Case& c : cases) {
    SCOPED_TRACE("tool choice kind " + std::to_string(static_cast<int>(c.choice.kind)));
    ir::Request r = ask();
    r.tool_choice = c.choice;
    Warnings w;
    json wire = encode(r, w);
    expect_spelling(wire, c.row);
    if (name() == "bedrock_converse" && c.choice.kind == K::none) continue;
    ir::Request back = decode_request(wire);
    ASSERT_TRUE(back.tool_choice) << print(back);
    EXPECT_EQ(*back.tool_choice, c.choice) << print(back);
  }
}

TEST_P(TableTest, ParallelCallsOffSpelling) {
  ir::Request r = ask();
  r.parallel_tool_calls = false;
  Warnings w;
  json wire = encode(r, w);
  expect_spelling(wire,
                  {
                      {"openai_chat", {{"/parallel_tool_calls", false}}},
                      {"anthropic_messages", {{"/tool_choice/disable_parallel_tool_use", true}}},
                      {"openai_responses", {{"/parallel_tool_calls", false}}},
                      {"gemini", {none_at("/parallel_tool_calls")}},  // a loss row
                      {"bedrock_converse", {none_at("/parallel_tool_calls")}},
                  });
  if (in({"gemini", "bedrock_converse"})) return;
  EXPECT_EQ(decode_request(wire).parallel_tool_calls, false);
}

TEST_P(TableTest, ToolCallSpelling) {
  ir::Request r = answered({ir::TextPart{"18C"}});
  Warnings w;
  json wire = encode(r, w);
  const json args = {{"city", "Paris"}};
  expect_spelling(wire,
                  {
                      {"openai_chat",
                       {{"/messages/1/role", "assistant"},
                        {"/messages/1/tool_calls/0/id", "call_1"},
                        {"/messages/1/tool_calls/0/function/name", "get_weather"},
                        {"/messages/1/tool_calls/0/function/arguments", R"({"city":"Paris"})"}}},
                      {"anthropic_messages",
                       {{"/messages/1/content/0/type", "tool_use"},
                        {"/messages/1/content/0/id", "call_1"},
                        {"/messages/1/content/0/name", "get_weather"},
                        {"/messages/1/content/0/input", args}}},
                      {"openai_responses",
                       {{"/input/1/type", "function_call"},
                        {"/input/1/call_id", "call_1"},
                        {"/input/1/name", "get_weather"},
                        {"/input/1/arguments", R"({"city":"Paris"})"}}},
                      {"gemini",
                       {{"/contents/1/role", "model"},
                        {"/contents/1/parts/0/functionCall/id", "call_1"},
                        {"/contents/1/parts/0/functionCall/name", "get_weather"},
                        {"/contents/1/parts/0/functionCall/args", args}}},
                      {"bedrock_converse",
                       {{"/messages/1/role", "assistant"},
                        {"/messages/1/content/0/toolUse/toolUseId", "call_1"},
                        {"/messages/1/content/0/toolUse/name", "get_weather"},
                        {"/messages/1/content/0/toolUse/input", args}}},
                  });
  ir::Request back = decode_request(wire);
  const auto* call = first_in<ir::ToolCallPart>(back.messages);
  ASSERT_NE(call, nullptr) << print(back);
  EXPECT_EQ(call->id, "call_1");
  EXPECT_EQ(call->name, "get_weather");
  EXPECT_EQ(canonical_json(call->arguments), canonical_json(R"({"city":"Paris"})"));
}

TEST_P(TableTest, ToolResultSpelling) {
  ir::Request r = answered({ir::TextPart{"18C"}});
  Warnings w;
  json wire = encode(r, w);
  expect_spelling(wire, {
                            {"openai_chat",
                             {{"/messages/2/role", "tool"},
                              {"/messages/2/tool_call_id", "call_1"},
                              {"/messages/2/content", "18C"}}},
                            {"anthropic_messages",
                             {{"/messages/2/role", "user"},
                              {"/messages/2/content/0/type", "tool_result"},
                              {"/messages/2/content/0/tool_use_id", "call_1"},
                              {"/messages/2/content/0/content", "18C"}}},
                            {"openai_responses",
                             {{"/input/2/type", "function_call_output"},
                              {"/input/2/call_id", "call_1"},
                              {"/input/2/output", "18C"}}},
                            {"gemini",
                             {{"/contents/2/role", "user"},
                              {"/contents/2/parts/0/functionResponse/id", "call_1"},
                              {"/contents/2/parts/0/functionResponse/name", "get_weather"},
                              {"/contents/2/parts/0/functionResponse/response/output", "18C"}}},
                            {"bedrock_converse",
                             {{"/messages/2/role", "user"},
                              {"/messages/2/content/0/toolResult/toolUseId", "call_1"},
                              {"/messages/2/content/0/toolResult/content/0/text", "18C"}}},
                        });
  ir::Request back = decode_request(wire);
  const auto* res = first_in<ir::ToolResultPart>(back.messages);
  ASSERT_NE(res, nullptr) << print(back);
  EXPECT_EQ(res->call_id, "call_1");
  EXPECT_EQ(text_of(res->content), "18C");
  EXPECT_FALSE(res->is_error);
}

TEST_P(TableTest, ToolResultErrorSpelling) {
  ir::Request r = answered({ir::TextPart{"disk full"}}, /*is_error=*/true);
  Warnings w;
  json wire = encode(r, w);
  expect_spelling(
      wire, {
                {"openai_chat", {{"/messages/2/content", "Error: disk full"}}},
                {"anthropic_messages",
                 {{"/messages/2/content/0/is_error", true},
                  {"/messages/2/content/0/content", "disk full"}}},
                {"openai_responses", {{"/input/2/output", "Error: disk full"}}},
                {"gemini", {{"/contents/2/parts/0/functionResponse/response/error", "disk full"}}},
                {"bedrock_converse",
                 {{"/messages/2/content/0/toolResult/status", "error"},
                  {"/messages/2/content/0/toolResult/content/0/text", "disk full"}}},
            });
  ir::Request back = decode_request(wire);
  const auto* res = first_in<ir::ToolResultPart>(back.messages);
  ASSERT_NE(res, nullptr);
  EXPECT_TRUE(res->is_error);
  EXPECT_EQ(text_of(res->content), "disk full");
}

TEST_P(TableTest, ToolResultImageSpelling) {
  ir::ImagePart png{.media_type = "image/png", .data = "iVBORw0KGgo="};
  ir::Request r = answered({ir::TextPart{"done"}, png});
  Warnings w;
  json wire = encode(r, w);
  expect_spelling(
      wire,
      {
          // Moved out of the result (a loss row).
          {"openai_chat",
           {{"/messages/3/role", "user"},
            {"/messages/3/content/1/image_url/url", "data:image/png;base64,iVBORw0KGgo="}}},
          {"anthropic_messages",
           {{"/messages/2/content/0/content/1/type", "image"},
            {"/messages/2/content/0/content/1/source/data", "iVBORw0KGgo="}}},
          {"openai_responses",
           {{"/input/2/output/1/type", "input_image"},
            {"/input/2/output/1/image_url", "data:image/png;base64,iVBORw0KGgo="}}},
          {"gemini",
           {{"/contents/2/parts/0/functionResponse/parts/0/inlineData/mimeType", "image/png"},
            {"/contents/2/parts/0/functionResponse/parts/0/inlineData/data", "iVBORw0KGgo="}}},
          {"bedrock_converse",
           {{"/messages/2/content/0/toolResult/content/1/image/format", "png"}}},
      });
  if (name() == "openai_chat") return;
  ir::Request back = decode_request(wire);
  const auto* res = first_in<ir::ToolResultPart>(back.messages);
  ASSERT_NE(res, nullptr);
  ASSERT_EQ(res->content.size(), 2u);
  const auto* img = std::get_if<ir::ImagePart>(&res->content[1]);
  ASSERT_NE(img, nullptr);
  EXPECT_EQ(img->data, "iVBORw0KGgo=");
  EXPECT_EQ(img->media_type, "image/png");
}

TEST_P(TableTest, ReasoningSpelling) {
  ir::Response r = reply({ir::ThinkingPart{.text = "Let me think."}, ir::TextPart{"Sunny."}},
                         ir::FinishReason::Kind::stop);
  Warnings w;
  json wire = encode(r, w);
  expect_spelling(
      wire,
      {
          {"openai_chat",
           {{"/choices/0/message/reasoning_content", "Let me think."},
            {"/choices/0/message/content", "Sunny."}}},
          {"anthropic_messages",
           {{"/content/0/type", "thinking"}, {"/content/0/thinking", "Let me think."}}},
          {"openai_responses",
           {{"/output/0/type", "reasoning"}, {"/output/0/summary/0/text", "Let me think."}}},
          {"gemini",
           {{"/candidates/0/content/parts/0/thought", true},
            {"/candidates/0/content/parts/0/text", "Let me think."}}},
          {"bedrock_converse",
           {{"/output/message/content/0/reasoningContent/reasoningText/text", "Let me think."}}},
      });
  ir::Response back = decode_response(wire);
  const auto* th = first<ir::ThinkingPart>(back.parts);
  ASSERT_NE(th, nullptr) << print(back);
  EXPECT_EQ(th->text, "Let me think.");
  const auto* text = first<ir::TextPart>(back.parts);
  ASSERT_NE(text, nullptr) << print(back);
  EXPECT_EQ(text->text, "Sunny.");
}

TEST_P(TableTest, FinishToolCallsSpelling) {
  Warnings w;
  json wire = encode(reply({weather_call()}, ir::FinishReason::Kind::tool_calls), w);
  expect_spelling(wire, {
                            {"openai_chat", {{"/choices/0/finish_reason", "tool_calls"}}},
                            {"anthropic_messages", {{"/stop_reason", "tool_use"}}},
                            {"openai_responses",
                             {{"/status", "completed"}, {"/output/0/type", "function_call"}}},
                            {"gemini",
                             {{"/candidates/0/finishReason", "STOP"},
                              {"/candidates/0/content/parts/0/functionCall/name", "get_weather"}}},
                            {"bedrock_converse", {{"/stopReason", "tool_use"}}},
                        });
  EXPECT_EQ(decode_response(wire).finish.kind, ir::FinishReason::Kind::tool_calls);
}

TEST_P(TableTest, FinishLengthAndFilterSpelling) {
  using K = ir::FinishReason::Kind;
  const std::pair<K, Spelling> cases[] = {
      {K::length,
       {{"openai_chat", {{"/choices/0/finish_reason", "length"}}},
        {"anthropic_messages", {{"/stop_reason", "max_tokens"}}},
        {"openai_responses",
         {{"/status", "incomplete"}, {"/incomplete_details/reason", "max_output_tokens"}}},
        {"gemini", {{"/candidates/0/finishReason", "MAX_TOKENS"}}},
        {"bedrock_converse", {{"/stopReason", "max_tokens"}}}}},
      {K::content_filter,
       {{"openai_chat", {{"/choices/0/finish_reason", "content_filter"}}},
        {"anthropic_messages", {{"/stop_reason", "refusal"}}},
        {"openai_responses",
         {{"/status", "incomplete"}, {"/incomplete_details/reason", "content_filter"}}},
        {"gemini", {{"/candidates/0/finishReason", "SAFETY"}}},
        {"bedrock_converse", {{"/stopReason", "content_filtered"}}}}},
  };
  for (const auto& [kind, row] : cases) {
    SCOPED_TRACE(std::string(ir::to_string(kind)));
    Warnings w;
    json wire = encode(reply({ir::TextPart{"Sun"}}, kind), w);
    expect_spelling(wire, row);
    EXPECT_EQ(decode_response(wire).finish.kind, kind);
  }
}

TEST_P(TableTest, UsageSpelling) {
  // IR input counts every input token, cache reads included.
  ir::Response r = reply({ir::TextPart{"Sun"}}, ir::FinishReason::Kind::stop);
  r.usage.cache_read_tokens = 30;
  Warnings w;
  json wire = encode(r, w);
  expect_spelling(wire, {
                            {"openai_chat",
                             {{"/usage/prompt_tokens", 100},
                              {"/usage/completion_tokens", 7},
                              {"/usage/prompt_tokens_details/cached_tokens", 30}}},
                            {"anthropic_messages",
                             {{"/usage/input_tokens", 70},
                              {"/usage/output_tokens", 7},
                              {"/usage/cache_read_input_tokens", 30}}},
                            {"openai_responses",
                             {{"/usage/input_tokens", 100},
                              {"/usage/output_tokens", 7},
                              {"/usage/input_tokens_details/cached_tokens", 30}}},
                            {"gemini",
                             {{"/usageMetadata/promptTokenCount", 100},
                              {"/usageMetadata/candidatesTokenCount", 7},
                              {"/usageMetadata/cachedContentTokenCount", 30}}},
                            {"bedrock_converse",
                             {{"/usage/inputTokens", 70},
                              {"/usage/outputTokens", 7},
                              {"/usage/cacheReadInputTokens", 30}}},
                        });
  ir::Usage back = decode_response(wire).usage;
  EXPECT_EQ(back.input_tokens, 100);
  EXPECT_EQ(back.output_tokens, 7);
  EXPECT_EQ(back.cache_read_tokens, 30);
}

TEST_P(TableTest, ModelSpelling) {
  Warnings w;
  json wire = encode(ask(), w);
  const Spelling in_body = {{"openai_chat", {{"/model", "m-1"}}},
                            {"anthropic_messages", {{"/model", "m-1"}}},
                            {"openai_responses", {{"/model", "m-1"}}},
                            {"gemini", {none_at("/model")}},
                            {"bedrock_converse", {none_at("/model")}}};
  expect_spelling(wire, in_body);
  const Names in_url = {"gemini", "bedrock_converse"};
  std::string url = codec::url_for("https://h", dialect().path, "m-1");
  EXPECT_EQ(url.find("m-1") != std::string::npos, in(in_url)) << url;
  EXPECT_EQ(decode_request(wire).model, in(in_url) ? "" : "m-1");
}

TEST_P(TableTest, StreamFramingSpelling) {
  const std::vector<ir::StreamEvent> events = {
      ir::MessageStart{"resp_1", "m-1", 1700000000},
      ir::TextDelta{"Sun"},
      ir::UsageEvent{{.input_tokens = 10, .output_tokens = 1}},
      ir::Finish{{ir::FinishReason::Kind::stop, ""}},
  };
  std::string bytes = encode_stream(codec(), events);
  const std::map<std::string_view, std::string_view> starts = {
      {"openai_chat", "data: {"},
      {"anthropic_messages", "event: message_start\ndata: {"},
      {"openai_responses", "event: response.created\ndata: {"},
      {"gemini", "data: {"},
      {"bedrock_converse", ""},  // binary frames: checked below
  };
  ASSERT_TRUE(starts.contains(name())) << name() << " has no stream spelling in this row";
  EXPECT_TRUE(bytes.starts_with(starts.at(name()))) << bytes;
  if (name() == "openai_chat") {
    EXPECT_TRUE(bytes.ends_with("data: [DONE]\n\n")) << bytes;
  }
  if (name() == "openai_responses") {
    EXPECT_NE(bytes.find("\"sequence_number\":0"), std::string::npos) << bytes;
  }
  if (name() == "bedrock_converse") {
    EXPECT_EQ(dialect().stream_media_type, "application/vnd.amazon.eventstream");
    // A frame's prelude: its total length, big-endian, first.
    ASSERT_GE(bytes.size(), 12u);
    uint32_t total = 0;
    for (int i = 0; i < 4; ++i) total = total << 8 | static_cast<unsigned char>(bytes[i]);
    EXPECT_LE(total, bytes.size());
    EXPECT_NE(bytes.find(":event-type"), std::string::npos);
  } else {
    EXPECT_EQ(dialect().stream_media_type, "text/event-stream");
  }
  Decoded back = decode_stream(codec(), bytes);
  ASSERT_EQ(back.error, "");
  ir::Response acc = accumulate(back.events);
  EXPECT_EQ(acc.parts, std::vector<ir::Part>{ir::TextPart{"Sun"}}) << describe(back.events);
  EXPECT_EQ(acc.finish.kind, ir::FinishReason::Kind::stop);
}

TEST_P(TableTest, ErrorBodySpelling) {
  Error e = make_error(ErrorCode::invalid_argument, "bad tool", "$.tools[0]");
  codec::WireError wire_error = codec().encode_error(e);
  EXPECT_EQ(wire_error.http_status, 400);
  json body = json::parse(wire_error.body);
  expect_spelling(
      body,
      {
          {"openai_chat", {{"/error/type", "invalid_request_error"}}},
          {"anthropic_messages", {{"/type", "error"}, {"/error/type", "invalid_request_error"}}},
          {"openai_responses", {{"/error/type", "invalid_request_error"}}},
          {"gemini", {{"/error/code", 400}, {"/error/status", "INVALID_ARGUMENT"}}},
          {"bedrock_converse", {none_at("/error")}},
      });
  if (name() == "bedrock_converse") {
    EXPECT_TRUE(body.contains("message")) << body;
    ASSERT_EQ(wire_error.headers.size(), 1u);
    EXPECT_EQ(wire_error.headers[0].first, "x-amzn-errortype");
    EXPECT_EQ(wire_error.headers[0].second, "ValidationException");
  }
  Error back = codec().decode_error(wire_error.http_status, wire_error.body);
  EXPECT_EQ(back.code, ErrorCode::invalid_argument) << back.to_string();
  EXPECT_NE(back.message.find("bad tool"), std::string::npos) << back.to_string();
}

// ---- Loss rows ("What a pair cannot express") ------------------------------

TEST_P(TableTest, LossToolStrict) {
  ir::Request r = ask();
  r.tools[0].strict = true;
  Warnings w;
  json wire = encode(r, w);
  const Names lossy = {"anthropic_messages", "gemini", "bedrock_converse"};
  expect_loss(w, lossy, "dropped_tool_strict");
  EXPECT_EQ(decode_request(wire).tools.at(0).strict,
            in(lossy) ? std::nullopt : std::optional(true));
}

TEST_P(TableTest, LossParallelCallsOff) {
  ir::Request r = ask();
  r.parallel_tool_calls = false;
  Warnings w;
  json wire = encode(r, w);
  const Names lossy = {"gemini", "bedrock_converse"};
  expect_loss(w, lossy, "dropped_parallel_tool_calls");
  EXPECT_EQ(decode_request(wire).parallel_tool_calls,
            in(lossy) ? std::nullopt : std::optional(false));
}

TEST_P(TableTest, LossToolChoiceNone) {
  ir::Request r = ask();
  r.tool_choice = ir::ToolChoice{ir::ToolChoice::Kind::none};
  Warnings w;
  json wire = encode(r, w);
  const Names lossy = {"bedrock_converse"};
  expect_loss(w, lossy, "dropped_tool_choice_none");
  ir::Request back = decode_request(wire);
  if (in(lossy)) {
    EXPECT_FALSE(back.tool_choice) << print(back);  // the model decides
    EXPECT_EQ(back.tools.size(), 1u);
  } else {
    EXPECT_EQ(back.tool_choice, r.tool_choice) << print(back);
  }
}

// Gemini's allowedFunctionNames with several names: no IR form (decode side).
TEST(TableLoss, GeminiAllowedFunctionNamesWidened) {
  const codec::Codec& gemini = *codec::find_codec("gemini");
  json wire = {
      {"contents", json::array({{{"role", "user"}, {"parts", json::array({{{"text", "hi"}}})}}})},
      {"tools", json::array({{{"functionDeclarations",
                               json::array({{{"name", "a"}, {"description", "A"}},
                                            {{"name", "b"}, {"description", "B"}},
                                            {{"name", "c"}, {"description", "C"}}})}}})},
      {"toolConfig",
       {{"functionCallingConfig", {{"mode", "ANY"}, {"allowedFunctionNames", {"a", "b"}}}}}}};
  Warnings w;
  auto r = gemini.decode_request(wire.dump(), w);
  ASSERT_TRUE(r) << r.error().to_string();
  EXPECT_TRUE(has_warning(w, "widened_tool_choice")) << warnings_text(w);
  ASSERT_TRUE(r->tool_choice);
  EXPECT_EQ(r->tool_choice->kind, ir::ToolChoice::Kind::required);
  // VALIDATED (calls checked against the schema, model may answer in text) reads as AUTO.
  wire["toolConfig"]["functionCallingConfig"] = {{"mode", "VALIDATED"}};
  Warnings w2;
  r = gemini.decode_request(wire.dump(), w2);
  ASSERT_TRUE(r) << r.error().to_string();
  EXPECT_TRUE(has_warning(w2, "approximated_tool_choice")) << warnings_text(w2);
  EXPECT_EQ(r->tool_choice->kind, ir::ToolChoice::Kind::auto_);
}

TEST_P(TableTest, LossParticipantName) {
  ir::Request r = ask();
  r.messages[0].name = "alice";
  Warnings w;
  json wire = encode(r, w);
  expect_loss(w, {{"anthropic_messages", "dropped_message_name"},
                  {"openai_responses", "dropped_participant_name"},
                  {"gemini", "dropped_message_name"},
                  {"bedrock_converse", "dropped_message_name"}});
  ir::Request back = decode_request(wire);
  EXPECT_EQ(back.messages.at(0).name, name() == "openai_chat" ? "alice" : "");
}

TEST_P(TableTest, LossMidConversationSystemMessage) {
  ir::Request r = ask();
  r.system = {{"Be brief."}};
  r.messages.push_back({ir::Role::assistant, {ir::TextPart{"Which unit?"}}});
  r.messages.push_back({ir::Role::system, {ir::TextPart{"Answer in Celsius."}}});
  r.messages.push_back(user("Any."));
  Warnings w;
  json wire = encode(r, w);
  const Names lossy = {"anthropic_messages", "gemini", "bedrock_converse"};
  expect_loss(w, lossy, "moved_system_message");
  ir::Request back = decode_request(wire);
  if (in(lossy)) {
    std::string system;
    for (const auto& s : back.system) system += s.text + "|";
    EXPECT_NE(system.find("Answer in Celsius."), std::string::npos) << print(back);
    EXPECT_EQ(back.messages.size(), 3u) << print(back);
  } else {
    ASSERT_EQ(back.messages.size(), 4u) << print(back);
    EXPECT_EQ(back.messages[2].role, ir::Role::system);
  }
}

TEST_P(TableTest, LossDeveloperFlag) {
  ir::Request r = ask();
  r.system = {{"Be brief."}, {"Use tools.", /*developer=*/true}};
  Warnings w;
  json wire = encode(r, w);
  const Names lossy = {"anthropic_messages", "gemini", "bedrock_converse"};
  expect_loss(w, lossy, "dropped_developer_flag");
  ir::Request back = decode_request(wire);
  ASSERT_EQ(back.system.size(), 2u) << print(back);
  EXPECT_EQ(back.system[1].text, "Use tools.");
  EXPECT_EQ(back.system[1].developer, !in(lossy));
}

TEST_P(TableTest, LossStopSequences) {
  ir::Request r = ask();
  r.stop = {"END"};
  Warnings w;
  json wire = encode(r, w);
  const Names lossy = {"openai_responses"};
  expect_loss(w, lossy, "dropped_stop");
  EXPECT_EQ(decode_request(wire).stop,
            in(lossy) ? std::vector<std::string>{} : std::vector<std::string>{"END"});
}

TEST_P(TableTest, LossMaxTokensRequired) {
  ir::Request r = ask();
  r.max_tokens.reset();
  Warnings w;
  json wire = encode(r, w);
  const Names lossy = {"anthropic_messages"};
  expect_loss(w, lossy, "defaulted_max_tokens");
  EXPECT_EQ(decode_request(wire).max_tokens,
            in(lossy) ? std::optional<int64_t>(4096) : std::nullopt);
}

TEST_P(TableTest, LossMetadata) {
  // String values: Bedrock's requestMetadata takes them; Gemini has no field.
  ir::Request r = ask();
  r.metadata = R"({"user_id":"u1"})";
  Warnings w;
  json wire = encode(r, w);
  const Names lossy = {"gemini"};
  expect_loss(w, lossy, "dropped_metadata");
  ir::Request back = decode_request(wire);
  EXPECT_EQ(canonical_json(back.metadata), in(lossy) ? "" : canonical_json(r.metadata));
  // A value that is not a string: Bedrock drops it too.
  r.metadata = R"({"user_id":"u1","n":1})";
  Warnings w2;
  encode(r, w2);
  expect_loss(w2, {"gemini", "bedrock_converse"}, "dropped_metadata");
}

TEST_P(TableTest, LossImageDetail) {
  ir::Request r = ask();
  r.messages[0].parts.push_back(
      ir::ImagePart{.media_type = "image/png", .data = "iVBORw0KGgo=", .detail = "high"});
  Warnings w;
  json wire = encode(r, w);
  const Names lossy = {"anthropic_messages", "gemini", "bedrock_converse"};
  expect_loss(w, lossy, "dropped_image_detail");
  ir::Request back = decode_request(wire);
  const auto* img = first_in<ir::ImagePart>(back.messages);
  ASSERT_NE(img, nullptr) << print(back);
  EXPECT_EQ(img->data, "iVBORw0KGgo=");
  EXPECT_EQ(img->detail, in(lossy) ? "" : "high");
}

TEST_P(TableTest, LossImageByUrl) {
  ir::Request r = ask();
  r.messages[0].parts.push_back(ir::ImagePart{.url = "https://example.com/a.png"});
  Warnings w;
  json wire = encode(r, w);
  const Names lossy = {"bedrock_converse"};
  expect_loss(w, lossy, "dropped_image_url");
  ir::Request back = decode_request(wire);
  const auto* img = first_in<ir::ImagePart>(back.messages);
  if (in(lossy)) {
    EXPECT_EQ(img, nullptr) << print(back);
  } else {
    ASSERT_NE(img, nullptr) << print(back);
    EXPECT_EQ(img->url, "https://example.com/a.png");
  }
}

TEST_P(TableTest, LossToolResultImage) {
  ir::Request r =
      answered({ir::TextPart{"done"}, ir::ImagePart{.media_type = "image/png", .data = "AAAA"}});
  Warnings w;
  json wire = encode(r, w);
  const Names lossy = {"openai_chat"};
  expect_loss(w, lossy, "tool_result_image_moved");
  ir::Request back = decode_request(wire);
  const auto* res = first_in<ir::ToolResultPart>(back.messages);
  ASSERT_NE(res, nullptr) << print(back);
  // Moved: the result keeps its text, the image follows in a user message.
  EXPECT_EQ(res->content.size(), in(lossy) ? 1u : 2u) << print(back);
  if (in(lossy)) {
    ASSERT_EQ(back.messages.size(), 4u) << print(back);
    EXPECT_NE(first<ir::ImagePart>(back.messages[3].parts), nullptr) << print(back);
  }
}

TEST_P(TableTest, LossResultTextsJoined) {
  ir::Request r = answered({ir::TextPart{"18C"}, ir::TextPart{"sunny"}});
  Warnings w;
  json wire = encode(r, w);
  const Names lossy = {"gemini"};
  expect_loss(w, lossy, "joined_result_texts");
  ir::Request back = decode_request(wire);
  const auto* res = first_in<ir::ToolResultPart>(back.messages);
  ASSERT_NE(res, nullptr) << print(back);
  if (in(lossy)) {
    ASSERT_EQ(res->content.size(), 1u) << print(back);
    EXPECT_EQ(text_of(res->content), "18C\n\nsunny");
  } else {
    EXPECT_EQ(res->content.size(), 2u) << print(back);
  }
}

TEST_P(TableTest, LossAssistantImage) {
  ir::Request r = ask();
  r.messages.push_back(
      {ir::Role::assistant,
       {ir::TextPart{"Here:"}, ir::ImagePart{.media_type = "image/png", .data = "AAAA"}}});
  r.messages.push_back(user("Thanks."));
  Warnings w;
  json wire = encode(r, w);
  expect_loss(w, {{"openai_chat", "dropped_part"},
                  {"anthropic_messages", "dropped_assistant_image"},
                  {"openai_responses", "dropped_part"},
                  {"gemini", "dropped_assistant_image"},
                  {"bedrock_converse", "dropped_assistant_image"}});
  ir::Request back = decode_request(wire);
  EXPECT_EQ(first<ir::ImagePart>(back.messages.at(1).parts), nullptr) << print(back);
}

TEST_P(TableTest, LossInvalidArguments) {
  ir::Request r = answered({ir::TextPart{"18C"}});
  auto& call = std::get<ir::ToolCallPart>(r.messages[1].parts[0]);
  call.arguments = R"({"city": "Par)";
  call.arguments_valid = false;
  Warnings w;
  json wire = encode(r, w);
  const Names wrapped = {"anthropic_messages", "gemini", "bedrock_converse"};
  expect_loss(w, wrapped, "invalid_arguments_wrapped");
  // Approximated: wrapped in an object and unwrapped again, exactly.
  ir::Request back = decode_request(wire);
  const auto* c = first_in<ir::ToolCallPart>(back.messages);
  ASSERT_NE(c, nullptr) << print(back);
  EXPECT_EQ(c->arguments, R"({"city": "Par)");
  EXPECT_FALSE(c->arguments_valid);
}

TEST_P(TableTest, LossUnknownPart) {
  // Another dialect's block the IR has no type for (an Anthropic document).
  const codec::Dialect& source = *codec::find_dialect("anthropic_messages");
  ir::Request r = ask();
  r.messages[0].parts.push_back(
      ir::UnknownPart{std::string(source.name), "document",
                      R"({"type":"document","source":{"type":"text","media_type":"text/plain",)"
                      R"("data":"x"}})"});
  Warnings w;
  json wire = encode(r, w);
  const bool same = name() == source.name;
  EXPECT_EQ(has_warning(w, "dropped_unknown_part"), !same) << name() << warnings_text(w);
  ir::Request back = decode_request(wire);
  EXPECT_EQ(first_in<ir::UnknownPart>(back.messages) != nullptr, same) << print(back);
}

TEST_P(TableTest, LossUnknownField) {
  const codec::Dialect& source = *codec::find_dialect("openai_chat");
  ir::Request r = ask();
  r.source_dialect = source.name;
  r.extra = {{"seed", "7"}};
  Warnings w;
  json wire = encode(r, w);
  const bool same = name() == source.name;
  EXPECT_EQ(has_warning(w, "dropped_unknown_field", "$.seed"), !same) << warnings_text(w);
  EXPECT_EQ(wire.contains("seed"), same) << wire.dump();
}

TEST_P(TableTest, LossThinkingSignature) {
  ir::Response r =
      reply({ir::ThinkingPart{.text = "Hmm.", .signature = "sig-1"}, ir::TextPart{"Sunny."}},
            ir::FinishReason::Kind::stop);
  Warnings w;
  json wire = encode(r, w);
  const Names lossy = {"openai_chat", "openai_responses"};
  expect_loss(w, lossy, "dropped_thinking_signature");
  const auto back = decode_response(wire);
  const auto* th = first<ir::ThinkingPart>(back.parts);
  ASSERT_NE(th, nullptr) << print(back);
  EXPECT_EQ(th->signature, in(lossy) ? "" : "sig-1") << print(back);
}

TEST_P(TableTest, LossRedactedThinking) {
  ir::Response r = reply(
      {ir::ThinkingPart{.redacted = true, .redacted_data = "EmwKAhgB"}, ir::TextPart{"Sunny."}},
      ir::FinishReason::Kind::stop);
  Warnings w;
  json wire = encode(r, w);
  const Names lossy = {"openai_chat", "openai_responses", "gemini"};
  expect_loss(w, lossy, "dropped_redacted_thinking");
  const auto back = decode_response(wire);
  const auto* th = first<ir::ThinkingPart>(back.parts);
  if (in(lossy)) {
    EXPECT_EQ(th, nullptr) << print(back);
  } else {
    ASSERT_NE(th, nullptr) << print(back);
    EXPECT_TRUE(th->redacted);
    EXPECT_EQ(th->redacted_data, "EmwKAhgB");
  }
}

TEST_P(TableTest, LossUnsignedThinkingInRequest) {
  // Reasoning sent back with neither an Anthropic signature nor a Responses item id.
  ir::Request r = ask();
  r.messages.push_back(
      {ir::Role::assistant, {ir::ThinkingPart{.text = "Hmm."}, ir::TextPart{"A."}}});
  r.messages.push_back(user("More."));
  Warnings w;
  json wire = encode(r, w);
  const std::map<std::string_view, std::string_view> codes = {
      {"anthropic_messages", "dropped_unsigned_thinking"},
      {"openai_responses", "dropped_reasoning_without_id"}};
  expect_loss(w, codes);
  ir::Request back = decode_request(wire);
  EXPECT_EQ(first<ir::ThinkingPart>(back.messages.at(1).parts) == nullptr, codes.contains(name()))
      << print(back);
}

TEST_P(TableTest, LossReasoningItem) {
  ir::Response r =
      reply({ir::ThinkingPart{.text = "Hmm.", .item_id = "rs_1", .encrypted_content = "gAAAAB"},
             ir::TextPart{"Sunny."}},
            ir::FinishReason::Kind::stop);
  Warnings w;
  json wire = encode(r, w);
  const Names lossy = {"openai_chat", "anthropic_messages", "gemini", "bedrock_converse"};
  expect_loss(w, lossy, "dropped_reasoning_item");
  const auto back = decode_response(wire);
  const auto* th = first<ir::ThinkingPart>(back.parts);
  ASSERT_NE(th, nullptr) << print(back);
  EXPECT_EQ(th->encrypted_content, in(lossy) ? "" : "gAAAAB") << print(back);
}

TEST_P(TableTest, LossCallSignature) {
  // Gemini's thoughtSignature on a call, in a response and sent back in a request.
  ir::ToolCallPart call = weather_call();
  call.signature = "CiQB0e2Kb";
  Warnings w;
  json wire = encode(reply({call}, ir::FinishReason::Kind::tool_calls), w);
  const Names lossy = {"openai_chat", "anthropic_messages", "openai_responses", "bedrock_converse"};
  expect_loss(w, lossy, "dropped_call_signature");
  const auto back = decode_response(wire);
  const auto* c = first<ir::ToolCallPart>(back.parts);
  ASSERT_NE(c, nullptr) << print(back);
  EXPECT_EQ(c->signature, in(lossy) ? "" : "CiQB0e2Kb");

  ir::Request req = answered({ir::TextPart{"18C"}});
  std::get<ir::ToolCallPart>(req.messages[1].parts[0]).signature = "CiQB0e2Kb";
  Warnings w2;
  encode(req, w2);
  expect_loss(w2, lossy, "dropped_call_signature");

  Warnings w3;
  encode_stream(codec(),
                {ir::MessageStart{"resp_1", "m-1", 0}, ir::ToolCallStart{0, "call_1", "f", "CiQB"},
                 ir::ToolCallDelta{0, "{}"}, ir::ToolCallEnd{0},
                 ir::Finish{{ir::FinishReason::Kind::tool_calls, ""}}},
                &w3);
  expect_loss(w3, lossy, "dropped_call_signature");
}

TEST_P(TableTest, LossUnsignedCallIntoGemini) {
  // Another dialect's history: calls without a signature, which Gemini 3 refuses.
  Warnings w;
  json wire = encode(answered({ir::TextPart{"18C"}}), w);
  const Names approximated = {"gemini"};
  expect_loss(w, approximated, "placeholder_thought_signature");
  if (in(approximated)) {
    EXPECT_EQ(wire.at(json::json_pointer("/contents/1/parts/0/thoughtSignature")),
              "skip_thought_signature_validator");
  }
}

TEST_P(TableTest, LossCacheWriteTokens) {
  ir::Response r = reply({ir::TextPart{"Sun"}}, ir::FinishReason::Kind::stop);
  r.usage.cache_write_tokens = 5;
  Warnings w;
  json wire = encode(r, w);
  const Names lossy = {"openai_chat", "openai_responses", "gemini"};
  expect_loss(w, lossy, "dropped_cache_write_tokens");
  EXPECT_EQ(decode_response(wire).usage.cache_write_tokens,
            in(lossy) ? std::nullopt : std::optional<int64_t>(5));
}

TEST_P(TableTest, LossResponseId) {
  Warnings w;
  json wire = encode(reply({ir::TextPart{"Sun"}}, ir::FinishReason::Kind::stop), w);
  const Names lossy = {"bedrock_converse"};
  expect_loss(w, lossy, "dropped_response_id");
  EXPECT_EQ(decode_response(wire).id, in(lossy) ? "" : "resp_1");
}

TEST_P(TableTest, LossLateArgumentFragment) {
  // A fragment of a call after other content started (interleaved Anthropic
  // blocks): Gemini has already written the call whole.
  const std::vector<ir::StreamEvent> events = {
      ir::MessageStart{"resp_1", "m-1", 0},
      ir::ToolCallStart{0, "call_1", "get_weather", ""},
      ir::ToolCallDelta{0, R"({"city":)"},
      ir::ToolCallStart{1, "call_2", "get_weather", ""},
      ir::ToolCallDelta{1, R"({"city":"Rome"})"},
      ir::ToolCallDelta{0, R"("Paris"})"},
      ir::ToolCallEnd{0},
      ir::ToolCallEnd{1},
      ir::Finish{{ir::FinishReason::Kind::tool_calls, ""}},
  };
  Warnings w;
  std::string bytes = encode_stream(codec(), events, &w);
  EXPECT_FALSE(has_warning(w, "dropped_late_fragment")) << warnings_text(w);  // still buffered
  Decoded back = decode_stream(codec(), bytes);
  ASSERT_EQ(back.error, "");
  ir::Response acc = accumulate(back.events);
  ASSERT_EQ(acc.parts.size(), 2u) << describe(back.events);
  EXPECT_EQ(canonical_json(std::get<ir::ToolCallPart>(acc.parts[0]).arguments),
            canonical_json(R"({"city":"Paris"})"));
  // After text: the call was written when the text began.
  const std::vector<ir::StreamEvent> late = {
      ir::MessageStart{"resp_1", "m-1", 0},
      ir::ToolCallStart{0, "call_1", "get_weather", ""},
      ir::ToolCallDelta{0, R"({"city":)"},
      ir::TextDelta{"Checking."},
      ir::ToolCallDelta{0, R"("Paris"})"},
      ir::ToolCallEnd{0},
      ir::Finish{{ir::FinishReason::Kind::tool_calls, ""}},
  };
  Warnings w2;
  encode_stream(codec(), late, &w2);
  expect_loss(w2, {"gemini"}, "dropped_late_fragment");
}

// Tools the provider runs and stored conversations: refused, not dropped.
TEST_P(TableTest, LossProviderToolRefused) {
  const codec::Codec& responses = *codec::find_codec("openai_responses");
  json req = {{"model", "gpt-5"},
              {"input", "Latest news?"},
              {"tools", json::array({{{"type", "web_search"}}})}};
  Warnings w;
  auto ir = responses.decode_request(req.dump(), w);
  ASSERT_TRUE(ir) << ir.error().to_string();
  auto out = codec().encode_request(*ir, w);
  if (name() == responses.name()) {
    ASSERT_TRUE(out) << out.error().to_string();
    EXPECT_EQ(json::parse(*out)["tools"][0]["type"], "web_search");
  } else {
    ASSERT_FALSE(out) << *out;
    EXPECT_EQ(out.error().code, ErrorCode::invalid_argument) << out.error().to_string();
    EXPECT_EQ(out.error().path, "$.tools") << out.error().to_string();
  }
}

TEST_P(TableTest, LossServerToolDropped) {
  // An Anthropic server tool: the provider runs it; other dialects drop it.
  const codec::Codec& anthropic = *codec::find_codec("anthropic_messages");
  json req = {
      {"model", "claude"},
      {"max_tokens", 100},
      {"messages", json::array({{{"role", "user"}, {"content", "News?"}}})},
      {"tools", json::array({{{"type", "web_search_20250305"}, {"name", "web_search"}},
                             {{"name", "get_weather"}, {"input_schema", {{"type", "object"}}}}})}};
  Warnings w;
  auto ir = anthropic.decode_request(req.dump(), w);
  ASSERT_TRUE(ir) << ir.error().to_string();
  auto out = codec().encode_request(*ir, w);
  ASSERT_TRUE(out) << out.error().to_string();
  const bool same = name() == anthropic.name();
  EXPECT_EQ(has_warning(w, "dropped_unsupported_tool"), !same) << warnings_text(w);
  EXPECT_EQ(out->find("web_search_20250305") != std::string::npos, same) << *out;
}

TEST_P(TableTest, LossPreviousResponseIdRefused) {
  const codec::Codec& responses = *codec::find_codec("openai_responses");
  json req = {{"model", "gpt-5"}, {"input", "And Rome?"}, {"previous_response_id", "resp_9"}};
  Warnings w;
  auto ir = responses.decode_request(req.dump(), w);
  ASSERT_TRUE(ir) << ir.error().to_string();
  auto out = codec().encode_request(*ir, w);
  if (name() == responses.name()) {
    ASSERT_TRUE(out) << out.error().to_string();
    EXPECT_EQ(json::parse(*out)["previous_response_id"], "resp_9");
  } else {
    ASSERT_FALSE(out) << *out;
    EXPECT_EQ(out.error().code, ErrorCode::failed_precondition) << out.error().to_string();
    EXPECT_EQ(out.error().path, "$.previous_response_id");
  }
}

std::string dialect_label(const ::testing::TestParamInfo<const codec::Dialect*>& info) {
  return std::string(info.param->alias.empty() ? info.param->name : info.param->alias);
}

INSTANTIATE_TEST_SUITE_P(AllDialects, TableTest, ::testing::ValuesIn(dialects_with_codecs()),
                         dialect_label);

}  // namespace
}  // namespace toolwire::testing
