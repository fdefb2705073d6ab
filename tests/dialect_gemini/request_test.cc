// Gemini generateContent requests: the official examples (golden), every
// field both ways, the lossy mappings' warnings, and bad input with paths.
#include <gtest/gtest.h>

#include "test_util.h"

namespace toolwire::dialects::gemini_test {
namespace {

using nlohmann::json;
using Kind = ir::ToolChoiceKind;

const ir::ToolCallPart& call_at(const ir::Request& r, size_t m, size_t p) {
  return std::get<ir::ToolCallPart>(r.messages.at(m).parts.at(p));
}
const ir::ToolResultPart& result_at(const ir::Request& r, size_t m, size_t p) {
  return std::get<ir::ToolResultPart>(r.messages.at(m).parts.at(p));
}
std::string text_of(const ir::ResultContent& c) { return std::get<ir::TextPart>(c).text; }

// ---- the official examples (tests/data/wire/gemini-*) ----

TEST(GeminiRequestGolden, SingleTurnWithObjectsAndSnakeCase) {
  // contents and parts as single objects, function_declarations in snake_case.
  ir::Request r = decode(read_fixture("gemini-generatecontent-function-call.request.json"));
  EXPECT_EQ(r.model, "");  // in the URL
  EXPECT_FALSE(r.stream);
  ASSERT_EQ(r.messages.size(), 1u);
  EXPECT_EQ(r.messages[0].role, ir::Role::user);
  EXPECT_EQ(std::get<ir::TextPart>(r.messages[0].parts.at(0)).text,
            "Which theaters in Mountain View show Barbie movie?");
  ASSERT_EQ(r.tools.size(), 3u);
  EXPECT_EQ(r.tools[0].name, "find_movies");
  EXPECT_EQ(r.tools[2].name, "get_showtimes");
  EXPECT_EQ(parse(r.tools[1].input_schema)["required"], json::array({"location"}));
  EXPECT_TRUE(r.extra.empty());
  // Re-encoded in the canonical form: arrays, camelCase, same meaning.
  json out = parse(encode(r));
  json in = parse(read_fixture("gemini-generatecontent-function-call.request.json"));
  EXPECT_EQ(out["contents"][0]["parts"][0], in["contents"]["parts"]);
  EXPECT_EQ(out["contents"][0]["role"], "user");
  EXPECT_EQ(out["tools"][0]["functionDeclarations"], in["tools"][0]["function_declarations"]);
}

TEST(GeminiRequestGolden, FunctionResponseTurnWithUpperCaseTypes) {
  const std::string body = read_fixture("gemini-generatecontent-function-response.request.json");
  ir::Request r = decode(body);
  ASSERT_EQ(r.messages.size(), 3u);
  EXPECT_EQ(r.messages[1].role, ir::Role::assistant);
  const ir::ToolCallPart& call = call_at(r, 1, 0);
  EXPECT_EQ(call.name, "find_theaters");
  EXPECT_EQ(parse(call.arguments), parse(R"({"location":"Mountain View, CA","movie":"Barbie"})"));
  EXPECT_TRUE(call.id.starts_with("call_"));  // the model gave none: synthesized
  // The role "function" turn is the result of that call, matched by name.
  EXPECT_EQ(r.messages[2].role, ir::Role::tool);
  const ir::ToolResultPart& res = result_at(r, 2, 0);
  EXPECT_EQ(res.call_id, call.id);
  EXPECT_FALSE(res.is_error);
  ASSERT_EQ(res.content.size(), 1u);
  json in = parse(body);
  EXPECT_EQ(parse(text_of(res.content[0])),
            in["contents"][2]["parts"][0]["functionResponse"]["response"]);
  // "OBJECT"/"STRING" become JSON Schema's lower-case types.
  json schema = parse(r.tools[0].input_schema);
  EXPECT_EQ(schema["type"], "object");
  EXPECT_EQ(schema["properties"]["location"]["type"], "string");
  EXPECT_EQ(schema["properties"]["location"]["description"],
            in["tools"][0]["functionDeclarations"][0]["parameters"]["properties"]["location"]
              ["description"]);
  // Same ids on every decode.
  EXPECT_EQ(decode(body).messages[1].parts, r.messages[1].parts);
  // Re-encoded: a user turn with the response (same JSON), ids on both sides.
  json out = parse(encode(r));
  EXPECT_EQ(out["contents"][2]["role"], "user");
  const json& fr = out["contents"][2]["parts"][0]["functionResponse"];
  EXPECT_EQ(fr["name"], "find_theaters");
  EXPECT_EQ(fr["id"], call.id);
  EXPECT_EQ(out["contents"][1]["parts"][0]["functionCall"]["id"], call.id);
  EXPECT_EQ(fr["response"], in["contents"][2]["parts"][0]["functionResponse"]["response"]);
  // and decodes to the same IR
  ir::Request again = decode(encode(r));
  EXPECT_EQ(again.messages, r.messages);
  EXPECT_EQ(again.tools, r.tools);
}

TEST(GeminiRequestGolden, MultiturnHistory) {
  ir::Request r =
      decode(read_fixture("gemini-generatecontent-multiturn-function-call.request.json"));
  ASSERT_EQ(r.messages.size(), 5u);
  EXPECT_EQ(r.messages[3].role, ir::Role::assistant);
  EXPECT_EQ(std::get<ir::TextPart>(r.messages[3].parts.at(0)).text,
            " OK. Barbie is showing in two theaters in Mountain View, CA: AMC Mountain View 16 and "
            "Regal Edwards 14.");
  EXPECT_EQ(r.messages[4].role, ir::Role::user);
  Warnings w;
  ir::Request again = decode(encode(r, &w));
  EXPECT_EQ(again.messages, r.messages);
  EXPECT_TRUE(w.empty()) << warnings_text(w);
}

TEST(GeminiRequestGolden, ScheduleMeetingReencodesToTheSameJson) {
  const std::string body = read_fixture("gemini-generatecontent-schedule-meeting.request.json");
  Warnings w;
  EXPECT_EQ(parse(encode(decode(body), &w)), parse(body));
  EXPECT_TRUE(w.empty()) << warnings_text(w);
}

// ---- fields ----

// Part members the IR has no field for (issue 23): kept for Gemini, dropped
// with a warning at their path elsewhere.
TEST(GeminiRequest, PartMembersSurviveSameDialectAndWarnElsewhere) {
  const std::string body =
      R"({"contents":[{"role":"user","parts":[{"text":"q"}]},{"role":"model","parts":[)"
      R"({"functionCall":{"id":"c1","name":"f","args":{}}}]},{"role":"user","parts":[)"
      R"({"functionResponse":{"id":"c1","name":"f","response":{"output":"r"},)"
      R"("willContinue":true}},{"fileData":{"mimeType":"image/png","fileUri":"https://x/a.png"},)"
      R"("mediaResolution":{"level":"MEDIA_RESOLUTION_LOW"}}]}]})";
  ir::Request r = decode(body);
  Warnings w;
  EXPECT_EQ(json::parse(encode(r, &w)), json::parse(body));
  EXPECT_TRUE(w.empty()) << (w.empty() ? "" : w[0].code + " " + w[0].path);
  Warnings cross;
  auto chat = find_codec("openai_chat")->encode_request(r, cross);
  ASSERT_TRUE(chat.ok());
  EXPECT_TRUE(has_warning(cross, "dropped_unknown_field",
                          "$.contents[2].parts[0].functionResponse.willContinue"));
  EXPECT_TRUE(
      has_warning(cross, "dropped_unknown_field", "$.contents[2].parts[1].mediaResolution"));
  EXPECT_EQ(chat->find("mediaResolution"), std::string::npos);
}

// Members of a model turn's parts (gap 10): one Gemini part may be two IR
// parts (a text and its signature); the members ride on the first.
TEST(GeminiRequest, ModelPartMembersSurviveSameDialectAndWarnElsewhere) {
  const std::string body =
      R"({"contents":[{"role":"user","parts":[{"text":"q"}]},{"role":"model","parts":[)"
      R"({"text":"a","thoughtSignature":"c2ln","partMetadata":{"k":"v"}},)"
      R"({"functionCall":{"id":"c1","name":"f","args":{}},"partMetadata":{"n":1}}]},)"
      R"({"role":"user","parts":[{"functionResponse":{"id":"c1","name":"f","response":{"output":"r"}}}]}]})";
  ir::Request r = decode(body);
  Warnings w;
  EXPECT_EQ(json::parse(encode(r, &w)), json::parse(body));
  EXPECT_TRUE(w.empty()) << (w.empty() ? "" : w[0].code + " " + w[0].path);
  Warnings same;
  auto fast = translate_request(codec(), codec(), body, same);
  ASSERT_TRUE(fast.ok());
  EXPECT_EQ(json::parse(*fast), json::parse(body));
  for (const char* target : {"openai_chat", "anthropic_messages"}) {
    Warnings cross;
    auto out = find_codec(target)->encode_request(r, cross);
    ASSERT_TRUE(out.ok()) << target;
    EXPECT_EQ(out->find("partMetadata"), std::string::npos) << target;
    EXPECT_TRUE(has_warning(cross, "dropped_unknown_field", "$.contents[1].parts[0].partMetadata"))
        << target;
    EXPECT_TRUE(has_warning(cross, "dropped_unknown_field", "$.contents[1].parts[1].partMetadata"))
        << target;
  }
}

TEST(GeminiRequest, SystemInstructionAndGenerationConfig) {
  ir::Request r = decode(R"({
    "systemInstruction": {"parts": [{"text": "Be brief."}, {"text": "Use metric."}]},
    "contents": [{"role": "user", "parts": [{"text": "hi"}]}],
    "generationConfig": {"maxOutputTokens": 256, "temperature": 0.5, "topP": 0.9,
                         "stopSequences": ["END"], "topK": 40, "thinkingConfig": {"thinkingBudget": 0}},
    "safetySettings": [{"category": "HARM_CATEGORY_HATE_SPEECH", "threshold": "BLOCK_NONE"}]
  })");
  ASSERT_EQ(r.system.size(), 2u);
  EXPECT_EQ(r.system[1].text, "Use metric.");
  EXPECT_EQ(r.max_tokens, 256);
  EXPECT_EQ(r.temperature, 0.5);
  EXPECT_EQ(r.top_p, 0.9);
  EXPECT_EQ(r.stop, std::vector<std::string>{"END"});
  EXPECT_EQ(r.top_k, 40);
  ASSERT_TRUE(r.reasoning);
  EXPECT_EQ(r.reasoning->budget_tokens, 0);
  ASSERT_EQ(r.extra.size(), 1u);
  EXPECT_EQ(r.extra[0].key, "safetySettings");
  // Same dialect: everything back in its place.
  json out = parse(encode(r));
  EXPECT_EQ(out["generationConfig"]["topK"], 40);
  EXPECT_EQ(out["generationConfig"]["thinkingConfig"]["thinkingBudget"], 0);
  EXPECT_EQ(out["generationConfig"]["maxOutputTokens"], 256);
  EXPECT_EQ(out["generationConfig"]["stopSequences"], json::array({"END"}));
  EXPECT_EQ(out["safetySettings"][0]["threshold"], "BLOCK_NONE");
  EXPECT_EQ(out["systemInstruction"]["parts"][1]["text"], "Use metric.");
  EXPECT_FALSE(out.contains("model"));
  EXPECT_FALSE(out.contains("stream"));
  // Another dialect drops the extras with a warning naming each.
  Warnings w;
  auto openai = find_codec("openai")->encode_request(r, w);
  ASSERT_TRUE(openai);
  EXPECT_TRUE(has_warning(w, "dropped_sampling_field", "$.generationConfig.topK"))
      << warnings_text(w);
  EXPECT_TRUE(has_warning(w, "dropped_unknown_field", "$.safetySettings"));
}

TEST(GeminiRequest, ToolConfigModes) {
  auto choice = [](const std::string& fcc) {
    return decode(R"({"contents":[{"parts":[{"text":"x"}]}],
      "tools":[{"functionDeclarations":[{"name":"a"},{"name":"b"}]}],
      "toolConfig":{"functionCallingConfig":)" +
                  fcc + "}}");
  };
  EXPECT_EQ(choice(R"({"mode":"AUTO"})").tool_choice->kind, Kind::auto_);
  EXPECT_EQ(choice(R"({"mode":"NONE"})").tool_choice->kind, Kind::none);
  EXPECT_EQ(choice(R"({"mode":"ANY"})").tool_choice->kind, Kind::required);
  ir::Request one = choice(R"({"mode":"ANY","allowedFunctionNames":["b"]})");
  EXPECT_EQ(one.tool_choice->kind, Kind::tool);
  EXPECT_EQ(one.tool_choice->name, "b");
  Warnings w;
  auto two = codec().decode_request(R"({"contents":[{"parts":[{"text":"x"}]}],
      "toolConfig":{"functionCallingConfig":{"mode":"ANY","allowedFunctionNames":["a","b"]}}})",
                                    w);
  ASSERT_TRUE(two);
  EXPECT_EQ(two->tool_choice->kind, Kind::required);
  EXPECT_TRUE(has_warning(w, "widened_tool_choice",
                          "$.toolConfig.functionCallingConfig.allowedFunctionNames"));
  // Encoding: IR → modes.
  ir::Request r = one;
  auto mode_of = [&](ir::ToolChoice c) {
    r.tool_choice = c;
    return parse(encode(r))["toolConfig"]["functionCallingConfig"];
  };
  EXPECT_EQ(mode_of({Kind::auto_, ""}), parse(R"({"mode":"AUTO"})"));
  EXPECT_EQ(mode_of({Kind::none, ""}), parse(R"({"mode":"NONE"})"));
  EXPECT_EQ(mode_of({Kind::required, ""}), parse(R"({"mode":"ANY"})"));
  EXPECT_EQ(mode_of({Kind::tool, "a"}), parse(R"({"mode":"ANY","allowedFunctionNames":["a"]})"));
  Error e = decode_error_of(
      R"({"contents":[],"toolConfig":{"functionCallingConfig":{"mode":"SOMETIMES"}}})");
  EXPECT_EQ(e.path, "$.toolConfig.functionCallingConfig.mode");
}

