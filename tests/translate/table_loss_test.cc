// The loss rows of docs/translation.md ("What a pair cannot express"), one
// test per row, run for every dialect of the dialect list (table_kit.h): a
// dialect that cannot express the concept gives the documented warning (or
// error); one that can keeps it.
#include "table_kit.h"

namespace toolwire::testing {
namespace {

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
  const dialects::Codec& gemini = *dialects::find_codec("gemini");
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
  // A value that is not a string: Bedrock drops it too; Anthropic, whose
  // metadata takes user_id alone, keeps that and drops the other member.
  r.metadata = R"({"user_id":"u1","n":1})";
  Warnings w2;
  json wire2 = encode(r, w2);
  expect_loss(w2, {"gemini", "bedrock_converse", "anthropic_messages"}, "dropped_metadata");
  if (name() == "anthropic_messages") {
    EXPECT_EQ(wire2["metadata"], json::parse(R"({"user_id":"u1"})")) << wire2.dump();
  }
  // An OpenAI-style free map: nothing of it is Anthropic's.
  r.metadata = R"({"tenant":"a"})";
  Warnings w3;
  json wire3 = encode(r, w3);
  if (name() == "anthropic_messages") {
    EXPECT_FALSE(wire3.contains("metadata")) << wire3.dump();
    expect_loss(w3, {"anthropic_messages"}, "dropped_metadata");
  }
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
  const dialects::Dialect& source = *dialects::find_dialect("anthropic_messages");
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
  const dialects::Dialect& source = *dialects::find_dialect("openai_chat");
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
  const dialects::Codec& responses = *dialects::find_codec("openai_responses");
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
  const dialects::Codec& anthropic = *dialects::find_codec("anthropic_messages");
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
  const dialects::Codec& responses = *dialects::find_codec("openai_responses");
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

}  // namespace
}  // namespace toolwire::testing
