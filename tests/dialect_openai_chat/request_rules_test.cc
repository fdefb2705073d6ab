// What the target API is sure to refuse never leaves the codecs silently:
// tool names outside a dialect's rule and non-object input schemas are
// refused (toolwire/dialects/tool_rules.h, dialects/common/tool_schema.h), and a
// top-level key given twice keeps its last value with a `duplicate_key`
// warning (dialects/common/duplicate_keys.h).
#include <gtest/gtest.h>

#include <nlohmann/json.hpp>
#include <string>

#include "test_util.h"
#include "toolwire/dialects/tool_rules.h"

namespace toolwire::dialects::openai_chat_test {
namespace {

const Codec& anthropic() { return *find_codec("anthropic_messages"); }

std::string with_tool(const std::string& name, const std::string& schema) {
  return R"({"model":"m","messages":[{"role":"user","content":"hi"}],)"
         R"("tools":[{"type":"function","function":{"name":")" +
         name + R"(","parameters":)" + schema + "}}]}";
}

ir::Request hand_built(const std::string& name, const std::string& schema) {
  ir::Request r;
  r.model = "m";
  r.messages.push_back(ir::Message{ir::Role::user, {ir::TextPart{"hi"}}, {}});
  r.tools.push_back(ir::ToolDefinition{name, "", schema, std::nullopt});
  return r;
}

TEST(ToolNameRules, PerDialect) {
  EXPECT_TRUE(is_valid_tool_name("openai_chat", "get_weather-2"));
  EXPECT_FALSE(is_valid_tool_name("openai_chat", "bad name!"));
  EXPECT_FALSE(is_valid_tool_name("openai_chat", "a.b"));
  EXPECT_FALSE(is_valid_tool_name("openai_chat", ""));
  EXPECT_TRUE(is_valid_tool_name("openai_chat", std::string(64, 'a')));
  EXPECT_FALSE(is_valid_tool_name("openai_chat", std::string(65, 'a')));
  EXPECT_TRUE(is_valid_tool_name("anthropic_messages", std::string(128, 'a')));
  EXPECT_FALSE(is_valid_tool_name("anthropic_messages", std::string(129, 'a')));
  EXPECT_FALSE(is_valid_tool_name("anthropic_messages", "bad name!"));
}

TEST(ToolNameRules, TranslationRefusesABadNameBeforeItLeaves) {
  Warnings w;
  // The client's own API refuses it already: the decoder says so, with the
  // client's rule and path, before any encoder runs.
  auto r =
      translate_request(openai(), anthropic(), with_tool("bad name!", R"({"type":"object"})"), w);
  ASSERT_FALSE(r.ok());
  EXPECT_EQ(r.error().code, ErrorCode::invalid_argument);
  EXPECT_EQ(r.error().path, "$.tools[0].function.name");
  EXPECT_NE(r.error().message.find("invalid tool name 'bad name!'"), std::string::npos)
      << r.error().message;
  EXPECT_NE(r.error().message.find("^[a-zA-Z0-9_-]{1,64}$"), std::string::npos)
      << r.error().message;
  // Same dialect: OpenAI's own rule.
  r = translate_request(openai(), openai(), with_tool("bad name!", R"({"type":"object"})"), w);
  ASSERT_FALSE(r.ok());
  EXPECT_EQ(r.error().path, "$.tools[0].function.name");
}

TEST(ToolNameRules, LengthLimitIsTheTargets) {
  // 100 characters: Anthropic takes it, OpenAI does not.
  const std::string name(100, 'n');
  const std::string body =
      R"({"model":"m","max_tokens":5,"messages":[{"role":"user","content":"hi"}],)"
      R"("tools":[{"name":")" +
      name + R"(","input_schema":{"type":"object"}}]})";
  Warnings w;
  EXPECT_TRUE(translate_request(anthropic(), anthropic(), body, w).ok());
  auto r = translate_request(anthropic(), openai(), body, w);
  ASSERT_FALSE(r.ok());
  EXPECT_EQ(r.error().path, "$.tools[0].function.name");
  EXPECT_NE(r.error().message.find("1 to 64"), std::string::npos) << r.error().message;
}

TEST(ToolNameRules, EncoderRefusesAHandBuiltIr) {
  Warnings w;
  auto r = openai().encode_request(hand_built("has space", R"({"type":"object"})"), w);
  ASSERT_FALSE(r.ok());
  EXPECT_EQ(r.error().path, "$.tools[0].function.name");
  r = anthropic().encode_request(hand_built("has space", R"({"type":"object"})"), w);
  ASSERT_FALSE(r.ok());
  EXPECT_EQ(r.error().path, "$.tools[0].name");
  EXPECT_TRUE(openai().encode_request(hand_built("ok_name", R"({"type":"object"})"), w).ok());
}

TEST(ToolSchemaRules, DecoderRefusesANonObjectType) {
  Warnings w;
  auto r = openai().decode_request(with_tool("f", R"({"type":"string"})"), w);
  ASSERT_FALSE(r.ok());
  EXPECT_EQ(r.error().code, ErrorCode::invalid_argument);
  EXPECT_EQ(r.error().path, "$.tools[0].function.parameters.type");
  EXPECT_NE(r.error().message.find(R"(must be of type "object")"), std::string::npos)
      << r.error().message;
  EXPECT_NE(r.error().message.find(R"(got "string")"), std::string::npos) << r.error().message;
  r = openai().decode_request(with_tool("f", R"({"type":["object","null"]})"), w);
  ASSERT_FALSE(r.ok());
  EXPECT_NE(r.error().message.find("got array"), std::string::npos) << r.error().message;
  r = openai().decode_request(with_tool("f", R"("x")"), w);
  ASSERT_FALSE(r.ok());
  EXPECT_EQ(r.error().path, "$.tools[0].function.parameters");
  // An object schema without "type" is an object schema.
  EXPECT_TRUE(openai().decode_request(with_tool("f", R"({"properties":{}})"), w).ok());
}

