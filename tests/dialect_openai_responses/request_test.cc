// openai_responses requests: golden fixtures, every input item and field,
// built-in tools and previous_response_id across dialects, warnings, bad input.
#include <gtest/gtest.h>

#include "test_util.h"

namespace toolwire::dialects::openai_responses_test {
namespace {

using nlohmann::json;

ir::Request decode_ok(const std::string& body, Warnings* warnings = nullptr) {
  Warnings local;
  auto r = responses().decode_request(body, warnings ? *warnings : local);
  EXPECT_TRUE(r.ok()) << r.error().to_string() << "\n" << body;
  return r.ok() ? std::move(r).value() : ir::Request{};
}

json encode_json(const ir::Request& req, Warnings* warnings = nullptr) {
  Warnings local;
  auto r = responses().encode_request(req, warnings ? *warnings : local);
  EXPECT_TRUE(r.ok()) << r.error().to_string();
  return r.ok() ? json::parse(*r) : json();
}

std::string decode_error(const std::string& body) {
  Warnings w;
  auto r = responses().decode_request(body, w);
  EXPECT_FALSE(r.ok()) << body;
  return r.ok() ? "" : r.error().to_string();
}

TEST(ResponsesRequestGolden, FunctionCallRequest) {
  const std::string body = read_fixture("openai-responses-function-call.request.json");
  ir::Request req = decode_ok(body);
  EXPECT_EQ(req.model, "gpt-5.4");
  ASSERT_EQ(req.messages.size(), 1u);
  EXPECT_EQ(req.messages[0].role, ir::Role::user);
  EXPECT_EQ(std::get<ir::TextPart>(req.messages[0].parts.at(0)).text,
            "What is the weather like in Boston today?");
  ASSERT_EQ(req.tools.size(), 1u);
  EXPECT_EQ(req.tools[0].name, "get_current_weather");
  EXPECT_EQ(req.tools[0].description, "Get the current weather in a given location");
  EXPECT_FALSE(req.tools[0].strict.has_value());
  json fixture = json::parse(body);
  EXPECT_EQ(json::parse(req.tools[0].input_schema), fixture["tools"][0]["parameters"]);
  ASSERT_TRUE(req.tool_choice);
  EXPECT_EQ(req.tool_choice->kind, ir::ToolChoiceKind::auto_);

  // Re-encoded: the same request, the string input written as one user message.
  json out = encode_json(req);
  json expected = fixture;
  expected["input"] = json::array({{{"role", "user"}, {"content", fixture["input"]}}});
  EXPECT_EQ(out, expected);
  EXPECT_EQ(encode_json(decode_ok(out.dump())), out);
}

TEST(ResponsesRequestGolden, StreamRequestWithInputItems) {
  const std::string body = read_fixture("openai-responses-stream-function-call.request.json");
  ir::Request req = decode_ok(body);
  EXPECT_TRUE(req.stream);
  EXPECT_EQ(req.model, "gpt-4.1");
  ASSERT_EQ(req.messages.size(), 1u);
  json fixture = json::parse(body);
  EXPECT_EQ(json::parse(req.tools.at(0).input_schema), fixture["tools"][0]["parameters"]);
  EXPECT_EQ(encode_json(req), fixture);  // already in the encoder's form
}

// A whole second-round request: instructions, a developer message, a user
// message with an image, the model's reasoning item and two function calls,
// their outputs (one an error, one with an image) and the assistant's answer.
const char* const kConversation = R"({
  "model": "o4-mini",
  "instructions": "Be brief.",
  "input": [
    {"role": "developer", "content": "Use metric units."},
    {"type": "message", "role": "user", "content": [
      {"type": "input_text", "text": "Weather here?"},
      {"type": "input_image", "image_url": "data:image/png;base64,iVBORw0KGgo=", "detail": "low"}]},
    {"type": "reasoning", "id": "rs_1", "summary": [
      {"type": "summary_text", "text": "Need the city."},
      {"type": "summary_text", "text": "Then the weather."}],
     "encrypted_content": "gAAAAB-opaque"},
    {"type": "function_call", "id": "fc_1", "call_id": "call_a", "name": "locate",
     "arguments": "{}", "status": "completed"},
    {"type": "function_call", "call_id": "call_b", "name": "get_weather",
     "arguments": "{\"city\":\"Paris\"}"},
    {"type": "function_call_output", "call_id": "call_a", "output": "Error: no GPS"},
    {"type": "function_call_output", "call_id": "call_b", "output": [
      {"type": "input_text", "text": "18C"},
      {"type": "input_image", "image_url": "https://example.com/map.png"}]},
    {"type": "message", "role": "assistant", "id": "msg_1", "status": "completed", "content": [
      {"type": "output_text", "text": "18C in Paris.", "annotations": []}]},
    {"role": "user", "content": "Thanks"}
  ],
  "tools": [{"type": "function", "name": "locate", "parameters": {"type": "object", "properties": {}}, "strict": true},
            {"type": "function", "name": "get_weather", "description": "d",
             "parameters": {"type": "object", "properties": {"city": {"type": "string"}}}}],
  "tool_choice": {"type": "function", "name": "get_weather"},
  "parallel_tool_calls": false,
  "max_output_tokens": 500,
  "temperature": 0.5,
  "top_p": 0.9,
  "metadata": {"user": "u1"},
  "store": false,
  "include": ["reasoning.encrypted_content"],
  "text": {"format": {"type": "json_schema", "name": "w", "schema": {"type": "object"}}},
  "reasoning": {"effort": "low"}
})";

