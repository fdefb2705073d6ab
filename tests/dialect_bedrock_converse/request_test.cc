// Bedrock Converse requests: the AWS documentation's examples, every field
// both ways, the lossy mappings and their warnings, and bad input.
#include <gtest/gtest.h>

#include "test_util.h"

namespace toolwire::dialects::bedrock_test {
namespace {

using nlohmann::json;

ir::Request decode(const std::string& body, Warnings* warnings = nullptr) {
  Warnings w;
  auto r = codec().decode_request(body, warnings ? *warnings : w);
  EXPECT_TRUE(r.ok()) << (r ? "" : r.error().to_string()) << "\n" << body;
  return r ? *r : ir::Request{};
}

json encode(const ir::Request& req, Warnings* warnings = nullptr) {
  Warnings w;
  auto r = codec().encode_request(req, warnings ? *warnings : w);
  EXPECT_TRUE(r.ok()) << (r ? "" : r.error().to_string());
  return r ? json::parse(*r) : json();
}

TEST(BedrockRequest, DocumentationToolUseRequest) {
  ir::Request r = decode(read_fixture("bedrock-converse-tool-use.request.json"));
  EXPECT_EQ(r.model, "");  // in the URL path, not the body
  EXPECT_EQ(r.source_dialect, "bedrock_converse");
  ASSERT_EQ(r.messages.size(), 1u);
  EXPECT_EQ(r.messages[0].role, ir::Role::user);
  EXPECT_EQ(std::get<ir::TextPart>(r.messages[0].parts.at(0)).text,
            "What is the most popular song on WZPZ?");
  ASSERT_EQ(r.tools.size(), 1u);
  EXPECT_EQ(r.tools[0].name, "top_song");
  EXPECT_EQ(r.tools[0].description, "Get the most popular song played on a radio station.");
  EXPECT_EQ(json::parse(r.tools[0].input_schema)["required"], json::array({"sign"}));
  EXPECT_FALSE(r.tool_choice);
}

TEST(BedrockRequest, DocumentationToolResultWithJsonContent) {
  ir::Request r = decode(read_fixture("bedrock-converse-tool-result.request.json"));
  ASSERT_EQ(r.messages.size(), 3u);
  const auto& call = std::get<ir::ToolCallPart>(r.messages[1].parts.at(0));
  EXPECT_EQ(call.id, "tooluse_kZJMlvQmRJ6eAyJE5GIl7Q");
  EXPECT_EQ(call.name, "top_song");
  EXPECT_EQ(json::parse(call.arguments), json::parse(R"({"sign":"WZPZ"})"));
  ASSERT_EQ(r.messages[2].role, ir::Role::tool);
  const auto& result = std::get<ir::ToolResultPart>(r.messages[2].parts.at(0));
  EXPECT_EQ(result.call_id, call.id);
  EXPECT_FALSE(result.is_error);
  // A json block is carried as its JSON text (the IR's result content is text).
  ASSERT_EQ(result.content.size(), 1u);
  EXPECT_EQ(json::parse(std::get<ir::TextPart>(result.content[0]).text),
            json::parse(R"({"song":"Elemental Hotel","artist":"8 Storey Hike"})"));
}

TEST(BedrockRequest, DocumentationErrorResultAndForcedTool) {
  ir::Request r = decode(read_fixture("bedrock-converse-tool-result-error.request.json"));
  const auto& result = std::get<ir::ToolResultPart>(r.messages.at(2).parts.at(0));
  EXPECT_TRUE(result.is_error);
  EXPECT_EQ(std::get<ir::TextPart>(result.content.at(0)).text, "Station WZPA not found.");
  ASSERT_TRUE(r.tool_choice);
  EXPECT_EQ(r.tool_choice->kind, ir::ToolChoice::Kind::tool);
  EXPECT_EQ(r.tool_choice->name, "top_song");
  // And back: status error, the forced tool.
  json out = encode(r);
  EXPECT_EQ(out["messages"][2]["content"][0]["toolResult"]["status"], "error");
  EXPECT_EQ(out["toolConfig"]["toolChoice"], json::parse(R"({"tool":{"name":"top_song"}})"));
}

// Every documented field, decoded and written back unchanged (same dialect).
const char* const kEveryField = R"({
  "messages": [
    {"role": "user", "content": [
      {"text": "Look at this"},
      {"image": {"format": "png", "source": {"bytes": "iVBORw0KGgo="}}},
      {"document": {"format": "txt", "name": "notes", "source": {"bytes": "aGVsbG8="}}}
    ]},
    {"role": "assistant", "content": [
      {"reasoningContent": {"reasoningText": {"text": "Think first.", "signature": "sig-1"}}},
      {"reasoningContent": {"redactedContent": "cmVkYWN0ZWQ="}},
      {"text": "Calling two tools."},
      {"toolUse": {"toolUseId": "tooluse_a", "name": "get_weather", "input": {"city": "Paris"}}},
      {"toolUse": {"toolUseId": "tooluse_b", "name": "get_time", "input": {}}}
    ]},
    {"role": "user", "content": [
      {"toolResult": {"toolUseId": "tooluse_a", "content": [
        {"text": "18C"}, {"image": {"format": "jpeg", "source": {"bytes": "/9j/4AAQ"}}}],
        "status": "success"}},
      {"toolResult": {"toolUseId": "tooluse_b", "content": [{"text": "no clock"}], "status": "error"}},
      {"text": "Thanks"}
    ]}
  ],
  "system": [{"text": "You are terse."}, {"text": "Answer in French."}],
  "inferenceConfig": {"maxTokens": 512, "temperature": 0.5, "topP": 0.9, "stopSequences": ["END"]},
  "toolConfig": {
    "tools": [
      {"toolSpec": {"name": "get_weather", "description": "Weather", "inputSchema": {"json": {"type": "object", "properties": {"city": {"type": "string"}}}}}},
      {"toolSpec": {"name": "get_time", "inputSchema": {"json": {"type": "object"}}}},
      {"cachePoint": {"type": "default"}}
    ],
    "toolChoice": {"any": {}}
  },
  "requestMetadata": {"tenant": "acme"},
  "additionalModelRequestFields": {"top_k": 40},
  "guardrailConfig": {"guardrailIdentifier": "gr-1", "guardrailVersion": "1"}
})";