TEST(ToolSchemaRules, EncoderChecksAHandBuiltSchema) {
  Warnings w;
  auto r = anthropic().encode_request(hand_built("f", R"({"type":"string"})"), w);
  ASSERT_FALSE(r.ok());
  EXPECT_EQ(r.error().path, "$.tools[0].input_schema.type");
  r = openai().encode_request(hand_built("f", R"({"type":"string"})"), w);
  ASSERT_FALSE(r.ok());
  EXPECT_EQ(r.error().path, "$.tools[0].function.parameters.type");
  r = openai().encode_request(hand_built("f", R"({"type":)"), w);
  ASSERT_FALSE(r.ok());
  EXPECT_EQ(r.error().path, "$.tools[0].function.parameters");
}

// The encoder remembers the schema texts it found good (the same tools come
// with every request); only good ones: a bad text is refused every time,
// also after good ones and after the memo starts again.
TEST(ToolSchemaRules, TheEncodersMemoOfGoodSchemasNeverLetsABadOneThrough) {
  Warnings w;
  const std::string good = R"({"type":"object","properties":{"city":{"type":"string"}}})";
  for (int i = 0; i < 3; ++i)
    ASSERT_TRUE(anthropic().encode_request(hand_built("f", good), w).ok());
  for (int i = 0; i < 3; ++i) {
    auto r = anthropic().encode_request(hand_built("f", R"({"type":"string"})"), w);
    ASSERT_FALSE(r.ok());
    EXPECT_EQ(r.error().path, "$.tools[0].input_schema.type");
  }
  // Past the memo's bound (1,024 texts) it starts again, good texts still good.
  for (int i = 0; i < 1100; ++i) {
    std::string s = R"({"type":"object","description":")" + std::to_string(i) + R"("})";
    ASSERT_TRUE(anthropic().encode_request(hand_built("f", s), w).ok()) << i;
  }
  EXPECT_TRUE(anthropic().encode_request(hand_built("f", good), w).ok());
  EXPECT_FALSE(anthropic().encode_request(hand_built("f", R"({"type":)"), w).ok());
}

TEST(DuplicateKeys, LastValueWinsWithAWarning) {
  Warnings w;
  auto r = openai().decode_request(
      R"({"model":"first","messages":[{"role":"user","content":"hi"}],"model":"second"})", w);
  ASSERT_TRUE(r.ok()) << r.error().to_string();
  EXPECT_EQ(r->model, "second");
  ASSERT_EQ(w.size(), 1u);
  EXPECT_EQ(w[0].code, "duplicate_key");
  EXPECT_EQ(w[0].path, "$.model");
}

TEST(DuplicateKeys, ListsAndUnknownFieldsAreReplacedNotMerged) {
  Warnings w;
  auto r = openai().decode_request(
      R"({"model":"m","messages":[{"role":"user","content":"hi"}],"user":"a","stop":["x"],)"
      R"("tools":[{"type":"function","function":{"name":"one"}}],"user":"b","stop":"y",)"
      R"("tools":[{"type":"function","function":{"name":"two"}}]})",
      w);
  ASSERT_TRUE(r.ok()) << r.error().to_string();
  ASSERT_EQ(r->tools.size(), 1u);
  EXPECT_EQ(r->tools[0].name, "two");
  ASSERT_EQ(r->stop.size(), 1u);
  EXPECT_EQ(r->stop[0], "y");
  ASSERT_EQ(r->extra.size(), 1u);
  EXPECT_EQ(r->extra[0].raw_json, R"("b")");
  ASSERT_EQ(w.size(), 3u);
  EXPECT_EQ(w[0].path, "$.user");
  EXPECT_EQ(w[1].path, "$.stop");
  EXPECT_EQ(w[2].path, "$.tools");
  // Translated: one "user" key out, and the warnings travel with it.
  Warnings tw;
  auto out = translate_request(openai(), openai(),
                               R"({"model":"m","messages":[],"user":"a","user":"b"})", tw);
  ASSERT_TRUE(out.ok());
  EXPECT_EQ(nlohmann::json::parse(*out)["user"], "b");
  EXPECT_EQ(out->find("\"user\""), out->rfind("\"user\"")) << *out;
  ASSERT_EQ(tw.size(), 1u);
  EXPECT_EQ(tw[0].code, "duplicate_key");
}

TEST(DuplicateKeys, DistinctKeysNeverWarn) {
  // Many different keys, some of which share a bit of the seen-key set.
  std::string body = R"({"model":"m","messages":[])";
  for (int i = 0; i < 200; ++i) body += ",\"k" + std::to_string(i) + "\":" + std::to_string(i);
  body += "}";
  Warnings w;
  auto r = openai().decode_request(body, w);
  ASSERT_TRUE(r.ok());
  EXPECT_TRUE(w.empty()) << w.size() << " " << w[0].path;
  EXPECT_EQ(r->extra.size(), 200u);
}

}  // namespace
}  // namespace toolwire::dialects::openai_chat_test