TEST(ResponsesRequestRules, EveryInputItemAndField) {
  Warnings w;
  ir::Request req = decode_ok(kConversation, &w);
  EXPECT_TRUE(w.empty()) << warnings_text(w);
  ASSERT_EQ(req.system.size(), 2u);
  EXPECT_EQ(req.system[0].text, "Be brief.");
  EXPECT_FALSE(req.system[0].developer);
  EXPECT_EQ(req.system[1].text, "Use metric units.");
  EXPECT_TRUE(req.system[1].developer);

  ASSERT_EQ(req.messages.size(), 5u);
  const auto& user = req.messages[0];
  ASSERT_EQ(user.parts.size(), 2u);
  const auto& img = std::get<ir::ImagePart>(user.parts[1]);
  EXPECT_EQ(img.media_type, "image/png");
  EXPECT_EQ(img.data, "iVBORw0KGgo=");
  EXPECT_EQ(img.detail, "low");

  const auto& turn = req.messages[1];  // reasoning + both calls + the later text: one turn?
  EXPECT_EQ(turn.role, ir::Role::assistant);
  ASSERT_EQ(turn.parts.size(), 4u);
  const auto& r0 = std::get<ir::ThinkingPart>(turn.parts[0]);
  const auto& r1 = std::get<ir::ThinkingPart>(turn.parts[1]);
  EXPECT_EQ(r0.text, "Need the city.");
  EXPECT_EQ(r0.item_id, "rs_1");
  EXPECT_EQ(r0.encrypted_content, "gAAAAB-opaque");
  EXPECT_EQ(r1.text, "Then the weather.");
  EXPECT_EQ(r1.item_id, "rs_1");
  EXPECT_EQ(r1.encrypted_content, "");
  const auto& a = std::get<ir::ToolCallPart>(turn.parts[2]);
  EXPECT_EQ(a.id, "call_a");
  EXPECT_EQ(a.name, "locate");
  EXPECT_EQ(std::get<ir::ToolCallPart>(turn.parts[3]).arguments, "{\"city\":\"Paris\"}");

  const auto& results = req.messages[2];
  EXPECT_EQ(results.role, ir::Role::tool);
  ASSERT_EQ(results.parts.size(), 2u);
  const auto& err = std::get<ir::ToolResultPart>(results.parts[0]);
  EXPECT_TRUE(err.is_error);
  EXPECT_EQ(std::get<ir::TextPart>(err.content.at(0)).text, "no GPS");
  const auto& ok = std::get<ir::ToolResultPart>(results.parts[1]);
  EXPECT_FALSE(ok.is_error);
  ASSERT_EQ(ok.content.size(), 2u);
  EXPECT_EQ(std::get<ir::ImagePart>(ok.content[1]).url, "https://example.com/map.png");

  EXPECT_EQ(req.messages[3].role, ir::Role::assistant);
  EXPECT_EQ(std::get<ir::TextPart>(req.messages[3].parts.at(0)).text, "18C in Paris.");
  EXPECT_EQ(req.messages[4].role, ir::Role::user);

  EXPECT_EQ(req.tools[0].strict, std::optional<bool>(true));
  EXPECT_FALSE(req.tools[1].strict.has_value());
  EXPECT_EQ(req.tool_choice, (ir::ToolChoice{ir::ToolChoiceKind::tool, "get_weather"}));
  EXPECT_EQ(req.parallel_tool_calls, std::optional<bool>(false));
  EXPECT_EQ(req.max_tokens, std::optional<int64_t>(500));
  EXPECT_EQ(req.temperature, std::optional<double>(0.5));
  EXPECT_EQ(req.top_p, std::optional<double>(0.9));
  EXPECT_EQ(json::parse(req.metadata), json::parse(R"({"user":"u1"})"));
  std::vector<std::string> extra_keys;
  for (const auto& x : req.extra) extra_keys.push_back(x.key);
  EXPECT_EQ(extra_keys, (std::vector<std::string>{"store", "include"}));
  ASSERT_TRUE(req.reasoning);  // the IR's (common/reasoning.h)
  EXPECT_EQ(req.reasoning->effort, "low");
  ASSERT_TRUE(req.response_format);  // text.format
  EXPECT_EQ(req.response_format->kind, ir::ResponseFormatKind::json_schema);
  EXPECT_EQ(req.response_format->name, "w");

  // Same dialect: everything comes back; store:false reaches the upstream.
  Warnings w2;
  json out = encode_json(req, &w2);
  EXPECT_TRUE(w2.empty()) << warnings_text(w2);
  EXPECT_EQ(out["instructions"], "Be brief.");
  EXPECT_EQ(out["input"][0], json::parse(R"({"role":"developer","content":"Use metric units."})"));
  EXPECT_EQ(out["input"][2], json::parse(R"({"type":"reasoning","id":"rs_1","summary":[
      {"type":"summary_text","text":"Need the city."},{"type":"summary_text","text":"Then the weather."}],
      "encrypted_content":"gAAAAB-opaque"})"));
  EXPECT_EQ(out["input"][3], json::parse(R"({"type":"function_call","call_id":"call_a",
      "name":"locate","arguments":"{}"})"));
  EXPECT_EQ(out["input"][5], json::parse(R"({"type":"function_call_output","call_id":"call_a",
      "output":"Error: no GPS"})"));
  EXPECT_EQ(out["store"], false);
  EXPECT_EQ(out["text"]["format"]["type"], "json_schema");
  EXPECT_EQ(out["reasoning"]["effort"], "low");
  EXPECT_EQ(out["max_output_tokens"], 500);
  EXPECT_EQ(out["tool_choice"], json::parse(R"({"type":"function","name":"get_weather"})"));
  EXPECT_FALSE(out["tools"][1].contains("strict"));  // absent stays absent (Responses' default)
  EXPECT_EQ(encode_json(decode_ok(out.dump())), out);
}