TEST(BedrockRequest, EveryFieldDecodes) {
  Warnings w;
  ir::Request r = decode(kEveryField, &w);
  EXPECT_TRUE(w.empty()) << warnings_text(w);
  ASSERT_EQ(r.system.size(), 2u);
  EXPECT_EQ(r.system[1].text, "Answer in French.");
  EXPECT_EQ(r.max_tokens, 512);
  EXPECT_EQ(r.temperature, 0.5);
  EXPECT_EQ(r.top_p, 0.9);
  EXPECT_EQ(r.stop, std::vector<std::string>{"END"});
  ASSERT_EQ(r.tools.size(), 2u);
  EXPECT_EQ(r.tools[1].description, "");
  ASSERT_TRUE(r.tool_choice);
  EXPECT_EQ(r.tool_choice->kind, ir::ToolChoice::Kind::required);
  EXPECT_EQ(json::parse(r.metadata), json::parse(R"({"tenant":"acme"})"));

  // user: text, image (bytes → media type), document kept verbatim
  const auto& user = r.messages.at(0).parts;
  ASSERT_EQ(user.size(), 3u);
  const auto& img = std::get<ir::ImagePart>(user[1]);
  EXPECT_EQ(img.media_type, "image/png");
  EXPECT_EQ(img.data, "iVBORw0KGgo=");
  EXPECT_EQ(std::get<ir::UnknownPart>(user[2]).type, "document");

  // assistant: signed reasoning, redacted reasoning, text, two calls
  const auto& asst = r.messages.at(1).parts;
  ASSERT_EQ(asst.size(), 5u);
  const auto& th = std::get<ir::ThinkingPart>(asst[0]);
  EXPECT_EQ(th.text, "Think first.");
  EXPECT_EQ(th.signature, "sig-1");
  const auto& red = std::get<ir::ThinkingPart>(asst[1]);
  EXPECT_TRUE(red.redacted);
  EXPECT_EQ(red.redacted_data, "cmVkYWN0ZWQ=");
  EXPECT_EQ(std::get<ir::ToolCallPart>(asst[4]).arguments, "{}");

  // user turn: the results become one tool message, the text a user message after it
  ASSERT_EQ(r.messages.size(), 4u);
  ASSERT_EQ(r.messages[2].role, ir::Role::tool);
  ASSERT_EQ(r.messages[2].parts.size(), 2u);
  const auto& res_a = std::get<ir::ToolResultPart>(r.messages[2].parts[0]);
  EXPECT_FALSE(res_a.is_error);
  ASSERT_EQ(res_a.content.size(), 2u);
  EXPECT_EQ(std::get<ir::ImagePart>(res_a.content[1]).media_type, "image/jpeg");
  EXPECT_TRUE(std::get<ir::ToolResultPart>(r.messages[2].parts[1]).is_error);
  EXPECT_EQ(r.messages[3].role, ir::Role::user);

  // The rest rides along as extra fields (and the cachePoint tool entry).
  std::vector<std::string> keys;
  for (const auto& x : r.extra) keys.push_back(x.key);
  EXPECT_EQ(keys, (std::vector<std::string>{"x-unsupported-tool", "additionalModelRequestFields",
                                            "guardrailConfig"}));
}