TEST(GeminiRequest, CallIdsCarriedSignaturesKeptAndParallelResultsInOneTurn) {
  const std::string body = R"({"contents":[
    {"role":"user","parts":[{"text":"weather in Paris and Rome?"}]},
    {"role":"model","parts":[
      {"functionCall":{"id":"c1","name":"get_weather","args":{"city":"Paris"}},"thoughtSignature":"c2lnMQ=="},
      {"functionCall":{"id":"c2","name":"get_weather","args":{"city":"Rome"}}}]},
    {"role":"user","parts":[
      {"functionResponse":{"id":"c1","name":"get_weather","response":{"output":"18C"}}},
      {"functionResponse":{"id":"c2","name":"get_weather","response":{"error":"no station"}}}]}]})";
  ir::Request r = decode(body);
  ASSERT_EQ(r.messages.size(), 3u);
  EXPECT_EQ(call_at(r, 1, 0).id, "c1");
  EXPECT_EQ(call_at(r, 1, 0).signature, "c2lnMQ==");
  EXPECT_EQ(call_at(r, 1, 1).signature, "");
  EXPECT_EQ(result_at(r, 2, 0).call_id, "c1");
  EXPECT_EQ(text_of(result_at(r, 2, 0).content.at(0)), "18C");
  EXPECT_TRUE(result_at(r, 2, 1).is_error);
  EXPECT_EQ(text_of(result_at(r, 2, 1).content.at(0)), "no station");
  EXPECT_EQ(parse(encode(r)), parse(body));

  // From OpenAI: the results are separate tool messages; Gemini gets one turn.
  ir::Request split = r;
  split.source_dialect = "openai_chat";
  split.messages[2].parts.pop_back();
  split.messages.push_back({ir::Role::tool, {r.messages[2].parts[1]}, {}});
  for (auto& p : split.messages[1].parts) std::get<ir::ToolCallPart>(p).signature.clear();
  Warnings w;
  json out = parse(encode(split, &w));
  ASSERT_EQ(out["contents"].size(), 3u);
  EXPECT_EQ(out["contents"][2]["parts"].size(), 2u);
  EXPECT_EQ(out["contents"][2]["parts"][1]["functionResponse"]["id"], "c2");
  // Calls from another dialect carry no signature: the first gets Gemini's placeholder.
  EXPECT_EQ(out["contents"][1]["parts"][0]["thoughtSignature"], "skip_thought_signature_validator");
  EXPECT_FALSE(out["contents"][1]["parts"][1].contains("thoughtSignature"));
  EXPECT_TRUE(has_warning(w, "placeholder_thought_signature")) << warnings_text(w);
}