TEST(ResponsesRequestRules, ToChatAndBackKeepsTheConversation) {
  Warnings w;
  auto oa = translate_request(responses(), chat(), kConversation, w);
  ASSERT_TRUE(oa.ok()) << oa.error().to_string();
  for (const char* key : {"store", "include"})
    EXPECT_TRUE(has_warning(w, "dropped_unknown_field", std::string("$.") + key))
        << key << warnings_text(w);
  json chat_json = json::parse(*oa);
  EXPECT_EQ(chat_json["reasoning_effort"], "low");                      // reasoning.effort
  EXPECT_EQ(chat_json["response_format"]["json_schema"]["name"], "w");  // text.format
  EXPECT_EQ(chat_json["messages"][0]["role"], "system");
  EXPECT_EQ(chat_json["messages"][1]["role"], "developer");
  EXPECT_EQ(chat_json["max_completion_tokens"], 500);
  // Reasoning without its Responses item cannot go back to Responses.
  Warnings back_w;
  auto back = translate_request(chat(), responses(), *oa, back_w);
  ASSERT_TRUE(back.ok()) << back.error().to_string();
  EXPECT_TRUE(has_warning(back_w, "dropped_reasoning_without_id")) << warnings_text(back_w);
  json b = json::parse(*back);
  EXPECT_EQ(b["instructions"], "Be brief.");
  EXPECT_EQ(b["tools"][1]["strict"], false);  // Chat's default, written out
  for (const auto& item : b["input"]) EXPECT_NE(item.value("type", ""), "reasoning") << item;
}

