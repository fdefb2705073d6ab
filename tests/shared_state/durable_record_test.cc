// A conductor session's record in Redis (gateway/conductor/durable.h):
// lossless, and anything missing or malformed read back as "no session".
#include <gtest/gtest.h>

#include "gateway/conductor/durable.h"
#include "toolwire/tools/registry.h"

namespace toolwire::gateway::conductor {
namespace {

std::map<std::string, std::string> as_map(const std::vector<std::string>& kv) {
  std::map<std::string, std::string> m;
  for (size_t i = 0; i + 1 < kv.size(); i += 2) m[kv[i]] = kv[i + 1];
  return m;
}

SessionRecord sample() {
  SessionRecord r;
  r.start = {{"model", "assistant"}, {"tools", nlohmann::json::array({{{"name", "get_battery"}}})}};
  r.key = "a";
  r.token_hash = token_hash("secret");
  r.seq = 7;
  r.replay = {{6, R"({"type":"state"})"}, {7, R"({"type":"tool.call"})"}};
  r.history = {ir::Message{ir::Role::user, {ir::TextPart{"hi"}}, {}},
               ir::Message{ir::Role::assistant, {ir::TextPart{"hello"}}, {}}};
  r.in_turn = true;
  r.turn = {ir::Message{ir::Role::user, {ir::TextPart{"battery?"}}, {}}};
  r.rounds = 1;
  r.text = "Let me look.";
  r.calls = {ir::ToolCallPart{"call_1", "get_battery", "{}", true, ""},
             ir::ToolCallPart{"call_2", "read", R"({"path":"a"})", true, ""}};
  r.remote = {true, false};
  r.deadlines = {1700000000000, 0};
  r.results = {tools::error_result("call_2", "boom")};
  return r;
}

TEST(DurableRecord, RoundTrip) {
  SessionRecord r = sample();
  auto back = decode_record(as_map(encode_record(r)));
  ASSERT_TRUE(back);
  EXPECT_EQ(back->start, r.start);
  EXPECT_EQ(back->key, "a");
  EXPECT_EQ(back->token_hash, token_hash("secret"));
  EXPECT_NE(back->token_hash, "secret");  // never the token itself
  EXPECT_EQ(back->seq, 7u);
  EXPECT_EQ(back->replay, r.replay);
  EXPECT_EQ(back->history, r.history);
  EXPECT_TRUE(back->in_turn);
  EXPECT_TRUE(back->resumable);
  EXPECT_EQ(back->turn, r.turn);
  EXPECT_EQ(back->rounds, 1);
  EXPECT_EQ(back->text, "Let me look.");
  EXPECT_EQ(back->calls, r.calls);
  EXPECT_EQ(back->remote, r.remote);
  EXPECT_EQ(back->deadlines, r.deadlines);
  EXPECT_EQ(back->results, r.results);
}

TEST(DurableRecord, MalformedIsNoSession) {
  auto good = as_map(encode_record(sample()));
  for (const auto& [name, value] : good) {
    auto missing = good;
    missing.erase(name);
    EXPECT_FALSE(decode_record(missing)) << name;
  }
  for (const char* meta : {"", "{", "[]", R"({"v":2})", R"({"v":1,"start":{}})",
                           R"({"v":1,"start":[],"seq":1,"in_turn":false,"rounds":0,
                               "resumable":true,"text":"","replay":[],"remote":[],"deadlines":[]})"}) {
    auto bad = good;
    bad["meta"] = meta;
    EXPECT_FALSE(decode_record(bad)) << meta;
  }
  auto bad = good;
  bad["calls"] = bad["results"];  // results where calls belong
  EXPECT_FALSE(decode_record(bad));
  bad = good;
  bad["history"] = good["history"].substr(0, good["history"].size() / 2);
  EXPECT_FALSE(decode_record(bad));
}

}  // namespace
}  // namespace toolwire::gateway::conductor
