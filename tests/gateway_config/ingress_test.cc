// The gateway's ingress pieces below HTTP: which model-call endpoint a path
// names (with the model and stream flag Gemini and Bedrock put in the path),
// percent-decoding, the key each client dialect presents, and the response
// store behind /v1/responses' previous_response_id.
#include <gtest/gtest.h>

#include "gateway/routes/ingress.h"
#include "gateway/routes/previous_response.h"
#include "gateway/routes/response_store.h"
#include "toolwire/gateway/auth.h"

namespace toolwire::gateway::routes {
namespace {

Ingress match(std::string_view path, std::string_view query = "") {
  auto m = match_model_call(path, query);
  EXPECT_TRUE(m.has_value()) << path;
  if (!m) return {};
  EXPECT_TRUE(m->ok()) << path << ": " << m->error().to_string();
  return m->ok() ? **m : Ingress{};
}

Error match_error(std::string_view path, std::string_view query = "") {
  auto m = match_model_call(path, query);
  EXPECT_TRUE(m.has_value()) << path;
  if (!m || m->ok()) return {};
  return m->error();
}

TEST(Ingress, BodyDialectsTakeModelAndStreamFromTheBody) {
  Ingress chat = match("/v1/chat/completions");
  EXPECT_EQ(chat.dialect, Dialect::openai_chat);
  EXPECT_EQ(chat.route, "/v1/chat/completions");
  EXPECT_EQ(chat.model, "");
  EXPECT_FALSE(chat.stream.has_value());
  EXPECT_EQ(match("/chat/completions/").dialect, Dialect::openai_chat);
  EXPECT_EQ(match("/v1/messages").dialect, Dialect::anthropic_messages);
  Ingress resp = match("/v1/responses");
  EXPECT_EQ(resp.dialect, Dialect::openai_responses);
  EXPECT_EQ(resp.route, "/v1/responses");
  EXPECT_FALSE(resp.stream.has_value());
}

TEST(Ingress, GeminiModelAndStreamFromThePath) {
  Ingress g = match("/v1beta/models/gemini-2.5-flash:generateContent");
  EXPECT_EQ(g.dialect, Dialect::gemini);
  EXPECT_EQ(g.model, "gemini-2.5-flash");
  EXPECT_EQ(g.stream, false);
  EXPECT_EQ(g.route, "/v1beta/models/{model}:generateContent");
  Ingress s = match("/v1beta/models/gemini-2.5-flash:streamGenerateContent", "alt=sse");
  EXPECT_EQ(s.stream, true);
  EXPECT_EQ(s.model, "gemini-2.5-flash");
  EXPECT_EQ(s.route, "/v1beta/models/{model}:streamGenerateContent");
  EXPECT_EQ(match("/v1/models/gemini-pro:streamGenerateContent", "key=x&alt=sse").stream, true);
  EXPECT_EQ(match("/v1beta/models/my%20model:generateContent").model, "my model");
}

TEST(Ingress, GeminiStreamWithoutAltSseIsRefused) {
  Error e = match_error("/v1beta/models/gemini-2.5-flash:streamGenerateContent");
  EXPECT_EQ(e.http_status, 400);
  EXPECT_NE(e.message.find("alt=sse"), std::string::npos) << e.message;
  EXPECT_EQ(match_error("/v1beta/models/g:streamGenerateContent", "alt=json").http_status, 400);
}

TEST(Ingress, BedrockModelIdIsPercentDecoded) {
  Ingress b = match("/model/amazon.nova-lite-v1%3A0/converse");
  EXPECT_EQ(b.dialect, Dialect::bedrock_converse);
  EXPECT_EQ(b.model, "amazon.nova-lite-v1:0");
  EXPECT_EQ(b.stream, false);
  EXPECT_EQ(b.route, "/model/{modelId}/converse");
  Ingress s = match("/model/anthropic.claude-3-haiku-20240307-v1:0/converse-stream");
  EXPECT_EQ(s.model, "anthropic.claude-3-haiku-20240307-v1:0");
  EXPECT_EQ(s.stream, true);
  EXPECT_EQ(s.route, "/model/{modelId}/converse-stream");
  // An inference profile ARN, encoded whole by the SDK.
  EXPECT_EQ(match("/model/arn%3Aaws%3Abedrock%3Aus-east-1%3A1%3Aprofile%2Fx/converse").model,
            "arn:aws:bedrock:us-east-1:1:profile/x");
}

TEST(Ingress, BadModelSegments) {
  EXPECT_EQ(match_error("/model/%ZZ/converse").http_status, 400);
  EXPECT_EQ(match_error("/model/abc%4/converse").http_status, 400);
  EXPECT_EQ(match_error("/model//converse").http_status, 400);
  EXPECT_EQ(match_error("/model/a/b/converse").http_status, 400);
  EXPECT_EQ(match_error("/v1beta/models/:generateContent").http_status, 400);
  EXPECT_EQ(match_error("/v1beta/models/a%00b:generateContent").http_status, 400);
}

TEST(Ingress, OtherPathsAreNotModelCalls) {
  for (std::string_view p :
       {"/v1/models", "/v1beta/models/gemini:countTokens", "/v1beta/models/gemini",
        "/model/x/invoke", "/model/x", "/v1/responses/resp_1", "/health", "/v1/chat"})
    EXPECT_FALSE(match_model_call(p, "").has_value()) << p;
}

TEST(Ingress, PercentDecodeAndQuery) {
  EXPECT_EQ(*percent_decode("a%3Ab%3ac"), "a:b:c");
  EXPECT_EQ(*percent_decode("plain"), "plain");
  EXPECT_FALSE(percent_decode("x%").ok());
  EXPECT_FALSE(percent_decode("x%4").ok());
  EXPECT_EQ(query_param("alt=sse", "alt"), "sse");
  EXPECT_EQ(query_param("a=1&alt=sse&b", "alt"), "sse");
  EXPECT_EQ(query_param("a=1&b", "b"), "");
  EXPECT_FALSE(query_param("salt=sse", "alt").has_value());
  EXPECT_FALSE(query_param("", "alt").has_value());
}

TEST(Ingress, PresentedKeyPerDialect) {
  EXPECT_EQ(presented_key("Bearer abc", "", ""), "abc");
  EXPECT_EQ(presented_key("", "", "goog-key"), "goog-key");
  EXPECT_EQ(presented_key("Bearer abc", "", "goog-key"), "goog-key");
  EXPECT_EQ(presented_key("AWS4-HMAC-SHA256 Credential=AKIDTEST/20250101/us-east-1/bedrock/"
                          "aws4_request, SignedHeaders=host;x-amz-date, Signature=00ff",
                          "", ""),
            "AKIDTEST");
  EXPECT_EQ(presented_key("AWS4-HMAC-SHA256 SignedHeaders=host, Signature=00", "", ""), "");
  EXPECT_EQ(presented_key("AWS4-HMAC-SHA256 Credential=AKID, Signature=00", "", ""), "");
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
  EXPECT_FALSE(apply_previous_response(store, r, rec).has_value());
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
  auto w = apply_previous_response(store, r, rec);
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
  ASSERT_FALSE(made.begin(store, first, "key-a").has_value());
  std::string id = made.id();
  made.done(store, ir::Response{});
  ir::Request theirs = request_with({{"previous_response_id", "\"" + id + "\""}});
  ResponseRecord rec;
  auto w = apply_previous_response(store, theirs, rec, "key-b");
  ASSERT_TRUE(w.has_value());
  ir::Request nobody = request_with({{"previous_response_id", "\"resp_nope\""}});
  auto unknown = apply_previous_response(store, nobody, rec, "key-b");
  ASSERT_TRUE(unknown.has_value());
  EXPECT_EQ(w->http_status, unknown->http_status);
  std::string body = w->body;
  body.replace(body.find(id), id.size(), "resp_nope");
  EXPECT_EQ(body, unknown->body);
  EXPECT_EQ(theirs.messages.size(), 1u) << "nothing of key-a's conversation";
  ir::Request mine = request_with({{"previous_response_id", "\"" + id + "\""}});
  EXPECT_FALSE(apply_previous_response(store, mine, rec, "key-a").has_value());
  EXPECT_EQ(mine.messages.size(), 3u);
}

TEST(PreviousResponse, StoreOffIsAClearError) {
  ResponseStore store;  // no limits: off
  ir::Request r = request_with({{"previous_response_id", "\"resp_1\""}});
  ResponseRecord rec;
  auto w = apply_previous_response(store, r, rec);
  ASSERT_TRUE(w.has_value());
  EXPECT_EQ(w->http_status, 400);
  EXPECT_NE(w->body.find("response_store"), std::string::npos) << w->body;
  // Without the field the store is not needed.
  ir::Request plain = request_with({});
  EXPECT_FALSE(apply_previous_response(store, plain, rec).has_value());
  EXPECT_TRUE(rec.input.empty()) << "nothing recorded while the store is off";
}

TEST(PreviousResponse, StoreFalseIsNotRecordedAndStaysForUpstream) {
  ResponseStore store;
  store.set_limits(10, 1 << 20);
  ir::Request r = request_with({{"store", "false"}});
  ResponseRecord rec;
  EXPECT_FALSE(apply_previous_response(store, r, rec).has_value());
  EXPECT_FALSE(rec.store);
  EXPECT_TRUE(rec.input.empty());
  ASSERT_EQ(r.extra.size(), 1u);
  EXPECT_EQ(r.extra[0].key, "store");
  ir::Request bad = request_with({{"previous_response_id", "42"}});
  auto w = apply_previous_response(store, bad, rec);
  ASSERT_TRUE(w.has_value());
  EXPECT_EQ(w->http_status, 400);
}

TEST(ResponseRecorder, AStreamIsStoredUnderTheGatewaysIdOnceComplete) {
  ResponseStore store;
  store.set_limits(10, 1 << 20);
  ir::Request r = request_with({});
  ResponseRecorder rec;
  ASSERT_FALSE(rec.begin(store, r).has_value());
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
  ASSERT_FALSE(rec.begin(store, r).has_value());
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
