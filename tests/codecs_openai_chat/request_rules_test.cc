// What the target API is sure to refuse never leaves the codecs silently:
// tool names outside a dialect's rule and non-object input schemas are
// refused (toolwire/codec/tool_rules.h, codecs/common/tool_schema.h).
#include <gtest/gtest.h>

#include <nlohmann/json.hpp>
#include <string>

#include "test_util.h"
#include "toolwire/codec/tool_rules.h"

namespace toolwire::codec::openai_chat_test {
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
  auto r =
      translate_request(openai(), anthropic(), with_tool("bad name!", R"({"type":"object"})"), w);
  ASSERT_FALSE(r.ok());
  EXPECT_EQ(r.error().code, ErrorCode::invalid_argument);
  EXPECT_EQ(r.error().path, "$.tools[0].name");
  EXPECT_NE(r.error().message.find("invalid tool name 'bad name!'"), std::string::npos)
      << r.error().message;
  EXPECT_NE(r.error().message.find("^[a-zA-Z0-9_-]{1,128}$"), std::string::npos)
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

}  // namespace
}  // namespace toolwire::codec::openai_chat_test