TEST(GeminiRequest, ResponsesWithoutIdsMatchTheEarliestUnansweredCallByName) {
  ir::Request r = decode(R"({"contents":[
    {"role":"model","parts":[{"functionCall":{"name":"f","args":{"n":1}}},
                             {"functionCall":{"name":"f","args":{"n":2}}}]},
    {"role":"user","parts":[{"functionResponse":{"name":"f","response":{"output":"one"}}},
                            {"functionResponse":{"name":"f","response":{"output":"two"}}}]}]})");
  EXPECT_NE(call_at(r, 0, 0).id, call_at(r, 0, 1).id);
  EXPECT_EQ(result_at(r, 1, 0).call_id, call_at(r, 0, 0).id);
  EXPECT_EQ(result_at(r, 1, 1).call_id, call_at(r, 0, 1).id);
  Error e = decode_error_of(R"({"contents":[
    {"role":"model","parts":[{"functionCall":{"name":"f","args":{}}}]},
    {"role":"user","parts":[{"functionResponse":{"name":"f","response":{}}},
                            {"functionResponse":{"name":"f","response":{}}}]}]})");
  EXPECT_EQ(e.path, "$.contents[1].parts[1].functionResponse.name");
  e = decode_error_of(R"({"contents":[
    {"role":"user","parts":[{"functionResponse":{"id":"zz","name":"f","response":{}}}]}]})");
  EXPECT_EQ(e.path, "$.contents[0].parts[0].functionResponse.id");
}

