// `item_reference` input items resolved from the response store: the items of
// a stored answer under the ids its client got, in the calling key's scope,
// put back where the references stood; an unknown one is a 400 naming it.
#include <gtest/gtest.h>

#include "gateway/routes/item_references.h"
#include "gateway/routes/previous_response.h"
#include "gateway/routes/response_store.h"
#include "toolwire/dialects/dialect.h"

namespace toolwire::gateway::routes {
namespace {

const dialects::Dialect& responses() { return *dialects::find_dialect("responses"); }

// An answer with reasoning, text and a call, stored by `key` the way the
// gateway stores one; returns its id.
std::string store_answer(ResponseStore& store, std::string_view key) {
  ir::Request first;
  first.model = "m";
  first.messages.push_back(ir::Message{ir::Role::user, {ir::TextPart{"first"}}, {}});
  ResponseRecorder rec;
  EXPECT_FALSE(rec.begin(store, first, std::string(key), responses().ingress.response_store,
                         responses().ingress.item_references)
                   .has_value());
  ir::Response answer;
  answer.id = rec.id();
  ir::ThinkingPart thinking;
  thinking.text = "pondering";
  answer.parts.emplace_back(thinking);
  answer.parts.emplace_back(ir::TextPart{"Let me look."});
  answer.parts.emplace_back(ir::ToolCallPart{"call_1", "lookup", R"({"q":"x"})", true, {}});
  const std::string id = rec.id();
  rec.done(store, answer);
  return id;
}

std::string base(const std::string& response_id) { return response_id.substr(5); }

Result<ir::Request> decode(std::string_view body) {
  Warnings w;
  return responses().codec().decode_request(body, w);
}

std::optional<dialects::WireError> resolve(ResponseStore& store, ir::Request& r,
                                           std::string_view scope, std::string_view body) {
  return resolve_item_references(store, r, scope, body, responses().ingress.item_references,
                                 responses().ingress.response_store);
}

TEST(ItemReferences, ResolvedInPlaceAndInOrder) {
  ResponseStore store;
  store.set_limits(10, 1 << 20);
  const std::string b = base(store_answer(store, ""));
  // The reasoning and the message by reference, the call by its id alone
  // (a reference without a type), its output in full, then the next turn.
  const std::string body =
      R"({"model":"m","input":[{"role":"user","content":"first"},)"
      R"({"type":"item_reference","id":"rs_)" +
      b + R"(_0"},{"type":"item_reference","id":"msg_)" + b + R"(_1"},{"id":"fc_)" + b +
      R"(_2"},{"type":"function_call_output","call_id":"call_1","output":"42"},)"
      R"({"role":"user","content":"and now?"}]})";
  auto r = decode(body);
  ASSERT_TRUE(r.ok()) << r.error().to_string();
  ASSERT_FALSE(resolve(store, *r, "", body).has_value());
  ASSERT_EQ(r->messages.size(), 4u);
  EXPECT_EQ(r->messages[0].role, ir::Role::user);
  ASSERT_EQ(r->messages[0].parts.size(), 1u);
  EXPECT_EQ(std::get<ir::TextPart>(r->messages[0].parts[0]).text, "first");
  const auto& turn = r->messages[1];
  EXPECT_EQ(turn.role, ir::Role::assistant);
  ASSERT_EQ(turn.parts.size(), 3u);
  EXPECT_EQ(std::get<ir::ThinkingPart>(turn.parts[0]).text, "pondering");
  EXPECT_EQ(std::get<ir::TextPart>(turn.parts[1]).text, "Let me look.");
  const auto& call = std::get<ir::ToolCallPart>(turn.parts[2]);
  EXPECT_EQ(call.id, "call_1");
  EXPECT_EQ(call.name, "lookup");
  EXPECT_EQ(call.arguments, R"({"q":"x"})");
  EXPECT_EQ(r->messages[2].role, ir::Role::tool);
  EXPECT_EQ(std::get<ir::ToolResultPart>(r->messages[2].parts[0]).call_id, "call_1");
  EXPECT_EQ(std::get<ir::TextPart>(r->messages[3].parts[0]).text, "and now?");
}

