// The spelling rows of docs/translation.md's table, one test per row, run for
// every dialect of the dialect list (table_kit.h). An IR built here is
// encoded into the dialect, the concept is found at its documented JSON
// location, and decoding gives the concept back. A dialect this file does not
// know fails every row, so a new dialect cannot join the list without joining
// the table.
#include "table_kit.h"

namespace toolwire::testing {
namespace {

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

TEST_P(TableTest, StructuredOutputSpelling) {
  ir::Request r = ask();
  const std::string schema =
      R"({"type":"object","properties":{"a":{"type":"string"}},"additionalProperties":false})";
  r.response_format =
      ir::ResponseFormat{ir::ResponseFormatKind::json_schema, "answer", "", schema, true};
  Warnings w;
  json wire = encode(r, w);
  const json s = json::parse(schema);
  expect_spelling(
      wire,
      {
          {"openai_chat",
           {{"/response_format/type", "json_schema"},
            {"/response_format/json_schema/name", "answer"},
            {"/response_format/json_schema/schema", s},
            {"/response_format/json_schema/strict", true}}},
          {"anthropic_messages",
           {{"/output_config/format/type", "json_schema"}, {"/output_config/format/schema", s}}},
          {"openai_responses",
           {{"/text/format/type", "json_schema"},
            {"/text/format/name", "answer"},
            {"/text/format/schema", s},
            {"/text/format/strict", true}}},
          // additionalProperties is outside Gemini's subset: JSON Schema.
          {"gemini",
           {{"/generationConfig/responseMimeType", "application/json"},
            {"/generationConfig/responseJsonSchema", s}}},
          {"bedrock_converse",
           {{"/outputConfig/textFormat/type", "json_schema"},
            {"/outputConfig/textFormat/structure/jsonSchema/schema", schema},  // JSON text
            {"/outputConfig/textFormat/structure/jsonSchema/name", "answer"}}},
      });
  auto back = decode_request(wire).response_format;
  ASSERT_TRUE(back);
  EXPECT_EQ(back->kind, ir::ResponseFormatKind::json_schema);
  EXPECT_EQ(json::parse(back->schema), s);
}

TEST_P(TableTest, JsonModeSpelling) {
  ir::Request r = ask();
  r.tools.clear();  // beside tools the choice is "required" (a loss row)
  r.response_format = ir::ResponseFormat{ir::ResponseFormatKind::json_object, "", "", "", {}};
  Warnings w;
  json wire = encode(r, w);
  expect_spelling(wire,
                  {
                      {"openai_chat", {{"/response_format/type", "json_object"}}},
                      {"anthropic_messages",  // a loss row: the forced tool
                       {{"/tool_choice/name", "toolwire_json_output"}, none_at("/output_config")}},
                      {"openai_responses", {{"/text/format/type", "json_object"}}},
                      {"gemini", {{"/generationConfig/responseMimeType", "application/json"}}},
                      {"bedrock_converse",
                       {{"/toolConfig/toolChoice/tool/name", "toolwire_json_output"},
                        none_at("/outputConfig")}},
                  });
  if (in({"anthropic_messages", "bedrock_converse"})) return;
  auto back = decode_request(wire).response_format;
  ASSERT_TRUE(back);
  EXPECT_EQ(back->kind, ir::ResponseFormatKind::json_object);
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
  std::string url = dialects::url_for("https://h", dialect().path, "m-1");
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
  dialects::WireError wire_error = codec().encode_error(e);
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

std::string dialect_label(const ::testing::TestParamInfo<const dialects::Dialect*>& info) {
  return std::string(info.param->alias.empty() ? info.param->name : info.param->alias);
}

INSTANTIATE_TEST_SUITE_P(AllDialects, TableTest, ::testing::ValuesIn(dialects_with_codecs()),
                         dialect_label);

}  // namespace
}  // namespace toolwire::testing