TEST(GeminiRequest, ThoughtsAndTextSignatures) {
  const std::string body = R"({"contents":[{"role":"user","parts":[{"text":"q"}]},
    {"role":"model","parts":[{"text":"thinking it over","thought":true,"thoughtSignature":"dA=="},
                             {"text":"answer","thoughtSignature":"YQ=="}]}]})";
  ir::Request r = decode(body);
  const auto& parts = r.messages[1].parts;
  ASSERT_EQ(parts.size(), 3u);
  EXPECT_EQ(std::get<ir::ThinkingPart>(parts[0]).text, "thinking it over");
  EXPECT_EQ(std::get<ir::ThinkingPart>(parts[0]).signature, "dA==");
  EXPECT_EQ(std::get<ir::TextPart>(parts[1]).text, "answer");
  EXPECT_EQ(std::get<ir::ThinkingPart>(parts[2]).signature, "YQ==");  // rides on the text
  EXPECT_EQ(parse(encode(r)), parse(body));
}

TEST(GeminiRequest, ImagesBothWays) {
  const std::string body = R"({"contents":[{"role":"user","parts":[
    {"inlineData":{"mimeType":"image/png","data":"iVBORw0KGgo="}},
    {"fileData":{"mimeType":"image/jpeg","fileUri":"https://example.com/cat.jpg"}},
    {"fileData":{"mimeType":"image/png","fileUri":"https://example.com/raw"}},
    {"inlineData":{"mimeType":"application/pdf","data":"JVBERi0="}},
    {"text":"what is this?"}]}]})";
  ir::Request r = decode(body);
  const auto& p = r.messages[0].parts;
  ASSERT_EQ(p.size(), 5u);
  EXPECT_EQ(std::get<ir::ImagePart>(p[0]).media_type, "image/png");
  EXPECT_EQ(std::get<ir::ImagePart>(p[0]).data, "iVBORw0KGgo=");
  EXPECT_EQ(std::get<ir::ImagePart>(p[1]).url, "https://example.com/cat.jpg");
  EXPECT_EQ(std::get<ir::ImagePart>(p[1]).media_type, "");  // the extension says it
  EXPECT_EQ(std::get<ir::ImagePart>(p[2]).media_type, "image/png");
  EXPECT_EQ(std::get<ir::UnknownPart>(p[3]).type, "inlineData");  // a PDF: kept verbatim
  EXPECT_EQ(parse(encode(r)), parse(body));
  // Detail is dropped with a warning; a PDF cannot go to OpenAI.
  ir::Request d = r;
  std::get<ir::ImagePart>(d.messages[0].parts[1]).detail = "high";
  Warnings w;
  encode(d, &w);
  EXPECT_TRUE(has_warning(w, "dropped_image_detail", "$.contents[0].parts[1].detail"))
      << warnings_text(w);
  Warnings w2;
  ASSERT_TRUE(find_codec("openai")->encode_request(r, w2));
  EXPECT_TRUE(has_warning(w2, "dropped_unknown_part")) << warnings_text(w2);
}