TEST(BedrockRequest, EveryFieldSurvivesTheSameDialectTrip) {
  ir::Request r = decode(kEveryField);
  Warnings w;
  json out = encode(r, &w);
  EXPECT_TRUE(w.empty()) << warnings_text(w);
  json in = json::parse(kEveryField);
  // Same JSON values except where Bedrock's own defaults differ: "success" is
  // the default status and is not written.
  in["messages"][2]["content"][0]["toolResult"].erase("status");
  EXPECT_EQ(out, in) << out.dump(1);
}

TEST(BedrockRequest, AdditionalModelRequestFieldsDroppedWithWarningAcrossDialects) {
  ir::Request r = decode(kEveryField);
  Warnings w;
  auto anthropic = find_codec("anthropic")->encode_request(r, w);
  ASSERT_TRUE(anthropic.ok());
  EXPECT_TRUE(has_warning(w, "dropped_unknown_field", "$.additionalModelRequestFields"))
      << warnings_text(w);
  EXPECT_TRUE(has_warning(w, "dropped_unknown_field", "$.guardrailConfig"));
  EXPECT_TRUE(has_warning(w, "dropped_unsupported_tool"));
  EXPECT_EQ(json::parse(*anthropic).count("additionalModelRequestFields"), 0u);
}

// toolSpec members the IR has no field for (issue 23): kept for Bedrock,
// dropped with a warning at their path elsewhere.
TEST(BedrockRequest, OtherToolSpecMembersSurviveSameDialectAndWarnElsewhere) {
  const std::string body =
      R"({"messages":[{"role":"user","content":[{"text":"q"}]}],"toolConfig":{"tools":[)"
      R"({"toolSpec":{"name":"f","inputSchema":{"json":{"type":"object"}},"strict":true,)"
      R"("x-later":{"a":1}}}]}})";
  ir::Request r = decode(body);
  Warnings w;
  EXPECT_EQ(encode(r, &w), json::parse(body));
  EXPECT_TRUE(w.empty()) << warnings_text(w);
  Warnings cross;
  auto chat = find_codec("openai_chat")->encode_request(r, cross);
  ASSERT_TRUE(chat.ok());
  EXPECT_TRUE(has_warning(cross, "dropped_unknown_field", "$.toolConfig.tools[0].toolSpec.strict"))
      << warnings_text(cross);
  EXPECT_TRUE(
      has_warning(cross, "dropped_unknown_field", "$.toolConfig.tools[0].toolSpec.x-later"));
  EXPECT_EQ(chat->find("x-later"), std::string::npos);
}