TEST(ResponsesRequestRules, BuiltInToolsPassSameDialectAndAreRefusedAcross) {
  const std::string body = R"({"model":"gpt-4.1","input":"news?","tools":[
      {"type":"web_search"},{"type":"function","name":"f","parameters":{"type":"object"}},
      {"type":"file_search","vector_store_ids":["vs_1"]}],"tool_choice":{"type":"web_search_preview"}})";
  ir::Request req = decode_ok(body);
  ASSERT_EQ(req.tools.size(), 1u);
  json out = encode_json(req);
  ASSERT_EQ(out["tools"].size(), 3u);
  EXPECT_EQ(out["tools"][1], json::parse(R"({"type":"web_search"})"));
  EXPECT_EQ(out["tools"][2]["vector_store_ids"][0], "vs_1");
  EXPECT_EQ(out["tool_choice"], json::parse(R"({"type":"web_search_preview"})"));
  for (const Codec* target : {&chat(), &anthropic()}) {
    Warnings w;
    auto r = translate_request(responses(), *target, body, w);
    ASSERT_FALSE(r.ok()) << *r;
    EXPECT_EQ(r.error().code, ErrorCode::invalid_argument);
    EXPECT_EQ(r.error().path, "$.tools");
    EXPECT_NE(r.error().message.find("web_search"), std::string::npos) << r.error().message;
    EXPECT_NE(r.error().message.find(target->name()), std::string::npos) << r.error().message;
  }
}

TEST(ResponsesRequestRules, PreviousResponseIdIsKeptAndRefusedAcross) {
  // The usual second round: only the outputs, the calls live in the stored response.
  const std::string body =
      R"({"model":"gpt-4.1","previous_response_id":"resp_abc","input":[
         {"type":"function_call_output","call_id":"call_x","output":"42"}]})";
  ir::Request req = decode_ok(body);
  ASSERT_EQ(req.extra.size(), 1u);
  EXPECT_EQ(req.extra[0].key, "previous_response_id");
  EXPECT_EQ(req.extra[0].raw_json, "\"resp_abc\"");
  EXPECT_EQ(req.messages.at(0).role, ir::Role::tool);
  EXPECT_EQ(encode_json(req)["previous_response_id"], "resp_abc");
  Warnings w;
  auto same = translate_request(responses(), responses(), body, w);
  ASSERT_TRUE(same.ok()) << same.error().to_string();
  EXPECT_EQ(json::parse(*same)["previous_response_id"], "resp_abc");

  for (const Codec* target : {&chat(), &anthropic()}) {
    auto r = translate_request(responses(), *target, body, w);
    ASSERT_FALSE(r.ok()) << *r;
    EXPECT_EQ(r.error().code, ErrorCode::failed_precondition);
    EXPECT_EQ(r.error().path, "$.previous_response_id");
    EXPECT_NE(r.error().message.find("resp_abc"), std::string::npos);
    WireError e = responses().encode_error(r.error());
    EXPECT_EQ(e.http_status, 400);
    EXPECT_EQ(json::parse(e.body)["error"]["code"], "previous_response_not_found");
  }
  // A stored conversation (Conversations API) likewise.
  Warnings cw;
  auto conv = translate_request(responses(), chat(),
                                R"({"model":"m","conversation":"conv_1","input":"next"})", cw);
  ASSERT_FALSE(conv.ok());
  EXPECT_EQ(conv.error().path, "$.conversation");
  // Without it, an output must answer a call of the input.
  std::string err = decode_error(
      R"({"model":"m","input":[{"type":"function_call_output","call_id":"call_x","output":"42"}]})");
  EXPECT_NE(err.find("$.input[0].call_id"), std::string::npos) << err;
  EXPECT_NE(err.find("call_x"), std::string::npos) << err;
}

