// Responses `item_reference` items through the gateway to upstreams of other
// dialects (a real HTTP provider against a mock upstream): the earlier
// answer's message and function call, named by the ids the client got, reach
// the upstream in full and in order with the call's output, whole and
// streamed; an unknown id is a 400 naming it, and nothing goes upstream.
#include <gtest/gtest.h>

#include <regex>

#include "upstream_gateway.h"

namespace toolwire::testing {
namespace {

struct Mode {
  const char* upstream_codec;
  const char* profile;
  const char* base_path;
  bool stream;
  std::string name() const {
    return std::string(upstream_codec) + (stream ? "_streamed" : "_whole");
  }
};

void PrintTo(const Mode& m, std::ostream* os) { *os << m.name(); }

std::vector<ir::StreamEvent> call_turn() {
  return {ir::MessageStart{"up_1", "up-model", 0},
          ir::TextDelta{"Let me look."},
          ir::ToolCallStart{0, "call_1", "lookup", ""},
          ir::ToolCallDelta{0, R"({"q":"x"})"},
          ir::ToolCallEnd{0},
          ir::UsageEvent{ir::Usage{5, 7, {}, {}}},
          ir::Finish{ir::FinishReason{ir::FinishReason::Kind::tool_calls, "tool_calls"}}};
}

std::vector<ir::StreamEvent> text_turn() {
  return {ir::MessageStart{"up_2", "up-model", 0}, ir::TextDelta{"It is 42."},
          ir::UsageEvent{ir::Usage{9, 3, {}, {}}},
          ir::Finish{ir::FinishReason{ir::FinishReason::Kind::stop, "stop"}}};
}

// The first id of the form `<prefix>_...` in a body (whole or an SSE stream).
std::string first_id(const std::string& body, const std::string& prefix) {
  std::smatch m;
  std::regex re("\"id\":\"(" + prefix + "_[A-Za-z0-9_]+)\"");
  return std::regex_search(body, m, re) ? m[1].str() : std::string();
}

class ItemReference : public ::testing::TestWithParam<Mode> {
 protected:
  void SetUp() override { ASSERT_EQ(rig_.start(GetParam().profile, GetParam().base_path), ""); }
  void enqueue(const std::vector<ir::StreamEvent>& turn) {
    rig_.upstream.enqueue(GetParam().stream ? wire_.stream(turn) : wire_.whole(turn));
  }
  std::optional<HttpResponse> post(const std::string& input_json) {
    std::string body = R"({"model":"any","input":)" + input_json;
    if (GetParam().stream) body += R"(,"stream":true)";
    body += "}";
    RawClient c(rig_.port());
    if (!c.send(http_post("/v1/responses", body))) return std::nullopt;
    return c.read_response();
  }

  UpstreamGateway rig_;
  Upstream wire_{GetParam().upstream_codec};
};

TEST_P(ItemReference, EarlierTurnReachesTheUpstreamInOrder) {
  enqueue(call_turn());
  auto first = post(R"("find x")");
  ASSERT_TRUE(first.has_value());
  ASSERT_EQ(first->status, 200) << first->body;
  const std::string msg = first_id(first->body, "msg"), fc = first_id(first->body, "fc");
  ASSERT_FALSE(msg.empty()) << first->body;
  ASSERT_FALSE(fc.empty()) << first->body;

  enqueue(text_turn());
  auto second = post(R"([{"role":"user","content":"find x"},)"
                     R"({"type":"item_reference","id":")" +
                     msg + R"("},{"type":"item_reference","id":")" + fc +
                     R"("},{"type":"function_call_output","call_id":"call_1","output":"42"},)"
                     R"({"role":"user","content":"thanks"}])");
  ASSERT_TRUE(second.has_value());
  ASSERT_EQ(second->status, 200) << second->body;
  EXPECT_NE(second->body.find("It is 42."), std::string::npos) << second->body;
  EXPECT_TRUE(second->header("toolwire-warnings").find("dropped_unknown_part") == std::string::npos)
      << second->header("toolwire-warnings");

  auto reqs = rig_.upstream.requests();
  ASSERT_EQ(reqs.size(), 2u);
  ir::Request up = wire_.decode(reqs[1]);
  ASSERT_EQ(up.messages.size(), 4u) << reqs[1].body;
  EXPECT_EQ(up.messages[0].role, ir::Role::user);
  EXPECT_EQ(std::get<ir::TextPart>(up.messages[0].parts.at(0)).text, "find x");
  const auto& turn = up.messages[1];
  ASSERT_EQ(turn.role, ir::Role::assistant) << reqs[1].body;
  ASSERT_EQ(turn.parts.size(), 2u) << reqs[1].body;
  EXPECT_EQ(std::get<ir::TextPart>(turn.parts[0]).text, "Let me look.");
  const auto& call = std::get<ir::ToolCallPart>(turn.parts[1]);
  EXPECT_EQ(call.id, "call_1");
  EXPECT_EQ(call.name, "lookup");
  EXPECT_EQ(call.arguments, R"({"q":"x"})");
  ASSERT_EQ(up.messages[2].role, ir::Role::tool) << reqs[1].body;
  const auto& result = std::get<ir::ToolResultPart>(up.messages[2].parts.at(0));
  EXPECT_EQ(result.call_id, "call_1");
  EXPECT_EQ(std::get<ir::TextPart>(result.content.at(0)).text, "42");
  EXPECT_EQ(std::get<ir::TextPart>(up.messages[3].parts.at(0)).text, "thanks");
  // The references themselves never leave the gateway.
  EXPECT_EQ(reqs[1].body.find("item_reference"), std::string::npos) << reqs[1].body;
}

TEST_P(ItemReference, UnknownIdIsA400NamingIt) {
  auto r = post(R"([{"role":"user","content":"hi"},{"type":"item_reference","id":"msg_nope"}])");
  ASSERT_TRUE(r.has_value());
  EXPECT_EQ(r->status, 400) << r->body;
  auto j = nlohmann::json::parse(r->body, nullptr, false);
  ASSERT_TRUE(j.is_object()) << r->body;
  EXPECT_EQ(j["error"]["param"], "input[1]") << r->body;
  EXPECT_EQ(j["error"]["code"], "item_reference_not_found") << r->body;
  EXPECT_NE(j["error"]["message"].get<std::string>().find("msg_nope"), std::string::npos);
  EXPECT_TRUE(rig_.upstream.requests().empty());
}

INSTANTIATE_TEST_SUITE_P(Modes, ItemReference,
                         ::testing::Values(Mode{"openai_chat", "openai_compatible", "/v1", false},
                                           Mode{"openai_chat", "openai_compatible", "/v1", true},
                                           Mode{"anthropic_messages", "anthropic", "", false},
                                           Mode{"anthropic_messages", "anthropic", "", true}),
                         [](const auto& info) { return info.param.name(); });

}  // namespace
}  // namespace toolwire::testing
