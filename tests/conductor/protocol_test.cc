// Envelope parsing, per-type validation and the replay buffer of the conductor.
#include <gtest/gtest.h>

#include <fstream>
#include <nlohmann/json.hpp>
#include <sstream>

#include "gateway/conductor/protocol.h"
#include "gateway/conductor/replay.h"

namespace toolwire::gateway::conductor {
namespace {

using json = nlohmann::json;

TEST(ConductorEnvelope, ParsesEveryClientType) {
  auto f = parse_frame(
      R"({"id":"a1","type":"session.start","sessionId":"","timestamp":"2026-01-01T00:00:00Z",
    "payload":{"tools":[{"name":"agent.photo","parameters":{"type":"object"}}],
    "options":{"maxToolRounds":3}}})");
  ASSERT_TRUE(f.frame) << f.error->message;
  EXPECT_EQ(f.frame->type, ClientType::session_start);
  EXPECT_EQ(f.frame->id, "a1");
  EXPECT_EQ(f.frame->payload["tools"][0]["name"], "agent.photo");

  auto u = parse_frame(R"({"type":"user.message","payload":{"text":"hi"}})");
  ASSERT_TRUE(u.frame);
  EXPECT_EQ(u.frame->type, ClientType::transcript_final);
  EXPECT_EQ(u.frame->type_name, "user.message");

  auto r = parse_frame(R"({"type":"tool.result","payload":{"callId":"c1","result":{"a":1}}})");
  ASSERT_TRUE(r.frame);
  EXPECT_EQ(r.frame->type, ClientType::tool_result);

  auto p = parse_frame(R"({"type":"ping"})");  // payload may be left out
  ASSERT_TRUE(p.frame);
  EXPECT_TRUE(p.frame->payload.is_object());
  EXPECT_TRUE(parse_frame(R"({"type":"session.cancel","payload":{}})").frame);
}

TEST(ConductorEnvelope, NamesEachProblem) {
  auto bad = parse_frame("{not json");
  ASSERT_TRUE(bad.error);
  EXPECT_EQ(bad.error->code, "invalid_json");

  auto arr = parse_frame("[1,2]");
  ASSERT_TRUE(arr.error);
  EXPECT_EQ(arr.error->code, "invalid_envelope");

  auto unknown = parse_frame(R"({"id":"x9","type":"tool.results"})");
  ASSERT_TRUE(unknown.error);
  EXPECT_EQ(unknown.error->code, "unknown_type");
  EXPECT_EQ(unknown.error->id, "x9");
  EXPECT_NE(unknown.error->message.find("tool.results"), std::string::npos);

  auto schema = parse_frame(R"({"type":"tool.result","payload":{"result":"x"}})");
  ASSERT_TRUE(schema.error);
  EXPECT_EQ(schema.error->code, "schema_violation");
  EXPECT_NE(schema.error->message.find("callId"), std::string::npos) << schema.error->message;

  auto name = parse_frame(R"({"type":"session.start","payload":{"tools":[{"name":"bad name!"}]}})");
  ASSERT_TRUE(name.error);
  EXPECT_EQ(name.error->code, "schema_violation");
  EXPECT_NE(name.error->message.find("/tools/0/name"), std::string::npos) << name.error->message;

  auto opt = parse_frame(R"({"type":"session.start","payload":{"options":{"partial":"words"}}})");
  ASSERT_TRUE(opt.error);
  EXPECT_EQ(opt.error->code, "schema_violation");
}

TEST(ConductorEnvelope, OutgoingEventsMatchTheirSchemas) {
  auto e = json::parse(
      make_event("s:1", "tool.call", "s", {{"callId", "c"}, {"name", "n"}, {"arguments", "{}"}}));
  EXPECT_EQ(check_server_event(e), "");
  EXPECT_EQ(e["timestamp"].get<std::string>().back(), 'Z');
  auto bad = json::parse(make_event("s:2", "state", "s", {{"state", "dancing"}}));
  EXPECT_NE(check_server_event(bad), "");
}

// docs/conductor.md shows every schema exactly as the server uses it.
TEST(ConductorEnvelope, DocsCarryTheSchemas) {
  std::ifstream in(std::string(TOOLWIRE_SOURCE_DIR) + "/docs/conductor.md");
  ASSERT_TRUE(in) << "docs/conductor.md missing";
  std::stringstream ss;
  ss << in.rdbuf();
  std::string doc = ss.str();
  EXPECT_NE(doc.find(std::string(envelope_schema())), std::string::npos) << "envelope";
  for (const auto* list : {&client_schemas(), &server_schemas()})
    for (const auto& [type, schema] : *list) EXPECT_NE(doc.find(schema), std::string::npos) << type;
}

TEST(ConductorReplay, ReplaysAfterAnEventInOrder) {
  ReplayBuffer b(10, 1 << 20);
  for (uint64_t s : {1, 2, 4, 7}) b.add(s, "e" + std::to_string(s));
  auto r = b.after(2);
  EXPECT_TRUE(r.complete);
  EXPECT_EQ(r.frames, (std::vector<std::string>{"e4", "e7"}));
  EXPECT_EQ(b.after(7).frames.size(), 0u);
  EXPECT_EQ(b.after(0).frames.size(), 4u);
  EXPECT_EQ(b.after(3).frames, (std::vector<std::string>{"e4", "e7"}));  // a gap in ids
}

TEST(ConductorReplay, BoundedByCountAndBytesAndReportsTheGap) {
  ReplayBuffer b(3, 1 << 20);
  for (uint64_t s = 1; s <= 5; ++s) b.add(s, "e" + std::to_string(s));
  EXPECT_EQ(b.size(), 3u);
  EXPECT_FALSE(b.after(1).complete);  // 2 was dropped
  EXPECT_TRUE(b.after(2).complete);
  EXPECT_EQ(b.after(1).frames, (std::vector<std::string>{"e3", "e4", "e5"}));

  ReplayBuffer small(100, 10);
  small.add(1, std::string(6, 'a'));
  small.add(2, std::string(6, 'b'));
  EXPECT_EQ(small.size(), 1u);
  EXPECT_LE(small.bytes(), 10u);
}

}  // namespace
}  // namespace toolwire::gateway::conductor