TEST(ResponsesRequestRules, ToolChoiceShapes) {
  for (const char* c : {"auto", "none", "required"}) {
    ir::Request req = decode_ok(std::string(R"({"model":"m","tool_choice":")") + c + "\"}");
    EXPECT_EQ(encode_json(req)["tool_choice"], c);
  }
  ir::Request allowed =
      decode_ok(R"({"model":"m","tool_choice":{"type":"allowed_tools","mode":"auto","tools":[]}})");
  EXPECT_FALSE(allowed.tool_choice);
  EXPECT_EQ(encode_json(allowed)["tool_choice"]["type"], "allowed_tools");
  EXPECT_NE(decode_error(R"({"model":"m","tool_choice":"sometimes"})").find("$.tool_choice"),
            std::string::npos);
}

TEST(ResponsesRequestRules, WarningsForWhatResponsesCannotSay) {
  // From Chat: a stop sequence, a participant name, reasoning_content.
  const std::string body = R"({"model":"gpt-4o","stop":["END"],"messages":[
      {"role":"user","name":"alice","content":"hi"},
      {"role":"assistant","reasoning_content":"thinking","content":"hello"}]})";
  Warnings w;
  auto r = translate_request(chat(), responses(), body, w);
  ASSERT_TRUE(r.ok()) << r.error().to_string();
  EXPECT_TRUE(has_warning(w, "dropped_stop", "$.stop")) << warnings_text(w);
  EXPECT_TRUE(has_warning(w, "dropped_participant_name", "$.messages[0].name")) << warnings_text(w);
  EXPECT_TRUE(has_warning(w, "dropped_reasoning_without_id", "$.messages[1]")) << warnings_text(w);
  json out = json::parse(*r);
  EXPECT_FALSE(out.contains("stop"));
  EXPECT_EQ(out["input"], json::parse(R"([{"role":"user","content":"hi"},
      {"type":"message","role":"assistant","content":[{"type":"output_text","text":"hello","annotations":[]}]}])"));

  // Annotations and raw reasoning text are not kept.
  Warnings w2;
  decode_ok(R"({"model":"m","input":[
      {"type":"reasoning","id":"rs","summary":[],"content":[{"type":"reasoning_text","text":"x"}]},
      {"role":"assistant","content":[{"type":"output_text","text":"t",
        "annotations":[{"type":"url_citation","url":"https://a"}]}]}]})",
            &w2);
  EXPECT_TRUE(has_warning(w2, "dropped_reasoning_text", "$.input[0].content")) << warnings_text(w2);
  EXPECT_TRUE(has_warning(w2, "dropped_annotations", "$.input[1].content[0].annotations"))
      << warnings_text(w2);
}