TEST(GeminiRequest, ToolResultShapes) {
  ir::Request r;
  r.messages.push_back(
      {ir::Role::assistant,
       {ir::ToolCallPart{"k1", "f", "{}", true, "s"}, ir::ToolCallPart{"k2", "f", "{}", true, "s"},
        ir::ToolCallPart{"k3", "f", "{}", true, "s"}},
       {}});
  ir::ToolResultPart json_text{"k1", {ir::TextPart{R"({"temp": 18, "unit": "C"})"}}, false};
  ir::ToolResultPart two_texts{
      "k2",
      {ir::TextPart{"a"}, ir::TextPart{"b"}, ir::ImagePart{"", "image/png", "AAAA", ""}},
      false};
  ir::ToolResultPart error{"k3", {ir::TextPart{"boom"}}, true};
  r.messages.push_back({ir::Role::tool, {json_text, two_texts, error}, {}});
  // From another dialect a result's text is the output string...
  EXPECT_EQ(parse(encode(r))["contents"][1]["parts"][0]["functionResponse"]["response"],
            parse(R"({"output":"{\"temp\": 18, \"unit\": \"C\"}"})"));
  // ...and a Gemini result that was an object goes back as that object.
  r.source_dialect = "gemini";
  Warnings w;
  json out = parse(encode(r, &w));
  const json& parts = out["contents"][1]["parts"];
  EXPECT_EQ(parts[0]["functionResponse"]["response"], parse(R"({"temp":18,"unit":"C"})"));
  EXPECT_EQ(parts[1]["functionResponse"]["response"], parse(R"({"output":"a\n\nb"})"));
  EXPECT_EQ(parts[1]["functionResponse"]["parts"][0]["inlineData"]["data"], "AAAA");
  EXPECT_EQ(parts[2]["functionResponse"]["response"], parse(R"({"error":"boom"})"));
  EXPECT_TRUE(has_warning(w, "joined_result_texts", "$.messages[1].content[1]"))
      << warnings_text(w);
  ir::Request back = decode(out.dump());
  const ir::ToolResultPart& r2 = result_at(back, 1, 1);
  EXPECT_EQ(text_of(r2.content.at(0)), "a\n\nb");
  EXPECT_EQ(std::get<ir::ImagePart>(r2.content.at(1)).data, "AAAA");
  EXPECT_TRUE(result_at(back, 1, 2).is_error);
}

TEST(GeminiRequest, SchemasScrubbedToGeminisSubset) {
  ir::Request r;
  ir::ToolDefinition t;
  t.name = "run_sql";
  t.input_schema =
      R"({"type":"object","properties":{"sql":{"type":"string"},"params":{"type":"array","items":{"type":["string","null"]}}},"required":["sql"],"additionalProperties":false,"$defs":{}})";
  r.tools.push_back(t);
  ir::ToolDefinition empty;
  empty.name = "no_args";
  r.tools.push_back(empty);
  json out = parse(encode(r));
  const json& decls = out["tools"][0]["functionDeclarations"];
  EXPECT_FALSE(decls[0]["parameters"].contains("additionalProperties"));
  EXPECT_FALSE(decls[0]["parameters"].contains("$defs"));
  EXPECT_EQ(decls[0]["parameters"]["properties"]["params"]["items"],
            parse(R"({"type":"string","nullable":true})"));
  // No properties: no parameters (Gemini refuses an OBJECT without properties).
  EXPECT_FALSE(decls[1].contains("parameters"));
  EXPECT_EQ(decode(out.dump()).tools[1].input_schema, R"({"type":"object","properties":{}})");
  // A schema that is not an object type is refused either way, with its path.
  Error e = decode_error_of(
      R"({"contents":[],"tools":[{"functionDeclarations":[{"name":"f","parameters":{"type":"STRING"}}]}]})");
  EXPECT_EQ(e.path, "$.tools[0].functionDeclarations[0].parameters.type");
  // parametersJsonSchema is JSON Schema already.
  ir::Request js = decode(
      R"({"contents":[],"tools":[{"functionDeclarations":[{"name":"f","parametersJsonSchema":{"type":"object","properties":{"a":{"type":["string","null"]}}}}]}]})");
  EXPECT_EQ(parse(js.tools[0].input_schema)["properties"]["a"]["type"],
            json::array({"string", "null"}));
}

TEST(GeminiRequest, NestedUpperCaseTypesAllLowered) {
  ir::Request r = decode(R"({"contents":[],"tools":[{"functionDeclarations":[{"name":"f",
    "parameters":{"type":"OBJECT","properties":{"list":{"type":"ARRAY","items":{"type":"OBJECT",
    "properties":{"n":{"type":"INTEGER"},"type":{"type":"STRING","enum":["A","B"]}}}}}}}]}]})");
  json s = parse(r.tools[0].input_schema);
  EXPECT_EQ(s["properties"]["list"]["type"], "array");
  EXPECT_EQ(s["properties"]["list"]["items"]["properties"]["n"]["type"], "integer");
  EXPECT_EQ(s["properties"]["list"]["items"]["properties"]["type"]["type"], "string");
  EXPECT_EQ(s["properties"]["list"]["items"]["properties"]["type"]["enum"],
            json::array({"A", "B"}));
}