// A referenced message next to an explicit function_call: one model turn.
TEST(ItemReferences, JoinTheModelTurnTheyBorder) {
  ResponseStore store;
  store.set_limits(10, 1 << 20);
  const std::string b = base(store_answer(store, ""));
  const std::string body =
      R"({"model":"m","input":[{"role":"user","content":"hi"},{"type":"item_reference","id":"msg_)" +
      b +
      R"(_1"},{"type":"function_call","call_id":"c2","name":"f","arguments":"{}"},)"
      R"({"type":"function_call_output","call_id":"c2","output":"ok"}]})";
  auto r = decode(body);
  ASSERT_TRUE(r.ok()) << r.error().to_string();
  ASSERT_FALSE(resolve(store, *r, "", body).has_value());
  ASSERT_EQ(r->messages.size(), 3u);
  ASSERT_EQ(r->messages[1].role, ir::Role::assistant);
  ASSERT_EQ(r->messages[1].parts.size(), 2u);
  EXPECT_EQ(std::get<ir::TextPart>(r->messages[1].parts[0]).text, "Let me look.");
  EXPECT_EQ(std::get<ir::ToolCallPart>(r->messages[1].parts[1]).id, "c2");
}

TEST(ItemReferences, UnknownIdIsA400NamingItAndItsPlace) {
  ResponseStore store;
  store.set_limits(10, 1 << 20);
  const std::string body =
      R"({"model":"m","input":[{"role":"user","content":"hi"},{"type":"item_reference","id":"msg_nope"}]})";
  auto r = decode(body);
  ASSERT_TRUE(r.ok()) << r.error().to_string();
  auto w = resolve(store, *r, "", body);
  ASSERT_TRUE(w.has_value());
  EXPECT_EQ(w->http_status, 400);
  EXPECT_NE(w->body.find("msg_nope"), std::string::npos) << w->body;
  EXPECT_NE(w->body.find(R"("param":"input[1]")"), std::string::npos) << w->body;
  EXPECT_NE(w->body.find(R"("code":"item_reference_not_found")"), std::string::npos) << w->body;
  EXPECT_NE(w->body.find(R"("type":"invalid_request_error")"), std::string::npos) << w->body;
}

// An item is found only by the key whose answer it is: to another key it is
// exactly an unknown one.
TEST(ItemReferences, AnotherKeysItemIsUnknown) {
  ResponseStore store;
  store.set_limits(10, 1 << 20);
  const std::string b = base(store_answer(store, "key-a"));
  const std::string body =
      R"({"model":"m","input":[{"type":"item_reference","id":"msg_)" + b + R"(_1"}]})";
  auto theirs = decode(body);
  ASSERT_TRUE(theirs.ok());
  auto w = resolve(store, *theirs, "key-b", body);
  ASSERT_TRUE(w.has_value());
  EXPECT_NE(w->body.find("item_reference_not_found"), std::string::npos) << w->body;
  EXPECT_NE(w->body.find(R"("param":"input[0]")"), std::string::npos) << w->body;
  auto mine = decode(body);
  ASSERT_TRUE(mine.ok());
  EXPECT_FALSE(resolve(store, *mine, "key-a", body).has_value());
  ASSERT_EQ(mine->messages.size(), 1u);
  EXPECT_EQ(mine->messages[0].role, ir::Role::assistant);
}

TEST(ItemReferences, StoreOffIsAClearError) {
  ResponseStore store;  // no limits: off
  const std::string body = R"({"model":"m","input":[{"type":"item_reference","id":"msg_1"}]})";
  auto r = decode(body);
  ASSERT_TRUE(r.ok());
  auto w = resolve(store, *r, "", body);
  ASSERT_TRUE(w.has_value());
  EXPECT_EQ(w->http_status, 400);
  EXPECT_NE(w->body.find("response_store"), std::string::npos) << w->body;
  EXPECT_NE(w->body.find("msg_1"), std::string::npos) << w->body;
}

TEST(ItemReferences, EvictedWithTheirResponse) {
  ResponseStore store;
  store.set_limits(1, 1 << 20);
  const std::string b = base(store_answer(store, ""));
  EXPECT_TRUE(store.find_item("msg_" + b + "_1").has_value());
  store_answer(store, "");  // the only slot goes to the newer answer
  EXPECT_FALSE(store.find_item("msg_" + b + "_1").has_value());
  EXPECT_EQ(store.size(), 1u);
}

TEST(ItemReferences, ARequestWithoutThemIsUntouched) {
  ResponseStore store;  // off: not needed without references
  const std::string body = R"({"model":"m","input":[{"role":"user","content":""},)"
                           R"({"role":"assistant","content":"a"},{"role":"user","content":"b"}]})";
  auto r = decode(body);
  ASSERT_TRUE(r.ok());
  const ir::Request before = *r;
  EXPECT_FALSE(resolve(store, *r, "", body).has_value());
  EXPECT_EQ(r->messages, before.messages);
}

}  // namespace
}  // namespace toolwire::gateway::routes