TEST(ResponsesRequestRules, UnknownItemsAndPartsArePassedThroughRaw) {
  const std::string body = R"({"model":"m","input":[
      {"role":"user","content":[{"type":"input_text","text":"read"},
        {"type":"input_file","file_id":"file-1"}]},
      {"type":"web_search_call","id":"ws_1","status":"completed"},
      {"type":"item_reference","id":"msg_9"},
      {"role":"assistant","content":[{"type":"refusal","refusal":"no"},
        {"type":"function_call","note":"a content part named like an item"}]}]})";
  ir::Request req = decode_ok(body);
  json out = encode_json(req);
  json in = json::parse(body)["input"];
  EXPECT_EQ(out["input"][0]["content"][1], in[0]["content"][1]);
  EXPECT_EQ(out["input"][1], in[1]);
  EXPECT_EQ(out["input"][2], in[2]);
  EXPECT_EQ(out["input"][3]["content"], in[3]["content"]);  // a part stays a part (fuzz finding)
  ASSERT_EQ(out["input"].size(), 4u);
  EXPECT_EQ(encode_json(decode_ok(out.dump())), out);
  // Across: dropped with a warning each.
  Warnings w;
  auto r = translate_request(responses(), chat(), body, w);
  ASSERT_TRUE(r.ok()) << r.error().to_string();
  EXPECT_TRUE(has_warning(w, "dropped_unknown_part")) << warnings_text(w);
}

// An item_reference (also an item given by its id alone) is kept for a
// gateway's response store to resolve; the outputs after it may answer calls
// it names, so they are not refused for want of an earlier function_call.
TEST(ResponsesRequestRules, ItemReferencesAreKeptForAStore) {
  const std::string body = R"({"model":"m","input":[{"role":"user","content":"hi"},
      {"type":"item_reference","id":"fc_1"},{"id":"msg_2"},
      {"type":"function_call_output","call_id":"call_9","output":"ok"}]})";
  ir::Request req = decode_ok(body);
  ASSERT_EQ(req.messages.size(), 2u);
  ASSERT_EQ(req.messages[0].parts.size(), 3u);
  for (size_t i : {1u, 2u}) {
    const auto& u = std::get<ir::UnknownPart>(req.messages[0].parts[i]);
    EXPECT_EQ(u.type, "item:item_reference");
    EXPECT_EQ(u.dialect, "openai_responses");
  }
  EXPECT_EQ(std::get<ir::UnknownPart>(req.messages[0].parts[2]).raw_json, R"({"id":"msg_2"})");
  EXPECT_EQ(std::get<ir::ToolResultPart>(req.messages[1].parts[0]).call_id, "call_9");
  // Without a reference the same output is refused.
  EXPECT_NE(decode_error(R"({"model":"m","input":[{"role":"user","content":"hi"},
      {"type":"function_call_output","call_id":"call_9","output":"ok"}]})")
                .find("$.input[1].call_id"),
            std::string::npos);
  EXPECT_NE(decode_error(R"({"model":"m","input":[{"type":"item_reference","id":7}]})")
                .find("$.input[0].id"),
            std::string::npos);
  EXPECT_NE(
      decode_error(R"({"model":"m","input":[{"type":"item_reference"}]})").find("$.input[0].id"),
      std::string::npos);
}

TEST(ResponsesRequestRules, DuplicateKeysAndReservedNames) {
  Warnings w;
  ir::Request req = decode_ok(R"({"model":"a","model":"b","x-provider-tool":1})", &w);
  EXPECT_EQ(req.model, "b");
  EXPECT_TRUE(has_warning(w, "duplicate_key", "$.model")) << warnings_text(w);
  EXPECT_TRUE(has_warning(w, "dropped_reserved_field", "$.x-provider-tool")) << warnings_text(w);
}