TEST(GeminiRequest, FunctionNamesFromOtherDialects) {
  ir::Request r;
  r.source_dialect = "openai_chat";
  ir::ToolDefinition t;
  t.name = "3d_render";  // OpenAI takes it; Gemini wants a letter or '_' first
  r.tools.push_back(t);
  r.tool_choice = ir::ToolChoice{Kind::tool, "3d_render"};
  r.messages.push_back(
      {ir::Role::assistant, {ir::ToolCallPart{"c", "3d_render", "{}", true, ""}}, {}});
  r.messages.push_back(
      {ir::Role::tool, {ir::ToolResultPart{"c", {ir::TextPart{"ok"}}, false}}, {}});
  json out = parse(encode(r));
  EXPECT_EQ(out["tools"][0]["functionDeclarations"][0]["name"], "_3d_render");
  EXPECT_EQ(out["toolConfig"]["functionCallingConfig"]["allowedFunctionNames"][0], "_3d_render");
  EXPECT_EQ(out["contents"][0]["parts"][0]["functionCall"]["name"], "_3d_render");
  EXPECT_EQ(out["contents"][1]["parts"][0]["functionResponse"]["name"], "_3d_render");
  ir::Request back = decode(out.dump());
  EXPECT_EQ(back.tools[0].name, "3d_render");
  EXPECT_EQ(back.tool_choice->name, "3d_render");
  EXPECT_EQ(call_at(back, 0, 0).name, "3d_render");
  // Too long for Gemini (Anthropic allows 128): refused with the path.
  r.tools[0].name = std::string(100, 'x');
  Warnings w;
  auto bad = codec().encode_request(r, w);
  ASSERT_FALSE(bad);
  EXPECT_EQ(bad.error().path, "$.tools[0].name");
  // Dotted names are Gemini's own: accepted as they are.
  EXPECT_EQ(decode(R"({"contents":[],"tools":[{"functionDeclarations":[{"name":"ns.tool:v1"}]}]})")
                .tools[0]
                .name,
            "ns.tool:v1");
  Error e =
      decode_error_of(R"({"contents":[],"tools":[{"functionDeclarations":[{"name":"a b"}]}]})");
  EXPECT_EQ(e.path, "$.tools[0].functionDeclarations[0].name");
}