// A system cachePoint (prompt caching, issue 23) is kept for Bedrock where it
// was, and dropped with a warning at its path by other dialects.
TEST(BedrockRequest, SystemCachePointKeptSameDialectAndDroppedWithWarningElsewhere) {
  const std::string body =
      R"({"messages":[{"role":"user","content":[{"text":"hi"}]}],"system":[{"text":"be brief"},)"
      R"({"cachePoint":{"type":"default"}},{"text":"more"}]})";
  Warnings w;
  ir::Request r = decode(body, &w);
  ASSERT_EQ(r.system.size(), 2u);
  EXPECT_TRUE(w.empty()) << warnings_text(w);
  EXPECT_EQ(encode(r, &w), json::parse(body));
  EXPECT_TRUE(w.empty()) << warnings_text(w);
  Warnings cross;
  auto anthropic = find_codec("anthropic_messages")->encode_request(r, cross);
  ASSERT_TRUE(anthropic.ok());
  EXPECT_TRUE(has_warning(cross, "dropped_unknown_field", "$.system[1]")) << warnings_text(cross);
  EXPECT_EQ(anthropic->find("cachePoint"), std::string::npos);
}

ir::Request openai_request(const std::string& body) {
  Warnings w;
  auto r = find_codec("openai")->decode_request(body, w);
  EXPECT_TRUE(r.ok()) << (r ? "" : r.error().to_string());
  return r ? *r : ir::Request{};
}

TEST(BedrockRequest, FromOpenAIWritesNoModelOrStreamAndWarnsForEachLoss) {
  ir::Request r = openai_request(R"({
    "model": "gpt-4o", "stream": true, "parallel_tool_calls": false, "tool_choice": "none",
    "messages": [
      {"role": "developer", "content": "Be brief."},
      {"role": "user", "name": "alice", "content": [
        {"type": "text", "text": "What is here?"},
        {"type": "image_url", "image_url": {"url": "https://example.com/a.png", "detail": "high"}},
        {"type": "image_url", "image_url": {"url": "data:image/png;base64,iVBOR", "detail": "low"}}]},
      {"role": "assistant", "content": null, "tool_calls": [
        {"id": "call:1/x", "type": "function", "function": {"name": "f", "arguments": "{\"a\":"}}]},
      {"role": "tool", "tool_call_id": "call:1/x", "content": "done"},
      {"role": "system", "content": "Mid-conversation note."}
    ],
    "tools": [{"type": "function", "function": {"name": "f", "strict": true,
               "parameters": {"type": "object", "properties": {}}}}],
    "user": "u-1"})");
  Warnings w;
  json out = encode(r, &w);
  EXPECT_EQ(out.count("model"), 0u);
  EXPECT_EQ(out.count("stream"), 0u);
  EXPECT_EQ(out.count("user"), 0u);
  EXPECT_TRUE(has_warning(w, "dropped_unknown_field", "$.user")) << warnings_text(w);
  EXPECT_TRUE(has_warning(w, "dropped_parallel_tool_calls"));
  EXPECT_TRUE(has_warning(w, "dropped_tool_choice_none"));
  EXPECT_EQ(out["toolConfig"].count("toolChoice"), 0u);
  EXPECT_TRUE(has_warning(w, "dropped_tool_strict"));
  EXPECT_TRUE(has_warning(w, "dropped_message_name"));
  // At the client's paths: the leading developer message is not an IR message.
  EXPECT_TRUE(has_warning(w, "dropped_image_url", "$.messages[1].content[1].image_url"))
      << warnings_text(w);
  EXPECT_TRUE(has_warning(w, "dropped_image_detail", "$.messages[1].content[2].image_url.detail"));
  EXPECT_TRUE(has_warning(w, "moved_system_message"));
  EXPECT_TRUE(has_warning(w, "invalid_arguments_wrapped"));
  // System first, then the moved message; the data: URL as bytes.
  EXPECT_EQ(out["system"],
            json::parse(R"([{"text":"Be brief."},{"text":"Mid-conversation note."}])"));
  EXPECT_EQ(out["messages"][0]["content"][1],
            json::parse(R"({"image":{"format":"png","source":{"bytes":"iVBOR"}}})"));
  // The id Bedrock would refuse is mapped reversibly, on both sides of the pair.
  const json& use = out["messages"][1]["content"][0]["toolUse"];
  EXPECT_EQ(use["toolUseId"], "tw-call-3a1-2fx");
  EXPECT_EQ(use["input"], json::parse(R"({"__toolwire_invalid_arguments":"{\"a\":"})"));
  EXPECT_EQ(out["messages"][2]["content"][0]["toolResult"]["toolUseId"], "tw-call-3a1-2fx");
  ir::Request back = decode(out.dump());
  const auto& call = std::get<ir::ToolCallPart>(back.messages.at(1).parts.at(0));
  EXPECT_EQ(call.id, "call:1/x");
  EXPECT_FALSE(call.arguments_valid);
  EXPECT_EQ(call.arguments, "{\"a\":");
}