TEST(ResponsesRequestBadInput, ErrorsNameThePath) {
  struct Case {
    const char* body;
    const char* path;
  };
  const Case cases[] = {
      {R"({"input":"x"})", "$: missing required field 'model'"},
      {R"({"model":"m","input":5})", "$.input"},
      {R"({"model":"m","input":[{"role":"robot","content":"x"}]})", "$.input[0].role"},
      {R"({"model":"m","input":[{"role":"user"}]})", "$.input[0].content"},
      {R"({"model":"m","input":[{"role":"user","content":[{"text":"x"}]}]})",
       "$.input[0].content[0].type"},
      {R"({"model":"m","input":[{"role":"system","content":[{"type":"input_image","image_url":"u"}]}]})",
       "$.input[0].content[0].type"},
      {R"({"model":"m","input":[{"type":"function_call","name":"f"}]})", "$.input[0].call_id"},
      {R"({"model":"m","input":[{"type":"function_call","call_id":"c"}]})", "$.input[0].name"},
      {R"({"model":"m","input":[{"type":"function_call","call_id":"c","name":"f","arguments":{}}]})",
       "$.input[0].arguments"},
      {R"({"model":"m","input":[{"type":"function_call","call_id":"c","name":"f"},
          {"type":"function_call_output","call_id":"c"}]})",
       "$.input[1].output"},
      {R"({"model":"m","input":[{"type":"reasoning","summary":[{"type":"summary_text"}]}]})",
       "$.input[0].summary[0].text"},
      {R"({"model":"m","tools":[{"type":"function"}]})", "$.tools[0].name"},
      {R"({"model":"m","tools":[{"name":"f"}]})", "$.tools[0].type"},
      {R"({"model":"m","tools":[{"type":"function","name":"bad name"}]})", "$.tools[0].name"},
      {R"({"model":"m","tools":[{"type":"function","name":"f","parameters":{"type":"string"}}]})",
       "$.tools[0].parameters"},
      {R"({"model":"m","max_output_tokens":"5"})", "$.max_output_tokens"},
      {R"({"model":"m","instructions":3})", "$.instructions"},
      {R"({"model":"m","previous_response_id":7})", "$.previous_response_id"},
      {R"({"model":"m","metadata":[]})", "$.metadata"},
      {R"({"model":"m",)", "malformed JSON"},
  };
  for (const auto& c : cases) {
    std::string err = decode_error(c.body);
    EXPECT_NE(err.find(c.path), std::string::npos) << c.body << "\n -> " << err;
  }
}

TEST(ResponsesRequestBadInput, EveryPrefixOfAFixtureFailsCleanly) {
  const std::string body = kConversation;
  for (size_t n = 0; n < body.size(); ++n) {
    Warnings w;
    auto r = responses().decode_request(std::string_view(body).substr(0, n), w);
    EXPECT_FALSE(r.ok()) << n;
  }
}

TEST(ResponsesDialect, RegisteredWithItsAliasPathAndToolRule) {
  const Dialect* d = find_dialect("responses");
  ASSERT_NE(d, nullptr);
  EXPECT_EQ(d->name, "openai_responses");
  EXPECT_EQ(find_dialect("openai_responses"), d);
  EXPECT_EQ(&d->codec(), &responses());
  EXPECT_EQ(url_for("https://api.openai.com/v1/", d->path, "gpt-4.1"),
            "https://api.openai.com/v1/responses");
  EXPECT_EQ(d->stream_error_code("rate_limit_exceeded"), ErrorCode::resource_exhausted);
  ASSERT_NE(d->export_tool, nullptr);
  ir::ToolDefinition def{"get_weather", "d", R"({"type":"object","properties":{}})", {}};
  auto t = d->export_tool(def, {});
  ASSERT_TRUE(t.ok());
  EXPECT_EQ(json::parse(*t), json::parse(R"({"type":"function","name":"get_weather",
      "description":"d","parameters":{"type":"object","properties":{}},"strict":false})"));
  EXPECT_NE(dialect_names([](const Dialect& x) { return x.has_codec(); }).find("responses"),
            std::string::npos);
}

}  // namespace
}  // namespace toolwire::dialects::openai_responses_test
