// The stored-answer codec: lossless for every part type, and every
// truncation or corruption of its bytes read back as "nothing stored".
#include <gtest/gtest.h>

#include "gateway/shared_state/conversation_codec.h"

namespace toolwire::gateway::shared_state {
namespace {

std::vector<ir::Message> sample() {
  std::vector<ir::Message> m(4);
  m[0].role = ir::Role::user;
  m[0].name = "ann";
  m[0].parts = {ir::TextPart{"hello \x00 there"},
                ir::ImagePart{"", "image/png", "iVBORw0KGgo=", "low"}};
  m[1].role = ir::Role::assistant;
  m[1].parts = {ir::ThinkingPart{"hmm", "sig", false, "", "rs_1", "enc"},
                ir::ToolCallPart{"call_1", "get_weather", R"({"city":"Lyon"})", true, "ts"},
                ir::ToolCallPart{"call_2", "broken", "{not json", false, ""}};
  m[2].role = ir::Role::tool;
  ir::ToolResultPart r{"call_1", {}, true};
  r.content.push_back(ir::TextPart{"12 C"});
  r.content.push_back(ir::UnknownPart{"anthropic_messages", "document", R"({"type":"document"})"});
  m[2].parts = {r};
  m[3].role = ir::Role::assistant;
  m[3].parts = {ir::UnknownPart{"openai_responses", "web_search_call", "{}"}};
  return m;
}

TEST(ConversationCodec, RoundTrip) {
  auto m = sample();
  auto back = decode_messages(encode_messages(m));
  ASSERT_TRUE(back);
  EXPECT_EQ(*back, m);
  auto parts = decode_parts(encode_parts(m[1].parts));
  ASSERT_TRUE(parts);
  EXPECT_EQ(*parts, m[1].parts);
  EXPECT_EQ(decode_messages(encode_messages({})), std::vector<ir::Message>{});
}

TEST(ConversationCodec, TruncatedOrCorruptIsNothing) {
  std::string bytes = encode_messages(sample());
  for (size_t n = 0; n < bytes.size(); ++n)
    EXPECT_FALSE(decode_messages(std::string_view(bytes).substr(0, n))) << n;
  EXPECT_FALSE(decode_messages(bytes + "x"));
  // Every byte flipped: never a crash; a count or a length out of range is refused.
  for (size_t i = 0; i < bytes.size(); ++i) {
    std::string b = bytes;
    b[i] = static_cast<char>(b[i] ^ 0xff);
    (void)decode_messages(b);
  }
  std::string huge = bytes.substr(0, 2) + std::string("\xff\xff\xff\x7f", 4);
  EXPECT_FALSE(decode_messages(huge));
  EXPECT_FALSE(decode_parts(bytes));  // a conversation is not an item
  EXPECT_FALSE(decode_messages("not ours at all"));
}

}  // namespace
}  // namespace toolwire::gateway::shared_state