TEST(GeminiRequest, LossyMappingsWarn) {
  ir::Request r;
  r.source_dialect = "openai_chat";
  r.model = "gpt-4o";
  r.stream = true;
  r.metadata = R"({"user":"u"})";
  r.parallel_tool_calls = false;
  ir::ToolDefinition t;
  t.name = "f";
  t.strict = true;
  r.tools.push_back(t);
  r.messages.push_back({ir::Role::user, {ir::TextPart{"hi"}}, "alice"});
  r.messages.push_back({ir::Role::system, {ir::TextPart{"late rule"}}, {}});
  ir::ThinkingPart redacted;
  redacted.redacted = true;
  redacted.redacted_data = "xx";
  r.messages.push_back({ir::Role::assistant, {redacted, ir::TextPart{"ok"}}, {}});
  r.extra.push_back({"x-unsupported-tool", R"({"type":"custom"})"});
  Warnings w;
  json out = parse(encode(r, &w));
  EXPECT_FALSE(out.contains("model"));
  EXPECT_FALSE(out.contains("stream"));
  EXPECT_FALSE(out.contains("metadata"));
  EXPECT_EQ(out["systemInstruction"]["parts"][0]["text"], "late rule");
  EXPECT_EQ(out["contents"].size(), 2u);
  for (const char* code : {"dropped_metadata", "dropped_parallel_tool_calls", "dropped_tool_strict",
                           "dropped_message_name", "moved_system_message",
                           "dropped_redacted_thinking", "dropped_unsupported_tool"})
    EXPECT_TRUE(has_warning(w, code)) << code << "\n" << warnings_text(w);
}

TEST(GeminiRequest, InvalidArgumentsWrappedAndRecovered) {
  ir::Request r;
  r.messages.push_back(
      {ir::Role::assistant, {ir::ToolCallPart{"c", "f", "{\"city\": \"Par", false, "s"}}, {}});
  Warnings w;
  const std::string out = encode(r, &w);
  EXPECT_TRUE(has_warning(w, "invalid_arguments_wrapped"));
  ir::Request back = decode(out);
  EXPECT_EQ(call_at(back, 0, 0).arguments, "{\"city\": \"Par");
  EXPECT_FALSE(call_at(back, 0, 0).arguments_valid);
}