TEST(BedrockRequest, ToolChoiceShapes) {
  auto choice_of = [](const char* openai_choice) {
    ir::Request r = openai_request(
        std::string(
            R"({"model":"m","messages":[{"role":"user","content":"hi"}],"tools":[{"type":"function","function":{"name":"f","parameters":{"type":"object"}}}],"tool_choice":)") +
        openai_choice + "}");
    return encode(r)["toolConfig"]["toolChoice"];
  };
  EXPECT_EQ(choice_of(R"("auto")"), json::parse(R"({"auto":{}})"));
  EXPECT_EQ(choice_of(R"("required")"), json::parse(R"({"any":{}})"));
  EXPECT_EQ(choice_of(R"({"type":"function","function":{"name":"f"}})"),
            json::parse(R"({"tool":{"name":"f"}})"));
  ir::Request r = decode(
      R"({"messages":[{"role":"user","content":[{"text":"x"}]}],"toolConfig":{"tools":[{"toolSpec":{"name":"f","inputSchema":{"json":{}}}}],"toolChoice":{"auto":{}}}})");
  EXPECT_EQ(r.tool_choice->kind, ir::ToolChoice::Kind::auto_);
}

TEST(BedrockRequest, MetadataWithNonStringValuesDroppedWithWarning) {
  ir::Request r = openai_request(
      R"({"model":"m","messages":[{"role":"user","content":"hi"}],"metadata":{"n":1}})");
  Warnings w;
  json out = encode(r, &w);
  EXPECT_EQ(out.count("requestMetadata"), 0u);
  EXPECT_TRUE(has_warning(w, "dropped_metadata", "$.requestMetadata")) << warnings_text(w);
  r.metadata = R"({"user":"u-1"})";
  EXPECT_EQ(encode(r)["requestMetadata"], json::parse(R"({"user":"u-1"})"));
}

TEST(BedrockRequest, BadToolNameIsRefusedBothWays) {
  Error e = decode_request_error(
      R"({"messages":[],"toolConfig":{"tools":[{"toolSpec":{"name":"get.weather","inputSchema":{"json":{}}}}]}})");
  EXPECT_EQ(e.path, "$.toolConfig.tools[0].toolSpec.name") << e.to_string();
  ir::Request r;
  r.tools.push_back(ir::ToolDefinition{std::string(65, 'a'), "", "{}", {}});
  Warnings w;
  auto out = codec().encode_request(r, w);
  ASSERT_FALSE(out.ok());
  EXPECT_EQ(out.error().path, "$.toolConfig.tools[0].toolSpec.name");
}

struct BadCase {
  const char* body;
  const char* path;
};

