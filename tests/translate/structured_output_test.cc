// Structured output across dialects: response_format (Chat), text.format
// (Responses), output_config.format (Anthropic), responseMimeType +
// responseSchema/responseJsonSchema (Gemini), outputConfig.textFormat
// (Bedrock), and JSON mode as a forced tool where the target has none, its
// call unwrapped into text on the way back (whole answers and streams).
#include <gtest/gtest.h>

#include <nlohmann/json.hpp>

#include "checked_translate.h"
#include "codec_kit.h"
#include "toolwire/dialects/codec.h"
#include "toolwire/ir/accumulator.h"

namespace toolwire::testing {
namespace {

using nlohmann::json;

const dialects::Codec& codec(std::string_view name) { return *dialects::find_codec(name); }

const json kSchema = json::parse(
    R"({"type":"object","properties":{"city":{"type":"string"},"temp":{"type":"number"}},"required":["city","temp"],"additionalProperties":false})");

std::string chat_request(const json& response_format) {
  json body = {{"model", "m"},
               {"messages", {{{"role", "user"}, {"content", "weather?"}}}},
               {"response_format", response_format}};
  return body.dump();
}
json chat_schema_format() {
  return {{"type", "json_schema"},
          {"json_schema",
           {{"name", "weather"},
            {"description", "the weather"},
            {"schema", kSchema},
            {"strict", true}}}};
}

json translate(std::string_view from, std::string_view to, const std::string& body,
               Warnings& warnings) {
  return checked_translate(from, to, body, warnings);
}

TEST(StructuredOutput, ChatSchemaToAnthropicOutputConfig) {
  Warnings w;
  json out = translate("openai_chat", "anthropic_messages", chat_request(chat_schema_format()), w);
  EXPECT_EQ(out["output_config"]["format"]["type"], "json_schema");
  EXPECT_EQ(out["output_config"]["format"]["schema"], kSchema);
  EXPECT_FALSE(out.contains("tools"));
  // strict: true holds on a target that always constrains; the description goes.
  EXPECT_FALSE(has_warning(w, "response_format_strict_ignored")) << warnings_text(w);
  EXPECT_TRUE(has_warning(w, "dropped_response_format_description", "$.output_config.format"))
      << warnings_text(w);
  EXPECT_FALSE(has_warning(w, "dropped_unknown_field")) << warnings_text(w);
}

TEST(StructuredOutput, StrictFalseOnATargetWithoutStrictWarns) {
  json f = chat_schema_format();
  f["json_schema"]["strict"] = false;
  f["json_schema"].erase("description");
  Warnings w;
  translate("openai_chat", "anthropic_messages", chat_request(f), w);
  EXPECT_TRUE(has_warning(w, "response_format_strict_ignored", "$.output_config.format"))
      << warnings_text(w);
}

TEST(StructuredOutput, AnthropicOutputConfigToChatResponseFormat) {
  json body = {{"model", "m"},
               {"max_tokens", 100},
               {"messages", {{{"role", "user"}, {"content", "hi"}}}},
               {"output_config",
                {{"effort", "low"}, {"format", {{"type", "json_schema"}, {"schema", kSchema}}}}}};
  Warnings w;
  json out = translate("anthropic_messages", "openai_chat", body.dump(), w);
  EXPECT_EQ(out["response_format"]["type"], "json_schema");
  EXPECT_EQ(out["response_format"]["json_schema"]["name"], "response");  // Chat needs one
  EXPECT_EQ(out["response_format"]["json_schema"]["schema"], kSchema);
  EXPECT_FALSE(out["response_format"]["json_schema"].contains("strict"));
  // The effort beside the format is reasoning, which Chat spells its own way.
  EXPECT_EQ(out["reasoning_effort"], "low");
  EXPECT_FALSE(has_warning(w, "dropped_unknown_field")) << warnings_text(w);
}

TEST(StructuredOutput, AnthropicBetaOutputFormatIsReadToo) {
  json body = {{"model", "m"},
               {"max_tokens", 100},
               {"messages", {{{"role", "user"}, {"content", "hi"}}}},
               {"output_format", {{"type", "json_schema"}, {"schema", kSchema}}}};
  Warnings w;
  json out = translate("anthropic_messages", "openai_responses", body.dump(), w);
  EXPECT_EQ(out["text"]["format"]["type"], "json_schema");
  EXPECT_EQ(out["text"]["format"]["name"], "response");
  EXPECT_EQ(out["text"]["format"]["schema"], kSchema);
  EXPECT_TRUE(w.empty()) << warnings_text(w);
}

TEST(StructuredOutput, ResponsesTextFormatToAnthropic) {
  json body = {
      {"model", "m"},
      {"input", "hi"},
      {"text",
       {{"format",
         {{"type", "json_schema"}, {"name", "weather"}, {"schema", kSchema}, {"strict", true}}},
        {"verbosity", "low"}}}};
  Warnings w;
  json out = translate("openai_responses", "anthropic_messages", body.dump(), w);
  EXPECT_EQ(out["output_config"]["format"]["schema"], kSchema);
  // Anthropic has no verbosity: named where it was.
  EXPECT_TRUE(has_warning(w, "dropped_verbosity", "$.text.verbosity")) << warnings_text(w);
}

TEST(StructuredOutput, ChatToGeminiSchemaInsideTheSubsetIsResponseSchema) {
  Warnings w;
  json f = chat_schema_format();
  f["json_schema"].erase("description");
  json schema = kSchema;
  schema.erase("additionalProperties");  // outside Gemini's OpenAPI subset
  f["json_schema"]["schema"] = schema;
  json out = translate("openai_chat", "gemini", chat_request(f), w);
  const json& gc = out["generationConfig"];
  EXPECT_EQ(gc["responseMimeType"], "application/json");
  EXPECT_EQ(gc["responseSchema"], schema);
  EXPECT_FALSE(gc.contains("responseJsonSchema"));
  EXPECT_TRUE(w.empty()) << warnings_text(w);
}

TEST(StructuredOutput, ChatToGeminiSchemaOutsideTheSubsetIsResponseJsonSchema) {
  Warnings w;
  json out = translate("openai_chat", "gemini", chat_request(chat_schema_format()), w);
  const json& gc = out["generationConfig"];
  EXPECT_EQ(gc["responseMimeType"], "application/json");
  EXPECT_EQ(gc["responseJsonSchema"], kSchema);  // additionalProperties kept
  EXPECT_FALSE(gc.contains("responseSchema"));
}

TEST(StructuredOutput, JsonModeToGeminiIsTheMimeTypeAlone) {
  Warnings w;
  json out = translate("openai_chat", "gemini", chat_request({{"type", "json_object"}}), w);
  EXPECT_EQ(out["generationConfig"], json({{"responseMimeType", "application/json"}}));
  EXPECT_TRUE(w.empty()) << warnings_text(w);
}

TEST(StructuredOutput, AnthropicToGemini) {
  json body = {{"model", "m"},
               {"max_tokens", 100},
               {"messages", {{{"role", "user"}, {"content", "hi"}}}},
               {"output_config", {{"format", {{"type", "json_schema"}, {"schema", kSchema}}}}}};
  Warnings w;
  json out = translate("anthropic_messages", "gemini", body.dump(), w);
  EXPECT_EQ(out["generationConfig"]["responseMimeType"], "application/json");
  EXPECT_EQ(out["generationConfig"]["responseJsonSchema"], kSchema);
}

TEST(StructuredOutput, GeminiResponseSchemaToChat) {
  json body = {{"contents", {{{"role", "user"}, {"parts", {{{"text", "hi"}}}}}}},
               {"generationConfig",
                {{"temperature", 0.5},
                 {"responseMimeType", "application/json"},
                 {"responseSchema",
                  {{"type", "OBJECT"}, {"properties", {{"city", {{"type", "STRING"}}}}}}}}}};
  Warnings w;
  json out = translate("gemini", "openai_chat", body.dump(), w);
  EXPECT_EQ(out["response_format"]["json_schema"]["schema"],
            json::parse(R"({"type":"object","properties":{"city":{"type":"string"}}})"));
  EXPECT_TRUE(w.empty()) << warnings_text(w);
}

TEST(StructuredOutput, GeminiEnumMimeTypeStaysGemini) {
  json body = {{"contents", {{{"role", "user"}, {"parts", {{{"text", "hi"}}}}}}},
               {"generationConfig",
                {{"responseMimeType", "text/x.enum"},
                 {"responseSchema", {{"type", "STRING"}, {"enum", {"a", "b"}}}}}}};
  Warnings w;
  json same = translate("gemini", "gemini", body.dump(), w);
  EXPECT_EQ(same["generationConfig"], body["generationConfig"]);
  Warnings w2;
  json out = translate("gemini", "openai_chat", body.dump(), w2);
  EXPECT_FALSE(out.contains("response_format"));
  EXPECT_TRUE(has_warning(w2, "dropped_unknown_field", "$.generationConfig.responseMimeType"))
      << warnings_text(w2);
}

TEST(StructuredOutput, ChatToBedrockSchemaIsNativeWithTheSchemaAsAString) {
  Warnings w;
  json out = translate("openai_chat", "bedrock_converse", chat_request(chat_schema_format()), w);
  const json& tf = out["outputConfig"]["textFormat"];
  EXPECT_EQ(tf["type"], "json_schema");
  const json& def = tf["structure"]["jsonSchema"];
  EXPECT_EQ(json::parse(def["schema"].get<std::string>()), kSchema);
  EXPECT_EQ(def["name"], "weather");
  EXPECT_EQ(def["description"], "the weather");
  EXPECT_FALSE(out.contains("toolConfig"));
  EXPECT_TRUE(w.empty()) << warnings_text(w);
}

TEST(StructuredOutput, BedrockOutputConfigToChat) {
  json body = {
      {"messages", {{{"role", "user"}, {"content", {{{"text", "hi"}}}}}}},
      {"outputConfig",
       {{"textFormat",
         {{"type", "json_schema"},
          {"structure", {{"jsonSchema", {{"schema", kSchema.dump(2)}, {"name", "weather"}}}}}}}}}};
  Warnings w;
  json out = translate("bedrock_converse", "openai_chat", body.dump(), w);
  EXPECT_EQ(out["response_format"]["json_schema"]["name"], "weather");
  EXPECT_EQ(out["response_format"]["json_schema"]["schema"], kSchema);
  // A schema string that is not a JSON object is refused with its path.
  body["outputConfig"]["textFormat"]["structure"]["jsonSchema"]["schema"] = "[1]";
  Error e = decode_request_error(codec("bedrock_converse"), body.dump());
  EXPECT_EQ(e.path, "$.outputConfig.textFormat.structure.jsonSchema.schema");
}

// Where each dialect keeps the format.
std::string_view where(std::string_view dialect) {
  if (dialect == "openai_chat") return "/response_format";
  if (dialect == "openai_responses") return "/text";
  if (dialect == "anthropic_messages") return "/output_config";
  if (dialect == "gemini") return "/generationConfig";
  return "/outputConfig";
}

// Every dialect gives back its own spelling unchanged, and a second pass is a
// fixed point.
TEST(StructuredOutput, SameDialectRoundTripsAreStable) {
  const std::pair<std::string_view, json> cases[] = {
      {"openai_chat", json::parse(chat_request(chat_schema_format()))},
      {"openai_chat", json::parse(chat_request({{"type", "json_object"}}))},
      {"openai_responses",
       {{"model", "m"},
        {"input", "hi"},
        {"text",
         {{"format",
           {{"type", "json_schema"}, {"name", "w"}, {"schema", kSchema}, {"strict", true}}},
          {"verbosity", "low"}}}}},
      {"anthropic_messages",
       {{"model", "m"},
        {"max_tokens", 10},
        {"messages", {{{"role", "user"}, {"content", "hi"}}}},
        {"output_config",
         {{"format", {{"type", "json_schema"}, {"schema", kSchema}}}, {"effort", "low"}}}}},
      {"gemini",
       {{"contents", {{{"role", "user"}, {"parts", {{{"text", "hi"}}}}}}},
        {"generationConfig",
         {{"responseMimeType", "application/json"}, {"responseJsonSchema", kSchema}}}}},
      {"bedrock_converse",
       {{"messages", {{{"role", "user"}, {"content", {{{"text", "hi"}}}}}}},
        {"outputConfig",
         {{"textFormat",
           {{"type", "json_schema"},
            {"structure", {{"jsonSchema", {{"schema", kSchema.dump()}, {"name", "w"}}}}}}}}}}},
  };
  for (const auto& [name, body] : cases) {
    SCOPED_TRACE(std::string(name));
    Warnings w;
    json once = translate(name, name, body.dump(), w);
    EXPECT_TRUE(w.empty()) << warnings_text(w);
    // The same members (key order aside: nlohmann sorts).
    const json::json_pointer at(std::string(where(name)));
    ASSERT_TRUE(once.contains(at)) << once.dump(2);
    EXPECT_EQ(once.at(at), body.at(at));
    Warnings w2;
    json twice = translate(name, name, once.dump(), w2);
    EXPECT_EQ(twice, once);
  }
}

TEST(StructuredOutput, SchemaThatIsNotAnObjectIsRefusedWithItsPath) {
  json f = chat_schema_format();
  f["json_schema"]["schema"] = "not a schema";
  Error e = decode_request_error(codec("openai_chat"), chat_request(f));
  EXPECT_EQ(e.code, ErrorCode::invalid_argument);
  EXPECT_EQ(e.path, "$.response_format.json_schema.schema");
  // An encoder given a hand-built IR checks the text too.
  ir::Request req;
  req.model = "m";
  req.messages.push_back({ir::Role::user, {ir::TextPart{"hi"}}, {}});
  req.response_format =
      ir::ResponseFormat{ir::ResponseFormatKind::json_schema, "n", "", "{oops", {}};
  for (const char* to :
       {"openai_chat", "openai_responses", "anthropic_messages", "gemini", "bedrock_converse"}) {
    SCOPED_TRACE(to);
    Warnings w;
    auto out = codec(to).encode_request(req, w, {});
    ASSERT_FALSE(out);
    EXPECT_EQ(out.error().code, ErrorCode::invalid_argument);
  }
}

// ---- JSON mode where the target has none: the forced tool ----

TEST(StructuredOutput, JsonModeToAnthropicForcesTheAnswerTool) {
  Warnings w;
  json out =
      translate("openai_chat", "anthropic_messages", chat_request({{"type", "json_object"}}), w);
  ASSERT_EQ(out["tools"].size(), 1u);
  EXPECT_EQ(out["tools"][0]["name"], "toolwire_json_output");
  EXPECT_EQ(out["tools"][0]["input_schema"], json({{"type", "object"}}));
  EXPECT_EQ(out["tool_choice"], json({{"type", "tool"}, {"name", "toolwire_json_output"}}));
  EXPECT_FALSE(out.contains("output_config"));
  EXPECT_FALSE(has_warning(w, "response_format_beside_tools")) << warnings_text(w);
}

TEST(StructuredOutput, JsonModeBesideTheCallersToolsMakesAToolRequired) {
  json body = json::parse(chat_request({{"type", "json_object"}}));
  body["tools"] = {{{"type", "function"},
                    {"function", {{"name", "lookup"}, {"parameters", {{"type", "object"}}}}}}};
  Warnings w;
  json out = translate("openai_chat", "bedrock_converse", body.dump(), w);
  const json& tc = out["toolConfig"];
  ASSERT_EQ(tc["tools"].size(), 2u);
  EXPECT_EQ(tc["tools"][1]["toolSpec"]["name"], "toolwire_json_output");
  EXPECT_EQ(tc["toolChoice"], json({{"any", json::object()}}));
  EXPECT_TRUE(has_warning(w, "response_format_beside_tools")) << warnings_text(w);
  // tool_choice none: the caller's tools may not be called, the answer tool is forced.
  body["tool_choice"] = "none";
  Warnings w2;
  out = translate("openai_chat", "anthropic_messages", body.dump(), w2);
  EXPECT_EQ(out["tool_choice"], json({{"type", "tool"}, {"name", "toolwire_json_output"}}));
  // A caller's tool with the reserved name is refused.
  body["tools"][0]["function"]["name"] = "toolwire_json_output";
  Warnings w3;
  auto refused = dialects::translate_request(codec("openai_chat"), codec("anthropic_messages"),
                                             body.dump(), w3);
  ASSERT_FALSE(refused);
  EXPECT_EQ(refused.error().code, ErrorCode::invalid_argument);
}

// A schema constrained decoding does not take (an open object, a numeric
// bound: common in schemas written for OpenAI without strict) goes to
// Anthropic and Bedrock as the forced tool's input schema.
TEST(StructuredOutput, SchemaOutsideConstrainedDecodingGoesAsAForcedTool) {
  const json open_schema = json::parse(
      R"({"type":"object","properties":{"n":{"type":"integer","minimum":1}},"required":["n"]})");
  json f = {
      {"type", "json_schema"},
      {"json_schema", {{"name", "count"}, {"description", "how many"}, {"schema", open_schema}}}};
  Warnings w;
  json out = translate("openai_chat", "anthropic_messages", chat_request(f), w);
  EXPECT_FALSE(out.contains("output_config")) << out.dump(2);
  ASSERT_EQ(out["tools"].size(), 1u);
  EXPECT_EQ(out["tools"][0]["name"], "toolwire_json_output");
  EXPECT_EQ(out["tools"][0]["description"], "how many");
  EXPECT_EQ(out["tools"][0]["input_schema"], open_schema);
  EXPECT_EQ(out["tool_choice"]["name"], "toolwire_json_output");
  EXPECT_TRUE(has_warning(w, "response_format_as_tool", "$.response_format")) << warnings_text(w);
  Warnings w2;
  out = translate("openai_chat", "bedrock_converse", chat_request(f), w2);
  EXPECT_FALSE(out.contains("outputConfig"));
  EXPECT_EQ(out["toolConfig"]["tools"][0]["toolSpec"]["inputSchema"]["json"], open_schema);
  EXPECT_TRUE(has_warning(w2, "response_format_as_tool")) << warnings_text(w2);
  // Closed, without bounds: native.
  json closed = open_schema;
  closed["properties"]["n"].erase("minimum");
  closed["additionalProperties"] = false;
  f["json_schema"]["schema"] = closed;
  Warnings w3;
  out = translate("openai_chat", "anthropic_messages", chat_request(f), w3);
  EXPECT_EQ(out["output_config"]["format"]["schema"], closed);
  EXPECT_FALSE(out.contains("tools"));
  // Nested objects count too.
  json nested = closed;
  nested["properties"]["inner"] = {{"type", "object"},
                                   {"properties", {{"x", {{"type", "string"}}}}}};
  f["json_schema"]["schema"] = nested;
  Warnings w4;
  out = translate("openai_chat", "anthropic_messages", chat_request(f), w4);
  EXPECT_FALSE(out.contains("output_config"));
  // The target's own callers' schema is theirs: passed as it is.
  json body = {{"model", "m"},
               {"max_tokens", 5},
               {"messages", {{{"role", "user"}, {"content", "hi"}}}},
               {"output_config", {{"format", {{"type", "json_schema"}, {"schema", open_schema}}}}}};
  Warnings w5;
  out = translate("anthropic_messages", "anthropic_messages", body.dump(), w5);
  EXPECT_EQ(out["output_config"]["format"]["schema"], open_schema);
}

TEST(StructuredOutput, ForcedToolAnswerComesBackAsTextWhole) {
  const std::string bedrock_answer = R"({
    "output":{"message":{"role":"assistant","content":[
      {"toolUse":{"toolUseId":"t1","name":"toolwire_json_output","input":{"city":"Oslo","temp":3}}}]}},
    "stopReason":"tool_use","usage":{"inputTokens":5,"outputTokens":7,"totalTokens":12}})";
  Warnings w;
  auto r = codec("bedrock_converse").decode_response(bedrock_answer, w);
  ASSERT_TRUE(r) << r.error().to_string();
  ASSERT_EQ(r->parts.size(), 1u);
  auto* text = std::get_if<ir::TextPart>(&r->parts[0]);
  ASSERT_NE(text, nullptr);
  EXPECT_EQ(json::parse(text->text), json::parse(R"({"city":"Oslo","temp":3})"));
  EXPECT_EQ(r->finish.kind, ir::FinishReason::Kind::stop);
  auto chat = codec("openai_chat").encode_response(*r, w);
  ASSERT_TRUE(chat);
  json c = json::parse(*chat);
  EXPECT_EQ(c["choices"][0]["finish_reason"], "stop");
  EXPECT_FALSE(c["choices"][0]["message"].contains("tool_calls"));
  EXPECT_EQ(json::parse(c["choices"][0]["message"]["content"].get<std::string>())["city"], "Oslo");