TEST(GeminiRequest, UnsupportedToolsKeptForGeminiDroppedElsewhere) {
  const std::string body =
      R"({"contents":[{"role":"user","parts":[{"text":"x"}]}],"tools":[{"googleSearch":{}},{"functionDeclarations":[{"name":"f"}]}]})";
  ir::Request r = decode(body);
  ASSERT_EQ(r.tools.size(), 1u);
  json out = parse(encode(r));
  EXPECT_EQ(out["tools"][1], parse(R"({"googleSearch":{}})"));
  Warnings w;
  ASSERT_TRUE(find_codec("anthropic")->encode_request(r, w));
  EXPECT_TRUE(has_warning(w, "dropped_unsupported_tool")) << warnings_text(w);
}

TEST(GeminiRequest, BadInputNamesThePath) {
  struct Case {
    const char* body;
    const char* path;
  } cases[] = {
      {R"({})", "$"},
      {R"({"contents":5})", "$.contents"},
      {R"({"contents":[{"role":"assistant","parts":[]}]})", "$.contents[0].role"},
      {R"({"contents":[{"role":"user"}]})", "$.contents[0]"},
      {R"({"contents":[{"parts":[{"text":7}]}]})", "$.contents[0].parts[0].text"},
      {R"({"contents":[{"role":"model","parts":[{"functionCall":{"args":{}}}]}]})",
       "$.contents[0].parts[0].functionCall"},
      {R"({"contents":[{"role":"model","parts":[{"functionCall":{"name":"f","args":[1]}}]}]})",
       "$.contents[0].parts[0].functionCall.args"},
      {R"({"contents":[{"role":"user","parts":[{"functionCall":{"name":"f"}}]}]})",
       "$.contents[0].parts[0].functionCall"},
      {R"({"contents":[],"generationConfig":{"maxOutputTokens":"lots"}})",
       "$.generationConfig.maxOutputTokens"},
      {R"({"contents":[],"tools":[{"functionDeclarations":[{"description":"no name"}]}]})",
       "$.tools[0].functionDeclarations[0]"},
      {R"({"contents":[{"parts":[{"inlineData":{"mimeType":"image/png"}}]}]})",
       "$.contents[0].parts[0].inlineData"},
      {R"({"contents":[], "systemInstruction":{"parts":[{"inlineData":{}}]}})",
       "$.systemInstruction.parts[0]"},
      // A property whose schema is not a schema: refused when read, not when sent on
      // (fuzz_gemini_request found it decoding and then failing to encode).
      {R"({"contents":[],"tools":[{"functionDeclarations":[{"name":"f","parameters":)"
       R"({"type":"object","properties":{"a":{"type":"string"},"b":"text"}}}]}]})",
       "$.tools[0].functionDeclarations[0].parameters"},
  };
  for (const auto& c : cases) {
    Error e = decode_error_of(c.body);
    EXPECT_EQ(e.path, c.path) << c.body << "\n" << e.to_string();
    EXPECT_EQ(e.code, ErrorCode::invalid_argument) << c.body;
  }
  Error e = decode_error_of(R"({"contents": [)");
  EXPECT_EQ(e.code, ErrorCode::parse_error) << e.to_string();
}

TEST(GeminiRequest, TranslateRequestBorrowedPathMatchesOwningPath) {
  for (const char* f :
       {"gemini-generatecontent-function-call.request.json",
        "gemini-generatecontent-function-response.request.json",
        "gemini-generatecontent-multiturn-function-call.request.json",
        "gemini-generatecontent-schedule-meeting.request.json",
        "openai-chat-tool-calls.request.json", "anthropic-messages-tool-result.request.json"}) {
    const std::string body = read_fixture(f);
    const Codec& src = std::string_view(f).starts_with("gemini")   ? codec()
                       : std::string_view(f).starts_with("openai") ? *find_codec("openai")
                                                                   : *find_codec("anthropic");
    for (const Codec* dst : {&codec(), find_codec("openai"), find_codec("anthropic")}) {
      Warnings w1, w2;
      auto fast = translate_request(src, *dst, body, w1);
      auto ir = src.decode_request(body, w2);
      ASSERT_TRUE(fast && ir) << f;
      auto slow = dst->encode_request(*ir, w2, EncodeOptions{.raw_json_verified = true});
      ASSERT_TRUE(slow) << f;
      EXPECT_EQ(*fast, *slow) << f << " to " << dst->name();
    }
  }
}

}  // namespace
}  // namespace toolwire::dialects::gemini_test
