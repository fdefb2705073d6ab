// The gateway's response store behind previous_response_id, with the error
// writer of the dialect that has one.
#include <gtest/gtest.h>

#include "gateway/routes/previous_response.h"
#include "gateway/routes/response_store.h"
#include "toolwire/dialects/dialect.h"

namespace toolwire::gateway::routes {
namespace {

dialects::StoreErrorWriter store_error() {
  return dialects::find_dialect("responses")->ingress.response_store;
}

ir::Message text_message(ir::Role role, std::string text) {
  ir::Message m;
  m.role = role;
  m.parts.emplace_back(ir::TextPart{std::move(text)});
  return m;
}

TEST(ResponseStore, LeastRecentlyUsedGoesFirst) {
  ResponseStore store;
  EXPECT_FALSE(store.enabled());
  store.put("resp_a", {text_message(ir::Role::user, "a")});
  EXPECT_EQ(store.size(), 0u) << "a disabled store keeps nothing";
  store.set_limits(2, 1 << 20);
  ASSERT_TRUE(store.enabled());
  store.put("resp_a", {text_message(ir::Role::user, "a")});
  store.put("resp_b", {text_message(ir::Role::user, "b")});
  ASSERT_NE(store.find("resp_a"), nullptr);  // a is now the most recent
  store.put("resp_c", {text_message(ir::Role::user, "c")});
  EXPECT_EQ(store.size(), 2u);
  EXPECT_EQ(store.find("resp_b"), nullptr);
  ASSERT_NE(store.find("resp_a"), nullptr);
  ASSERT_NE(store.find("resp_c"), nullptr);
  EXPECT_EQ(store.find("resp_a")->size(), 1u);
}

TEST(ResponseStore, ByteBound) {
  ResponseStore store;
  store.set_limits(100, 2200);
  std::string big(900, 'x');
  store.put("resp_1", {text_message(ir::Role::user, big)});
  store.put("resp_2", {text_message(ir::Role::user, big)});
  EXPECT_EQ(store.size(), 2u);
  EXPECT_LE(store.bytes(), 2200u);
  store.put("resp_3", {text_message(ir::Role::user, big)});
  EXPECT_EQ(store.size(), 2u);
  EXPECT_EQ(store.find("resp_1"), nullptr);
  EXPECT_LE(store.bytes(), 2200u);
  store.put("resp_huge", {text_message(ir::Role::user, std::string(5000, 'y'))});
  EXPECT_EQ(store.find("resp_huge"), nullptr) << "bigger than the whole bound: not kept";
  EXPECT_EQ(store.size(), 2u);
  // Replacing an id keeps one entry and its new size.
  store.put("resp_3", {text_message(ir::Role::user, "small")});
  EXPECT_EQ(store.size(), 2u);
  EXPECT_LT(store.bytes(), 1200u);
}

TEST(ResponseStore, NewIdsDiffer) {
  std::string a = new_response_id(), b = new_response_id();
  EXPECT_TRUE(a.starts_with("resp_")) << a;
  EXPECT_EQ(a.size(), 5u + 48u);
  EXPECT_NE(a, b);
}

ir::Request request_with(std::vector<ir::ExtraField> extra) {
  ir::Request r;
  r.model = "gpt-test";
  r.messages.push_back(text_message(ir::Role::user, "next"));
  r.extra = std::move(extra);
  return r;
}

TEST(PreviousResponse, PrependsTheStoredConversation) {
  ResponseStore store;
  store.set_limits(10, 1 << 20);
  store.put("resp_1",
            {text_message(ir::Role::user, "first"), text_message(ir::Role::assistant, "answer")});
  ir::Request r = request_with({{"previous_response_id", "\"resp_1\""}, {"top_k", "3"}});
  ResponseRecord rec;
  EXPECT_FALSE(apply_previous_response(store, r, rec, {}, store_error()).has_value());
  ASSERT_EQ(r.messages.size(), 3u);
  EXPECT_EQ(std::get<ir::TextPart>(r.messages[0].parts[0]).text, "first");
  EXPECT_EQ(std::get<ir::TextPart>(r.messages[1].parts[0]).text, "answer");
  EXPECT_EQ(std::get<ir::TextPart>(r.messages[2].parts[0]).text, "next");
  // The id is the gateway's business: it does not go upstream.
  ASSERT_EQ(r.extra.size(), 1u);
  EXPECT_EQ(r.extra[0].key, "top_k");
  EXPECT_TRUE(rec.store);
  EXPECT_EQ(rec.input.size(), 3u) << "the whole conversation is kept for the next response";
}

TEST(PreviousResponse, UnknownIdIsNotFound) {
  ResponseStore store;
  store.set_limits(10, 1 << 20);
  ir::Request r = request_with({{"previous_response_id", "\"resp_nope\""}});
  ResponseRecord rec;
  auto w = apply_previous_response(store, r, rec, {}, store_error());
  ASSERT_TRUE(w.has_value());
  EXPECT_EQ(w->http_status, 400);
  EXPECT_NE(w->body.find(R"("code":"previous_response_not_found")"), std::string::npos) << w->body;
  EXPECT_NE(w->body.find(R"("param":"previous_response_id")"), std::string::npos) << w->body;
  EXPECT_NE(w->body.find("resp_nope"), std::string::npos) << w->body;
}

// A response is found only by the key that made it: to another key its id
// is exactly an unknown one (the same error, nothing of it applied).
TEST(PreviousResponse, AnotherKeysResponseIsUnknown) {
  ResponseStore store;
  store.set_limits(10, 1 << 20);
  ResponseRecorder made;
  ir::Request first = request_with({});
  ASSERT_FALSE(made.begin(store, first, "key-a", store_error()).has_value());
  std::string id = made.id();
  made.done(store, ir::Response{});
  ir::Request theirs = request_with({{"previous_response_id", "\"" + id + "\""}});
  ResponseRecord rec;
  auto w = apply_previous_response(store, theirs, rec, "key-b", store_error());
  ASSERT_TRUE(w.has_value());
  ir::Request nobody = request_with({{"previous_response_id", "\"resp_nope\""}});
  auto unknown = apply_previous_response(store, nobody, rec, "key-b", store_error());
  ASSERT_TRUE(unknown.has_value());
  EXPECT_EQ(w->http_status, unknown->http_status);
  std::string body = w->body;
  body.replace(body.find(id), id.size(), "resp_nope");
  EXPECT_EQ(body, unknown->body);
  EXPECT_EQ(theirs.messages.size(), 1u) << "nothing of key-a's conversation";
  ir::Request mine = request_with({{"previous_response_id", "\"" + id + "\""}});
  EXPECT_FALSE(apply_previous_response(store, mine, rec, "key-a", store_error()).has_value());
  EXPECT_EQ(mine.messages.size(), 3u);
}

TEST(PreviousResponse, StoreOffIsAClearError) {
  ResponseStore store;  // no limits: off
  ir::Request r = request_with({{"previous_response_id", "\"resp_1\""}});
  ResponseRecord rec;
  auto w = apply_previous_response(store, r, rec, {}, store_error());
  ASSERT_TRUE(w.has_value());
  EXPECT_EQ(w->http_status, 400);
  EXPECT_NE(w->body.find("response_store"), std::string::npos) << w->body;
  EXPECT_NE(w->body.find(R"("param":"previous_response_id")"), std::string::npos) << w->body;
  // Without the field the store is not needed.
  ir::Request plain = request_with({});
  EXPECT_FALSE(apply_previous_response(store, plain, rec, {}, store_error()).has_value());
  EXPECT_TRUE(rec.input.empty()) << "nothing recorded while the store is off";
}

TEST(PreviousResponse, StoreFalseIsNotRecordedAndStaysForUpstream) {
  ResponseStore store;
  store.set_limits(10, 1 << 20);
  ir::Request r = request_with({{"store", "false"}});
  ResponseRecord rec;
  EXPECT_FALSE(apply_previous_response(store, r, rec, {}, store_error()).has_value());
  EXPECT_FALSE(rec.store);
  EXPECT_TRUE(rec.input.empty());
  ASSERT_EQ(r.extra.size(), 1u);
  EXPECT_EQ(r.extra[0].key, "store");
  ir::Request bad = request_with({{"previous_response_id", "42"}});
  auto w = apply_previous_response(store, bad, rec, {}, store_error());
  ASSERT_TRUE(w.has_value());
  EXPECT_EQ(w->http_status, 400);
}

TEST(ResponseRecorder, AStreamIsStoredUnderTheGatewaysIdOnceComplete) {
  ResponseStore store;
  store.set_limits(10, 1 << 20);
  ir::Request r = request_with({});
  ResponseRecorder rec;
  ASSERT_FALSE(rec.begin(store, r, {}, store_error()).has_value());
  const std::string id = rec.id();
  ASSERT_TRUE(id.starts_with("resp_")) << id;
  std::vector<ir::StreamEvent> events = {ir::MessageStart{"chatcmpl-upstream", "m", 0},
                                         ir::TextDelta{"Look"},
                                         ir::TextDelta{"ing."},
                                         ir::ToolCallStart{0, "call_1", "f", ""},
                                         ir::ToolCallDelta{0, "{}"},
                                         ir::ToolCallEnd{0},
                                         ir::Finish{}};
  for (auto& e : events) rec.saw(e);
  EXPECT_EQ(std::get<ir::MessageStart>(events[0]).id, id) << "the client sees the gateway's id";
  EXPECT_EQ(store.find(id), nullptr) << "nothing stored before the stream completed";
  rec.stream_done(store);
  auto c = store.find(id);
  ASSERT_NE(c, nullptr);
  ASSERT_EQ(c->size(), 2u);  // the request's input, then the answer
  EXPECT_EQ(std::get<ir::TextPart>((*c)[0].parts[0]).text, "next");
  EXPECT_EQ((*c)[1].role, ir::Role::assistant);
  ASSERT_EQ((*c)[1].parts.size(), 2u);
  EXPECT_EQ(std::get<ir::TextPart>((*c)[1].parts[0]).text, "Looking.");
  EXPECT_EQ(std::get<ir::ToolCallPart>((*c)[1].parts[1]).id, "call_1");
  EXPECT_TRUE(rec.id().empty()) << "stored once";
}

TEST(ResponseRecorder, StoreFalseKeepsTheUpstreamsId) {
  ResponseStore store;
  store.set_limits(10, 1 << 20);
  ir::Request r = request_with({{"store", "false"}});
  ResponseRecorder rec;
  ASSERT_FALSE(rec.begin(store, r, {}, store_error()).has_value());
  EXPECT_TRUE(rec.id().empty());
  ir::StreamEvent start = ir::MessageStart{"resp_upstream", "m", 0};
  rec.saw(start);
  EXPECT_EQ(std::get<ir::MessageStart>(start).id, "resp_upstream");
  ir::Response whole;
  whole.parts.emplace_back(ir::TextPart{"hi"});
  rec.done(store, whole);
  EXPECT_EQ(store.size(), 0u);
}

}  // namespace
}  // namespace toolwire::gateway::routes