  const std::string anthropic_answer = R"({"id":"msg_1","type":"message","role":"assistant",
    "model":"m","content":[{"type":"tool_use","id":"toolu_1","name":"toolwire_json_output",
    "input":{"a":1}}],"stop_reason":"tool_use","usage":{"input_tokens":1,"output_tokens":2}})";
  auto a = codec("anthropic_messages").decode_response(anthropic_answer, w);
  ASSERT_TRUE(a) << a.error().to_string();
  ASSERT_EQ(a->parts.size(), 1u);
  EXPECT_EQ(std::get<ir::TextPart>(a->parts[0]).text, R"({"a":1})");
  EXPECT_EQ(a->finish.kind, ir::FinishReason::Kind::stop);
}

// The stream as the target writes it (its own encoder builds the bytes), read
// back through its decoder: text deltas and stop, never the tool.
std::vector<ir::StreamEvent> forced_stream(std::string_view dialect, bool with_other_call) {
  std::vector<ir::StreamEvent> events = {ir::MessageStart{"id1", "m", 0}};
  int index = 0;
  if (with_other_call) {
    events.push_back(ir::ToolCallStart{0, "c0", "lookup", ""});
    events.push_back(ir::ToolCallDelta{0, "{}"});
    events.push_back(ir::ToolCallEnd{0});
    index = 1;
  }
  events.push_back(ir::ToolCallStart{index, "c1", "toolwire_json_output", ""});
  events.push_back(ir::ToolCallDelta{index, R"({"city":)"});
  events.push_back(ir::ToolCallDelta{index, R"("Oslo"})"});
  events.push_back(ir::ToolCallEnd{index});
  events.push_back(usage(5, 7));
  events.push_back(ir::Finish{{ir::FinishReason::Kind::tool_calls, ""}});
  const std::string bytes = encode_stream(codec(dialect), events);
  return decode_stream_events(codec(dialect), bytes);
}