TEST(BedrockRequest, BadInputNamesItsPath) {
  const BadCase cases[] = {
      {R"([])", "$"},
      {R"({"system":[]})", "$"},
      {R"({"messages":{}})", "$.messages"},
      {R"({"messages":[{"role":"tool","content":[]}]})", "$.messages[0].role"},
      {R"({"messages":[{"role":"user"}]})", "$.messages[0]"},
      {R"({"messages":[{"role":"user","content":"hi"}]})", "$.messages[0].content"},
      {R"({"messages":[{"role":"user","content":[{"text":"a","image":{}}]}]})",
       "$.messages[0].content[0]"},
      {R"({"messages":[{"role":"user","content":[{}]}]})", "$.messages[0].content[0]"},
      {R"({"messages":[{"role":"user","content":[{"text":1}]}]})", "$.messages[0].content[0].text"},
      {R"({"messages":[{"role":"user","content":[{"image":{"format":"bmp","source":{"bytes":"x"}}}]}]})",
       "$.messages[0].content[0].image.format"},
      {R"({"messages":[{"role":"user","content":[{"toolResult":{"toolUseId":"nope","content":[]}}]}]})",
       "$.messages[0].content[0].toolResult.toolUseId"},
      {R"({"messages":[{"role":"assistant","content":[{"toolUse":{"toolUseId":"a","name":"f","input":{}}}]},{"role":"user","content":[{"toolResult":{"toolUseId":"a","content":[],"status":"maybe"}}]}]})",
       "$.messages[1].content[0].toolResult.status"},
      {R"({"messages":[{"role":"assistant","content":[{"toolUse":{"toolUseId":"","name":"f"}}]}]})",
       "$.messages[0].content[0].toolUse.toolUseId"},
      {R"({"messages":[{"role":"assistant","content":[{"reasoningContent":{"other":{}}}]}]})",
       "$.messages[0].content[0].reasoningContent.other"},
      {R"({"messages":[{"role":"user","content":[{"toolUse":{"toolUseId":"a","name":"f"}}]}]})",
       "$.messages[0].content[0].toolUse"},
      {R"({"messages":[],"inferenceConfig":{"maxTokens":"many"}})", "$.inferenceConfig.maxTokens"},
      {R"({"messages":[],"toolConfig":{"tools":[{"toolSpec":{"name":"f"}}]}})",
       "$.toolConfig.tools[0].toolSpec"},
      {R"({"messages":[],"toolConfig":{"tools":[{"toolSpec":{"name":"f","inputSchema":{"json":{"type":"string"}}}}]}})",
       "$.toolConfig.tools[0].toolSpec.inputSchema.json.type"},
      {R"({"messages":[],"toolConfig":{"tools":[],"toolChoice":{"none":{}}}})",
       "$.toolConfig.toolChoice.none"},
      {R"({"messages":[],"requestMetadata":{"n":1}})", "$.requestMetadata.n"},
      {R"({"messages":[],"x-unsupported-tool":1})", "$.x-unsupported-tool"},
  };
  for (const auto& c : cases) {
    Error e = decode_request_error(c.body);
    EXPECT_EQ(e.path, c.path) << c.body << "\n" << e.to_string();
    EXPECT_FALSE(e.message.empty());
  }
}

TEST(BedrockRequest, DuplicateKeyKeepsTheLastValueWithAWarning) {
  Warnings w;
  ir::Request r = decode(
      R"({"messages":[{"role":"user","content":[{"text":"first"}]}],"messages":[{"role":"user","content":[{"text":"second"}]}]})",
      &w);
  ASSERT_EQ(r.messages.size(), 1u);
  EXPECT_EQ(std::get<ir::TextPart>(r.messages[0].parts[0]).text, "second");
  EXPECT_TRUE(has_warning(w, "duplicate_key", "$.messages"));
}

TEST(BedrockRequest, BorrowedTranslationWritesTheSameBytes) {
  // translate_request's borrowed-IR path against decode + encode.
  for (const char* name : {"openai", "anthropic"}) {
    const Codec& other = *find_codec(name);
    Warnings w1, w2;
    auto direct = translate_request(codec(), other, kEveryField, w1);
    auto ir = codec().decode_request(kEveryField, w2);
    ASSERT_TRUE(direct.ok() && ir.ok());
    auto slow = other.encode_request(*ir, w2, EncodeOptions{.raw_json_verified = true});
    ASSERT_TRUE(slow.ok());
    EXPECT_EQ(*direct, *slow) << name;
  }
}

}  // namespace
}  // namespace toolwire::dialects::bedrock_test
