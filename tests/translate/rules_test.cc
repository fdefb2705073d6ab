// One focused test per translation rule of issue 2 (item 4), through the
// public Codec API only: wire JSON in, wire JSON out, asserted as JSON values.
#include <gtest/gtest.h>

#include <nlohmann/json.hpp>

#include "ir_print.h"
#include "wire.h"

namespace toolwire::testing {
namespace {

using nlohmann::json;

struct Out {
  json wire;
  Warnings warnings;
};

Out o2a(const json& req) {
  Out out;
  auto ir = openai().decode_request(req.dump(), out.warnings);
  EXPECT_TRUE(ir) << ir.error().to_string();
  if (!ir) return out;
  auto bytes = anthropic().encode_request(*ir, out.warnings);
  EXPECT_TRUE(bytes) << bytes.error().to_string();
  if (bytes) out.wire = json::parse(*bytes);
  return out;
}

Out a2o(const json& req) {
  Out out;
  auto ir = anthropic().decode_request(req.dump(), out.warnings);
  EXPECT_TRUE(ir) << ir.error().to_string();
  if (!ir) return out;
  auto bytes = openai().encode_request(*ir, out.warnings);
  EXPECT_TRUE(bytes) << bytes.error().to_string();
  if (bytes) out.wire = json::parse(*bytes);
  return out;
}

json oa_call(const std::string& id, const std::string& name, const std::string& args) {
  return {{"id", id}, {"type", "function"}, {"function", {{"name", name}, {"arguments", args}}}};
}

// A conversation with two parallel calls answered by two tool messages.
json openai_two_results() {
  return {{"model", "gpt-4o"},
          {"messages",
           json::array({{{"role", "user"}, {"content", "Weather and time in Paris?"}},
                        {{"role", "assistant"},
                         {"content", nullptr},
                         {"tool_calls",
                          json::array({oa_call("call_w", "get_weather", R"({"city":"Paris"})"),
                                       oa_call("call_t", "get_time", R"({"tz":"CET"})")})}},
                        {{"role", "tool"}, {"tool_call_id", "call_w"}, {"content", "18C"}},
                        {{"role", "tool"}, {"tool_call_id", "call_t"}, {"content", "14:05"}}})}};
}

TEST(TranslationRules, ConsecutiveToolMessagesMergeIntoOneAnthropicUserMessage) {
  Out a = o2a(openai_two_results());
  const json& msgs = a.wire["messages"];
  ASSERT_EQ(msgs.size(), 3u) << a.wire.dump(2);
  EXPECT_EQ(msgs[2]["role"], "user");
  const json& blocks = msgs[2]["content"];
  ASSERT_EQ(blocks.size(), 2u);
  EXPECT_EQ(blocks[0]["type"], "tool_result");
  EXPECT_EQ(blocks[0]["tool_use_id"], "call_w");
  EXPECT_EQ(blocks[1]["tool_use_id"], "call_t");
  EXPECT_EQ(msgs[1]["content"][0]["input"], json::parse(R"({"city":"Paris"})"));
}

TEST(TranslationRules, AnthropicToolResultsBecomeOneOpenAIToolMessageEachInOrderThenTheUserText) {
  json req = {
      {"model", "claude-sonnet-4-5"},
      {"max_tokens", 100},
      {"messages",
       json::array(
           {{{"role", "user"}, {"content", "Go"}},
            {{"role", "assistant"},
             {"content", json::array({{{"type", "tool_use"},
                                       {"id", "toolu_2"},
                                       {"name", "b"},
                                       {"input", json::object()}},
                                      {{"type", "tool_use"},
                                       {"id", "toolu_1"},
                                       {"name", "a"},
                                       {"input", {{"x", 1}}}}})}},
            {{"role", "user"},
             {"content",
              json::array({{{"type", "tool_result"}, {"tool_use_id", "toolu_2"}, {"content", "B"}},
                           {{"type", "tool_result"}, {"tool_use_id", "toolu_1"}, {"content", "A"}},
                           {{"type", "text"}, {"text", "and now?"}}})}}})}};
  Out o = a2o(req);
  const json& msgs = o.wire["messages"];
  ASSERT_EQ(msgs.size(), 5u) << o.wire.dump(2);
  EXPECT_EQ(msgs[1]["tool_calls"][0]["id"], "toolu_2");
  EXPECT_EQ(msgs[1]["tool_calls"][0]["function"]["arguments"], "{}");
  EXPECT_EQ(json::parse(msgs[1]["tool_calls"][1]["function"]["arguments"].get<std::string>()),
            json::parse(R"({"x":1})"));
  EXPECT_EQ(msgs[2]["role"], "tool");
  EXPECT_EQ(msgs[2]["tool_call_id"], "toolu_2");
  EXPECT_EQ(msgs[3]["tool_call_id"], "toolu_1");
  EXPECT_EQ(msgs[4]["role"], "user");
  // And back: the tool messages and the text merge into one user message again.
  Out a = o2a(o.wire);
  ASSERT_EQ(a.wire["messages"].size(), 3u) << a.wire.dump(2);
  EXPECT_EQ(a.wire["messages"][2]["content"], req["messages"][2]["content"]);
}

TEST(TranslationRules, ToolChoiceAndParallelMapBothWays) {
  json base = openai_two_results();
  base["tools"] = json::array(
      {{{"type", "function"},
        {"function", {{"name", "get_weather"}, {"parameters", {{"type", "object"}}}}}}});
  struct Case {
    json openai_choice;
    json anthropic_choice;
  };
  const Case cases[] = {
      {"required", {{"type", "any"}}},
      {"auto", {{"type", "auto"}}},
      {"none", {{"type", "none"}}},
      {{{"type", "function"}, {"function", {{"name", "get_weather"}}}},
       {{"type", "tool"}, {"name", "get_weather"}}},
  };
  for (const auto& c : cases) {
    json req = base;
    req["tool_choice"] = c.openai_choice;
    Out a = o2a(req);
    EXPECT_EQ(a.wire["tool_choice"], c.anthropic_choice) << c.openai_choice;
    Out o = a2o(a.wire);
    EXPECT_EQ(o.wire["tool_choice"], c.openai_choice);
  }
  // parallel_tool_calls: false <-> disable_parallel_tool_use: true
  json req = base;
  req["tool_choice"] = "required";
  req["parallel_tool_calls"] = false;
  Out a = o2a(req);
  EXPECT_EQ(a.wire["tool_choice"],
            json::parse(R"({"type":"any","disable_parallel_tool_use":true})"));
  Out o = a2o(a.wire);
  EXPECT_EQ(o.wire["parallel_tool_calls"], false);
  EXPECT_EQ(o.wire["tool_choice"], "required");
  req.erase(
      "tool_choice");  // no choice given: Anthropic still needs a tool_choice to carry the flag
  a = o2a(req);
  EXPECT_EQ(a.wire["tool_choice"],
            json::parse(R"({"type":"auto","disable_parallel_tool_use":true})"));
  EXPECT_EQ(a2o(a.wire).wire["parallel_tool_calls"], false);
}

TEST(TranslationRules, EmptyTextIsDropped) {
  json req = openai_two_results();
  req["messages"][1]["content"] = "";  // assistant "" + tool calls
  req["messages"][0]["content"] =
      json::array({{{"type", "text"}, {"text", ""}}, {{"type", "text"}, {"text", "hi"}}});
  Out a = o2a(req);
  for (const auto& m : a.wire["messages"]) {
    if (!m["content"].is_array()) {
      EXPECT_NE(m["content"], "") << m;
      continue;
    }
    for (const auto& b : m["content"]) {
      if (b["type"] == "text") {
        EXPECT_NE(b["text"], "") << a.wire.dump(2);
      }
    }
  }
  EXPECT_EQ(a.wire["messages"][1]["content"].size(), 2u)
      << a.wire.dump(2);  // the two tool_use blocks only
}

TEST(TranslationRules, MaxTokensDefaultedWithWarningAndMappedWhenGiven) {
  Out a = o2a(openai_two_results());
  EXPECT_EQ(a.wire["max_tokens"], 4096);
  EXPECT_TRUE(has_warning(a.warnings, "defaulted_max_tokens")) << warnings_text(a.warnings);
  json req = openai_two_results();
  req["max_completion_tokens"] = 321;
  a = o2a(req);
  EXPECT_EQ(a.wire["max_tokens"], 321);
  EXPECT_FALSE(has_warning(a.warnings, "defaulted_max_tokens"));
  Out o = a2o(a.wire);
  EXPECT_EQ(o.wire["max_completion_tokens"], 321);
}

TEST(TranslationRules, UnknownFieldsKeptSameDialectDroppedWithWarningAcross) {
  json req = openai_two_results();
  req["x_custom"] = {{"a", json::array({1, 2})}};
  Warnings w;
  auto ir = openai().decode_request(req.dump(), w);
  ASSERT_TRUE(ir) << ir.error().to_string();
  auto same = openai().encode_request(*ir, w);
  ASSERT_TRUE(same);
  EXPECT_EQ(json::parse(*same)["x_custom"], req["x_custom"]);
  Out a = o2a(req);
  EXPECT_FALSE(a.wire.contains("x_custom"));
  EXPECT_TRUE(has_warning(a.warnings, "dropped_unknown_field", "$.x_custom"))
      << warnings_text(a.warnings);

  json areq = {{"model", "claude-sonnet-4-5"},
               {"max_tokens", 10},
               {"x_beta", true},
               {"messages", json::array({{{"role", "user"}, {"content", "hi"}}})}};
  Warnings w2;
  auto air = anthropic().decode_request(areq.dump(), w2);
  ASSERT_TRUE(air) << air.error().to_string();
  auto asame = anthropic().encode_request(*air, w2);
  ASSERT_TRUE(asame);
  EXPECT_EQ(json::parse(*asame)["x_beta"], true);
  Out o = a2o(areq);
  EXPECT_FALSE(o.wire.contains("x_beta"));
  EXPECT_TRUE(has_warning(o.warnings, "dropped_unknown_field", "$.x_beta"))
      << warnings_text(o.warnings);
}

TEST(TranslationRules, InvalidArgumentsArePreservedAndFlagged) {
  json req = openai_two_results();
  req["messages"][1]["tool_calls"][0]["function"]["arguments"] = "{\"city\": \"Par";
  Warnings w;
  auto ir = openai().decode_request(req.dump(), w);
  ASSERT_TRUE(ir) << ir.error().to_string();
  const auto& call = std::get<ir::ToolCallPart>(ir->messages[1].parts[0]);
  EXPECT_FALSE(call.arguments_valid);
  EXPECT_EQ(call.arguments, "{\"city\": \"Par");
  Out a = o2a(req);
  EXPECT_EQ(a.wire["messages"][1]["content"][0]["input"],
            json::parse(R"({"__toolwire_invalid_arguments":"{\"city\": \"Par"})"));
  EXPECT_FALSE(a.warnings.empty());
  Out o = a2o(a.wire);
  EXPECT_EQ(o.wire["messages"][1]["tool_calls"][0]["function"]["arguments"], "{\"city\": \"Par");
}

TEST(TranslationRules, CallIdsPassUnchangedOrMapReversiblyOnCallAndResultAlike) {
  json req = openai_two_results();
  req["messages"][1]["tool_calls"][0]["id"] = "call.1:x";
  req["messages"][2]["tool_call_id"] = "call.1:x";
  Out a = o2a(req);
  const json& msgs = a.wire["messages"];
  std::string mapped = msgs[1]["content"][0]["id"];
  EXPECT_EQ(mapped, "tw-call-2e1-3ax");
  EXPECT_EQ(msgs[2]["content"][0]["tool_use_id"], mapped);
  EXPECT_EQ(msgs[1]["content"][1]["id"], "call_t");  // valid ids untouched
  Out o = a2o(a.wire);
  EXPECT_EQ(o.wire["messages"][1]["tool_calls"][0]["id"], "call.1:x");
  EXPECT_EQ(o.wire["messages"][2]["tool_call_id"], "call.1:x");
}

TEST(TranslationRules, SystemAndDeveloperMessagesBecomeTopLevelSystem) {
  json req = {{"model", "gpt-4o"},
              {"messages", json::array({{{"role", "system"}, {"content", "Be brief."}},
                                        {{"role", "developer"}, {"content", "Use tools."}},
                                        {{"role", "user"}, {"content", "hi"}},
                                        {{"role", "system"}, {"content", "Late rule."}}})}};
  Out a = o2a(req);
  std::string system_text;
  if (a.wire["system"].is_string()) {
    system_text = a.wire["system"];
  } else {
    for (const auto& b : a.wire["system"]) system_text += b["text"].get<std::string>() + "|";
  }
  EXPECT_NE(system_text.find("Be brief."), std::string::npos) << a.wire.dump(2);
  EXPECT_NE(system_text.find("Use tools."), std::string::npos);
  EXPECT_NE(system_text.find("Late rule."), std::string::npos);
  EXPECT_TRUE(has_warning(a.warnings, "moved_system_message")) << warnings_text(a.warnings);
  for (const auto& m : a.wire["messages"]) EXPECT_NE(m["role"], "system");
  Out o = a2o({{"model", "c"},
               {"max_tokens", 5},
               {"system", "Be brief."},
               {"messages", json::array({{{"role", "user"}, {"content", "hi"}}})}});
  EXPECT_EQ(o.wire["messages"][0]["role"], "system");
  EXPECT_EQ(o.wire["messages"][0]["content"], "Be brief.");
}

TEST(TranslationRules, ImagesInUserMessagesMapBothWays) {
  json req = {
      {"model", "gpt-4o"},
      {"messages",
       json::array({{{"role", "user"},
                     {"content",
                      json::array({{{"type", "text"}, {"text", "What is this?"}},
                                   {{"type", "image_url"},
                                    {"image_url", {{"url", "data:image/png;base64,iVBORw0KGgo="}}}},
                                   {{"type", "image_url"},
                                    {"image_url", {{"url", "https://example.com/a.jpg"}}}}})}}})}};
  Out a = o2a(req);
  const json& blocks = a.wire["messages"][0]["content"];
  ASSERT_EQ(blocks.size(), 3u) << a.wire.dump(2);
  EXPECT_EQ(
      blocks[1],
      json::parse(
          R"({"type":"image","source":{"type":"base64","media_type":"image/png","data":"iVBORw0KGgo="}})"));
  EXPECT_EQ(
      blocks[2],
      json::parse(R"({"type":"image","source":{"type":"url","url":"https://example.com/a.jpg"}})"));
  Out o = a2o(a.wire);
  EXPECT_EQ(o.wire["messages"][0]["content"][1]["image_url"]["url"],
            "data:image/png;base64,iVBORw0KGgo=");
  EXPECT_EQ(o.wire["messages"][0]["content"][2]["image_url"]["url"], "https://example.com/a.jpg");
}

TEST(TranslationRules, ImagesInToolResultsMoveToAUserMessageForOpenAI) {
  json req = {
      {"model", "c"},
      {"max_tokens", 10},
      {"messages",
       json::array({{{"role", "user"}, {"content", "Screenshot please"}},
                    {{"role", "assistant"},
                     {"content", json::array({{{"type", "tool_use"},
                                               {"id", "toolu_s"},
                                               {"name", "shot"},
                                               {"input", json::object()}}})}},
                    {{"role", "user"},
                     {"content",
                      json::array({{{"type", "tool_result"},
                                    {"tool_use_id", "toolu_s"},
                                    {"content", json::array({{{"type", "text"}, {"text", "done"}},
                                                             {{"type", "image"},
                                                              {"source",
                                                               {{"type", "base64"},
                                                                {"media_type", "image/png"},
                                                                {"data", "AAAA"}}}}})}}})}}})}};
  Out o = a2o(req);
  const json& msgs = o.wire["messages"];
  ASSERT_EQ(msgs.size(), 4u) << o.wire.dump(2);
  EXPECT_EQ(msgs[2]["role"], "tool");
  EXPECT_EQ(msgs[3]["role"], "user");
  EXPECT_EQ(msgs[3]["content"][0]["text"], "Image returned by tool call toolu_s:");
  EXPECT_EQ(msgs[3]["content"][1]["image_url"]["url"], "data:image/png;base64,AAAA");
  EXPECT_TRUE(has_warning(o.warnings, "tool_result_image_moved")) << warnings_text(o.warnings);
}

TEST(TranslationRules, IsErrorUsesTheErrorPrefixConvention) {
  json req = {{"model", "c"},
              {"max_tokens", 10},
              {"messages", json::array({{{"role", "user"}, {"content", "x"}},
                                        {{"role", "assistant"},
                                         {"content", json::array({{{"type", "tool_use"},
                                                                   {"id", "toolu_e"},
                                                                   {"name", "f"},
                                                                   {"input", json::object()}}})}},
                                        {{"role", "user"},
                                         {"content", json::array({{{"type", "tool_result"},
                                                                   {"tool_use_id", "toolu_e"},
                                                                   {"content", "disk full"},
                                                                   {"is_error", true}}})}}})}};
  Out o = a2o(req);
  const json& content = o.wire["messages"][2]["content"];
  std::string text =
      content.is_string() ? content.get<std::string>() : content[0]["text"].get<std::string>();
  EXPECT_EQ(text, "Error: disk full");
  Out a = o2a(o.wire);
  EXPECT_EQ(a.wire["messages"][2]["content"][0]["is_error"], true);
  const json& back = a.wire["messages"][2]["content"][0]["content"];
  EXPECT_EQ(back.is_string() ? back.get<std::string>() : back[0]["text"].get<std::string>(),
            "disk full");
}

TEST(TranslationRules, FinishReasonsAndTextPlusToolCallTurns) {
  struct Case {
    const char* openai;
    const char* anthropic;
  };
  for (const Case& c : {Case{"stop", "end_turn"}, Case{"length", "max_tokens"},
                        Case{"content_filter", "refusal"}}) {
    json resp = {{"id", "chatcmpl-1"},
                 {"object", "chat.completion"},
                 {"created", 1},
                 {"model", "gpt-4o"},
                 {"choices", json::array({{{"index", 0},
                                           {"message", {{"role", "assistant"}, {"content", "hi"}}},
                                           {"finish_reason", c.openai}}})}};
    Warnings w;
    auto ir = openai().decode_response(resp.dump(), w);
    ASSERT_TRUE(ir) << ir.error().to_string();
    auto a = anthropic().encode_response(*ir, w);
    ASSERT_TRUE(a);
    EXPECT_EQ(json::parse(*a)["stop_reason"], c.anthropic);
    auto ir2 = anthropic().decode_response(*a, w);
    ASSERT_TRUE(ir2);
    EXPECT_EQ(json::parse(*openai().encode_response(*ir2, w))["choices"][0]["finish_reason"],
              c.openai);
  }
  // Text and a tool call finish as a tool-call turn even when the raw reason says "stop".
  json resp = {
      {"id", "chatcmpl-2"},
      {"object", "chat.completion"},
      {"created", 1},
      {"model", "gpt-4o"},
      {"choices", json::array({{{"index", 0},
                                {"message",
                                 {{"role", "assistant"},
                                  {"content", "Let me check."},
                                  {"tool_calls", json::array({oa_call("call_1", "f", "{}")})}}},
                                {"finish_reason", "stop"}}})}};
  Warnings w;
  auto ir = openai().decode_response(resp.dump(), w);
  ASSERT_TRUE(ir);
  EXPECT_EQ(ir->finish.kind, ir::FinishReason::Kind::tool_calls);
  json a = json::parse(*anthropic().encode_response(*ir, w));
  EXPECT_EQ(a["stop_reason"], "tool_use");
  ASSERT_EQ(a["content"].size(), 2u);
  EXPECT_EQ(a["content"][0]["type"], "text");
  EXPECT_EQ(a["content"][1]["type"], "tool_use");
}

TEST(TranslationRules, UsageCountsCacheAsInputOnOpenAIAndApartOnAnthropic) {
  json resp = {{"id", "msg_1"},
               {"type", "message"},
               {"role", "assistant"},
               {"model", "claude"},
               {"content", json::array({{{"type", "text"}, {"text", "hi"}}})},
               {"stop_reason", "end_turn"},
               {"usage",
                {{"input_tokens", 100},
                 {"output_tokens", 7},
                 {"cache_read_input_tokens", 30},
                 {"cache_creation_input_tokens", 5}}}};
  Warnings w;
  auto ir = anthropic().decode_response(resp.dump(), w);
  ASSERT_TRUE(ir) << ir.error().to_string();
  json o = json::parse(*openai().encode_response(*ir, w));
  EXPECT_EQ(o["usage"]["prompt_tokens"], 135);
  EXPECT_EQ(o["usage"]["completion_tokens"], 7);
  EXPECT_EQ(o["usage"]["total_tokens"], 142);
  EXPECT_EQ(o["usage"]["prompt_tokens_details"]["cached_tokens"], 30);
  auto ir2 = openai().decode_response(o.dump(), w);
  ASSERT_TRUE(ir2);
  json a = json::parse(*anthropic().encode_response(*ir2, w));
  EXPECT_EQ(a["usage"]["input_tokens"], 105);  // OpenAI cannot tell cache writes apart
  EXPECT_EQ(a["usage"]["cache_read_input_tokens"], 30);
  EXPECT_EQ(a["usage"]["output_tokens"], 7);
}

TEST(TranslationRules, ThinkingKeepsSignaturesAndReasoningContentDecodes) {
  json req = {
      {"model", "c"},
      {"max_tokens", 10},
      {"messages",
       json::array({{{"role", "user"}, {"content", "x"}},
                    {{"role", "assistant"},
                     {"content", json::array({{{"type", "thinking"},
                                               {"thinking", "Let me think."},
                                               {"signature", "EqQBCgIYAhIM1gbcDa9GJwZA2b3h"}},
                                              {{"type", "redacted_thinking"},
                                               {"data", "EmwKAhgBEgy3va3pzix/LafPsn4a"}},
                                              {{"type", "text"}, {"text", "Answer."}}})}},
                    {{"role", "user"}, {"content", "more"}}})}};
  Warnings w;
  auto ir = anthropic().decode_request(req.dump(), w);
  ASSERT_TRUE(ir) << ir.error().to_string();
  json same = json::parse(*anthropic().encode_request(*ir, w));
  EXPECT_EQ(same["messages"][1]["content"],
            req["messages"][1]["content"]);  // signatures kept across turns
  Out o = a2o(req);
  EXPECT_EQ(o.wire["messages"][1]["reasoning_content"], "Let me think.");
  EXPECT_FALSE(o.warnings.empty());  // the signature cannot be expressed
  // reasoning_content of OpenAI-compatible servers decodes as thinking...
  json oreq = {
      {"model", "deepseek"},
      {"messages",
       json::array({{{"role", "user"}, {"content", "x"}},
                    {{"role", "assistant"}, {"content", "A."}, {"reasoning_content", "Hmm."}},
                    {{"role", "user"}, {"content", "y"}}})}};
  Warnings ow;
  auto oir = openai().decode_request(oreq.dump(), ow);
  ASSERT_TRUE(oir) << oir.error().to_string();
  ASSERT_EQ(oir->messages[1].parts.size(), 2u) << print(*oir);
  EXPECT_EQ(std::get<ir::ThinkingPart>(oir->messages[1].parts[0]).text, "Hmm.");
  // ...which Anthropic would reject unsigned in a request: dropped, with a warning.
  Out a = o2a(oreq);
  EXPECT_TRUE(has_warning(a.warnings, "dropped_unsigned_thinking")) << warnings_text(a.warnings);
  // A lone text block may be written in Anthropic's string shorthand: both forms mean the same.
  json content = a.wire["messages"][1]["content"];
  if (content.is_string()) content = json::array({{{"type", "text"}, {"text", content}}});
  EXPECT_EQ(content, json::parse(R"([{"type":"text","text":"A."}])"));
  // In a response it becomes a thinking block.
  json oresp = {
      {"id", "chatcmpl-r"},
      {"object", "chat.completion"},
      {"created", 1},
      {"model", "deepseek"},
      {"choices",
       json::array(
           {{{"index", 0},
             {"message", {{"role", "assistant"}, {"content", "A."}, {"reasoning_content", "Hmm."}}},
             {"finish_reason", "stop"}}})}};
  auto rir = openai().decode_response(oresp.dump(), ow);
  ASSERT_TRUE(rir) << rir.error().to_string();
  json ar = json::parse(*anthropic().encode_response(*rir, ow));
  ASSERT_EQ(ar["content"].size(), 2u) << ar.dump(2);
  EXPECT_EQ(ar["content"][0]["type"], "thinking");
  EXPECT_EQ(ar["content"][0]["thinking"], "Hmm.");
}

TEST(TranslationRules, UnknownPartsDroppedWithWarningAcross) {
  json req = {{"model", "c"},
              {"max_tokens", 10},
              {"messages",
               json::array({{{"role", "user"}, {"content", "x"}},
                            {{"role", "assistant"},
                             {"content", json::array({{{"type", "tool_use"},
                                                       {"id", "toolu_01A09q90qw90lq917835lq9"},
                                                       {"name", "get_weather"},
                                                       {"input", json::object()}}})}},
                            json::parse(read_fixture(
                                "anthropic-messages-tool-result-content-blocks.message.json"))})}};
  Warnings w;
  auto ir = anthropic().decode_request(req.dump(), w);
  ASSERT_TRUE(ir) << ir.error().to_string();
  json same = json::parse(*anthropic().encode_request(*ir, w));
  EXPECT_EQ(same["messages"][2]["content"][0]["content"][1]["type"],
            "document");  // kept same-dialect
  Out o = a2o(req);
  EXPECT_TRUE(has_warning(o.warnings, "dropped_unknown_part")) << warnings_text(o.warnings);
  const json& content = o.wire["messages"][2]["content"];
  std::string text =
      content.is_string() ? content.get<std::string>() : content[0]["text"].get<std::string>();
  EXPECT_EQ(text, "The weather is");
}

}  // namespace
}  // namespace toolwire::testing