TEST(StructuredOutput, ForcedToolAnswerComesBackAsTextStreamed) {
  for (const char* dialect : {"bedrock_converse", "anthropic_messages"}) {
    SCOPED_TRACE(dialect);
    const auto events = forced_stream(dialect, false);
    std::string text;
    for (const auto& e : events) {
      EXPECT_FALSE(std::holds_alternative<ir::ToolCallStart>(e)) << describe(events);
      EXPECT_FALSE(std::holds_alternative<ir::ToolCallDelta>(e)) << describe(events);
      if (auto* t = std::get_if<ir::TextDelta>(&e)) text += t->text;
    }
    EXPECT_EQ(text, R"({"city":"Oslo"})");
    ASSERT_TRUE(std::holds_alternative<ir::Finish>(events.back())) << describe(events);
    EXPECT_EQ(std::get<ir::Finish>(events.back()).reason.kind, ir::FinishReason::Kind::stop);
    // And as the Chat client sees it.
    const std::string chat = encode_stream(codec("openai_chat"), events);
    EXPECT_EQ(chat.find("tool_calls"), std::string::npos) << chat;
    EXPECT_NE(chat.find(R"("finish_reason":"stop")"), std::string::npos) << chat;
  }
}

TEST(StructuredOutput, ForcedToolBesideARealCallKeepsTheCallRenumbered) {
  const auto events = forced_stream("bedrock_converse", true);
  int starts = 0;
  std::string text;
  for (const auto& e : events) {
    if (auto* s = std::get_if<ir::ToolCallStart>(&e)) {
      ++starts;
      EXPECT_EQ(s->index, 0);
      EXPECT_EQ(s->name, "lookup");
    }
    if (auto* t = std::get_if<ir::TextDelta>(&e)) text += t->text;
  }
  EXPECT_EQ(starts, 1) << describe(events);
  EXPECT_EQ(text, R"({"city":"Oslo"})");
  EXPECT_EQ(std::get<ir::Finish>(events.back()).reason.kind, ir::FinishReason::Kind::tool_calls);
}

}  // namespace
}  // namespace toolwire::testing
