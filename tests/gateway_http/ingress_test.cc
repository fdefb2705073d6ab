// The ingress routes of the three later dialects over raw sockets: OpenAI
// Responses (POST /v1/responses), Gemini (POST /v1beta/models/{model}:
// generateContent and :streamGenerateContent?alt=sse) and Bedrock Converse
// (POST /model/{modelId}/converse and /converse-stream). Their rows of the
// bad-input table in docs/gateway.md (malformed JSON, unknown model, wrong
// method, and each path's own mistakes), each answered in the dialect's error
// shape; the model and stream flag from the path; gateway keys in each
// dialect's header; keep-alives while nothing is sent; previous_response_id.
#include <gtest/gtest.h>

#include <chrono>

#include "gateway_rig.h"
#include "toolwire/gateway/auth.h"

namespace toolwire::testing {
namespace {

using nlohmann::json;

enum class Kind { responses, gemini, bedrock };

struct RouteCase {
  std::string name;
  Kind kind;
  bool stream;

  // The endpoint for `model` (raw: already encoded as the path needs).
  std::string path(std::string_view model) const {
    switch (kind) {
      case Kind::responses:
        return "/v1/responses";
      case Kind::gemini:
        return "/v1beta/models/" + std::string(model) +
               (stream ? ":streamGenerateContent?alt=sse" : ":generateContent");
      case Kind::bedrock:
        return "/model/" + std::string(model) + (stream ? "/converse-stream" : "/converse");
    }
    return {};
  }
  // A valid body asking `user` (the model goes in the body for Responses only).
  std::string body(std::string_view model, std::string_view user) const {
    switch (kind) {
      case Kind::responses:
        return R"({"model":")" + std::string(model) + R"(","input":")" + std::string(user) +
               R"(")" + (stream ? R"(,"stream":true)" : "") + "}";
      case Kind::gemini:
        return R"({"contents":[{"role":"user","parts":[{"text":")" + std::string(user) +
               R"("}]}]})";
      case Kind::bedrock:
        return R"({"messages":[{"role":"user","content":[{"text":")" + std::string(user) +
               R"("}]}]})";
    }
    return {};
  }
  std::string request(std::string_view model, std::string_view user = "hi",
                      std::string_view headers = "") const {
    return http_post(path(model), body(model, user), headers);
  }
  std::string_view media_type() const {
    if (!stream) return "application/json";
    return kind == Kind::bedrock ? "application/vnd.amazon.eventstream" : "text/event-stream";
  }
};

void PrintTo(const RouteCase& c, std::ostream* os) { *os << c.name; }

// `r` is the dialect's error with `status`: OpenAI's shape for Responses;
// Google's {"error":{"code","message","status"}} for Gemini; Bedrock's
// {"message"} with the type in x-amzn-errortype.
void expect_error(const std::optional<HttpResponse>& r, Kind kind, int status,
                  std::string_view message_part = "") {
  if (kind == Kind::responses) return expect_error_shape(r, false, status, message_part);
  ASSERT_TRUE(r.has_value()) << "no response";
  EXPECT_EQ(r->status, status) << r->body;
  EXPECT_EQ(r->header("content-type"), "application/json");
  json j = json::parse(r->body, nullptr, false);
  ASSERT_TRUE(j.is_object()) << r->body;
  std::string message;
  if (kind == Kind::gemini) {
    ASSERT_EQ(j.size(), 1u) << r->body;
    const json& e = j["error"];
    ASSERT_TRUE(e.is_object()) << r->body;
    ASSERT_TRUE(e.contains("code") && e.contains("message") && e.contains("status")) << r->body;
    EXPECT_EQ(e.size(), 3u) << r->body;
    EXPECT_EQ(e["code"], status) << r->body;
    std::string expected = status == 400   ? "INVALID_ARGUMENT"
                           : status == 401 ? "UNAUTHENTICATED"
                           : status == 404 ? "NOT_FOUND"
                                           : "";
    if (!expected.empty()) {
      EXPECT_EQ(e["status"], expected) << r->body;
    }
    ASSERT_TRUE(e["message"].is_string()) << r->body;
    message = e["message"];
  } else {
    ASSERT_EQ(j.size(), 1u) << r->body;
    ASSERT_TRUE(j["message"].is_string()) << r->body;
    message = j["message"];
    std::string expected = status == 400   ? "ValidationException"
                           : status == 404 ? "ResourceNotFoundException"
                                           : "";
    if (!expected.empty()) {
      EXPECT_EQ(r->header("x-amzn-errortype"), expected) << r->body;
    }
    EXPECT_FALSE(r->header("x-amzn-errortype").empty());
  }
  EXPECT_NE(message.find(message_part), std::string::npos) << message;
}

class Ingress : public ::testing::TestWithParam<RouteCase> {
 protected:
  const RouteCase& c() const { return GetParam(); }

  std::optional<HttpResponse> roundtrip(std::string_view bytes) {
    RawClient client(rig.port);
    EXPECT_TRUE(client.connected());
    EXPECT_TRUE(client.send(bytes));
    return client.read_response();
  }

  void expect_serves() {
    auto r = roundtrip(c().request("gpt-test", "still here"));
    ASSERT_TRUE(r.has_value());
    EXPECT_EQ(r->status, 200) << r->body;
    EXPECT_EQ(r->header("content-type"), c().media_type());
    // A stream carries the echo's two pieces in separate events.
    EXPECT_NE(r->body.find(c().stream ? "still here" : "echo: still here"), std::string::npos)
        << r->body;
  }

  GatewayRig rig;
};

TEST_P(Ingress, Serves) {
  expect_serves();
  EXPECT_EQ(rig.provider->calls(), 1);
  // Metrics name the route by its template, not the path with the model.
  std::string route =
      c().kind == Kind::responses ? "/v1/responses"
      : c().kind == Kind::gemini
          ? (c().stream ? "/v1beta/models/{model}:streamGenerateContent"
                        : "/v1beta/models/{model}:generateContent")
          : (c().stream ? "/model/{modelId}/converse-stream" : "/model/{modelId}/converse");
  EXPECT_EQ(rig.metric("toolwire_requests_total",
                       "route=\"" + route + "\",model=\"gpt-test\",status=\"200\""),
            1)
      << rig.gateway->metrics_text();
}

// Gemini and Bedrock: the model (percent-decoded) and the stream flag are
// the path's; Responses: the body's.
TEST_P(Ingress, ModelAndStreamFromThePath) {
  std::string raw = c().kind == Kind::bedrock ? "hold.model-v1%3A0" : "hold-model";
  std::string decoded = c().kind == Kind::bedrock ? "hold.model-v1:0" : "hold-model";
  RawClient client(rig.port);
  ASSERT_TRUE(client.send(c().request(raw, "x")));
  auto call = rig.provider->held(0);
  ASSERT_TRUE(call);
  EXPECT_EQ(call->request.model, decoded);
  EXPECT_EQ(call->request.stream, c().stream);
  ASSERT_TRUE(call->emit(ir::MessageStart{"m", "x", 0}));
  ASSERT_TRUE(call->emit(ir::TextDelta{"from-the-upstream"}));
  ASSERT_TRUE(call->emit(ir::Finish{ir::FinishReason{ir::FinishReason::Kind::stop, "stop"}}));
  ASSERT_TRUE(call->finish());
  auto r = client.read_response();
  ASSERT_TRUE(r.has_value());
  EXPECT_EQ(r->status, 200) << r->body;
  EXPECT_EQ(r->header("content-type"), c().media_type());
  EXPECT_NE(r->body.find("from-the-upstream"), std::string::npos) << r->body;
}

TEST_P(Ingress, MalformedJson) {
  expect_error(roundtrip(http_post(c().path("gpt-test"), R"({"contents":[)")), c().kind, 400,
               "malformed JSON");
  expect_error(roundtrip(http_post(c().path("gpt-test"), "not json")), c().kind, 400);
  EXPECT_EQ(rig.provider->calls(), 0);
  expect_serves();
}

TEST_P(Ingress, UnknownModel) {
  expect_error(roundtrip(c().request("no-such-model")), c().kind, 404, "no-such-model");
  EXPECT_EQ(rig.provider->calls(), 0);
  expect_serves();
}

TEST_P(Ingress, WrongMethod) {
  auto r = roundtrip("GET " + c().path("gpt-test") + " HTTP/1.1\r\nHost: t\r\n\r\n");
  expect_error(r, c().kind, 405, "use POST");
  EXPECT_EQ(r->header("allow"), "POST");
  expect_serves();
}

// A stream the upstream keeps silent: SSE dialects get keep-alive comment
// lines (which the Gemini and OpenAI SDKs skip); Bedrock's binary event
// stream has no valid keep-alive, so nothing is written until the answer.
class IngressStream : public Ingress {};

TEST_P(IngressStream, KeepAliveWhileTheUpstreamIsSilent) {
  gateway::GatewayOptions opt = small_options();
  opt.stream_keepalive = Ms(40);
  GatewayRig quick(opt);
  RawClient client(quick.port);
  ASSERT_TRUE(client.send(c().request("hold-k", "x")));
  auto call = quick.provider->held(0);
  ASSERT_TRUE(call);
  ASSERT_TRUE(call->emit(ir::MessageStart{"m", "x", 0}));
  if (c().kind == Kind::bedrock) {
    ASSERT_TRUE(client.read_until_contains("messageStart"));
    size_t after_head = client.buffer().size();
    // Longer than several keep-alive periods: nothing more arrives.
    EXPECT_FALSE(client.read_some(Ms(300)) && client.buffer().size() > after_head)
        << "bytes written on a silent Bedrock stream";
  } else {
    EXPECT_TRUE(client.read_until_contains(": keep-alive\n\n", Ms(3000)));
  }
  ASSERT_TRUE(call->emit(ir::TextDelta{"done-now"}));
  ASSERT_TRUE(call->emit(ir::Finish{ir::FinishReason{ir::FinishReason::Kind::stop, "stop"}}));
  ASSERT_TRUE(call->finish());
  EXPECT_TRUE(client.read_until_contains("done-now"));
}

std::vector<RouteCase> cases() {
  return {{"responses", Kind::responses, false}, {"responses_stream", Kind::responses, true},
          {"gemini", Kind::gemini, false},       {"gemini_stream", Kind::gemini, true},
          {"bedrock", Kind::bedrock, false},     {"bedrock_stream", Kind::bedrock, true}};
}

INSTANTIATE_TEST_SUITE_P(Routes, Ingress, ::testing::ValuesIn(cases()),
                         [](const auto& info) { return info.param.name; });

std::vector<RouteCase> stream_cases() {
  std::vector<RouteCase> out;
  for (auto& c : cases())
    if (c.stream) out.push_back(c);
  return out;
}

INSTANTIATE_TEST_SUITE_P(Routes, IngressStream, ::testing::ValuesIn(stream_cases()),
                         [](const auto& info) { return info.param.name; });

// ---- each path's own mistakes ---------------------------------------------

TEST(IngressPaths, GeminiStreamWithoutAltSse) {
  GatewayRig rig;
  RawClient c(rig.port);
  ASSERT_TRUE(c.send(http_post("/v1beta/models/gpt-test:streamGenerateContent",
                               R"({"contents":[{"role":"user","parts":[{"text":"x"}]}]})")));
  expect_error(c.read_response(), Kind::gemini, 400, "alt=sse");
  EXPECT_EQ(rig.provider->calls(), 0);
}

TEST(IngressPaths, GeminiUnderV1AndUnknownMethod) {
  GatewayRig rig;
  RawClient c(rig.port);
  // The @google/genai SDK 3.x calls /v1/ by default.
  ASSERT_TRUE(c.send(http_post("/v1/models/gpt-test:generateContent",
                               R"({"contents":[{"role":"user","parts":[{"text":"v1"}]}]})")));
  auto r = c.read_response();
  ASSERT_TRUE(r.has_value());
  EXPECT_EQ(r->status, 200) << r->body;
  EXPECT_NE(r->body.find("echo: v1"), std::string::npos) << r->body;
  RawClient d(rig.port);
  ASSERT_TRUE(d.send(http_post("/v1beta/models/gpt-test:countTokens", "{}")));
  expect_error(d.read_response(), Kind::gemini, 404, "no route");
}

// @ai-sdk/anthropic appends /messages to its base URL, whose default ends in
// /v1: given the gateway's bare address it posts /messages.
TEST(IngressPaths, AnthropicWithoutV1) {
  GatewayRig rig;
  RawClient c(rig.port);
  ASSERT_TRUE(c.send(http_post(
      "/messages",
      R"({"model":"claude-x","max_tokens":16,"messages":[{"role":"user","content":"bare"}]})",
      "anthropic-version: 2023-06-01\r\n")));
  auto r = c.read_response();
  ASSERT_TRUE(r.has_value());
  EXPECT_EQ(r->status, 200) << r->body;
  EXPECT_NE(r->body.find("echo: bare"), std::string::npos) << r->body;
  EXPECT_NE(r->body.find(R"("type":"message")"), std::string::npos) << r->body;
}

// An upstream that gives no time (Anthropic, the scripted model): the
// answer's `created` is when the gateway answered, whole and streamed.
TEST(IngressPaths, CreatedIsTheAnswersTimeWhenTheUpstreamGaveNone) {
  GatewayRig rig;
  const auto now = [] {
    return std::chrono::duration_cast<std::chrono::seconds>(
               std::chrono::system_clock::now().time_since_epoch())
        .count();
  };
  const int64_t before = now();
  RawClient c(rig.port);
  ASSERT_TRUE(c.send(http_post("/v1/chat/completions",
                               R"({"model":"gpt-x","messages":[{"role":"user","content":"t"}]})")));
  auto whole = c.read_response();
  ASSERT_TRUE(whole.has_value());
  ASSERT_EQ(whole->status, 200) << whole->body;
  json j = json::parse(whole->body, nullptr, false);
  ASSERT_TRUE(j.is_object()) << whole->body;
  EXPECT_GE(j.value("created", int64_t{0}), before) << whole->body;
  EXPECT_LE(j.value("created", int64_t{0}), now()) << whole->body;
  RawClient s(rig.port);
  ASSERT_TRUE(s.send(
      http_post("/v1/chat/completions",
                R"({"model":"gpt-x","stream":true,"messages":[{"role":"user","content":"t"}]})")));
  auto streamed = s.read_response();
  ASSERT_TRUE(streamed.has_value());
  ASSERT_EQ(streamed->status, 200) << streamed->body;
  EXPECT_EQ(streamed->body.find(R"("created":0)"), std::string::npos) << streamed->body;
  EXPECT_NE(streamed->body.find(R"("created":)" + std::to_string(before).substr(0, 6)),
            std::string::npos)
      << streamed->body;
}

TEST(IngressPaths, BedrockBadModelSegments) {
  GatewayRig rig;
  for (std::string_view path : {"/model/gpt%ZZ/converse", "/model/gpt%3/converse",
                                "/model//converse", "/model/a/b/converse-stream"}) {
    RawClient c(rig.port);
    ASSERT_TRUE(c.send(http_post(path, R"({"messages":[]})")));
    expect_error(c.read_response(), Kind::bedrock, 400);
  }
  RawClient c(rig.port);
  ASSERT_TRUE(c.send(http_post("/model/gpt-test/invoke", "{}")));
  expect_error(c.read_response(), Kind::bedrock, 404, "no route");
  EXPECT_EQ(rig.provider->calls(), 0);
}

// ---- gateway keys in each client dialect's header -------------------------

TEST(IngressKeys, EachDialectPresentsItsKey) {
  GatewayRig rig;
  auto keys = std::make_shared<gateway::KeyRing>();
  ASSERT_TRUE(keys->add({"gemini-app", gateway::sha256_hex("goog-secret"), {}, 0, 0}).ok());
  ASSERT_TRUE(keys->add({"aws-app", gateway::sha256_hex("AKIDGATEWAY"), {}, 0, 0}).ok());
  rig.gateway->set_keys(keys);
  const std::string gemini_body = R"({"contents":[{"role":"user","parts":[{"text":"k"}]}]})";
  const std::string bedrock_body = R"({"messages":[{"role":"user","content":[{"text":"k"}]}]})";
  auto send = [&](std::string_view path, std::string_view body, std::string_view headers) {
    RawClient c(rig.port);
    EXPECT_TRUE(c.send(http_post(path, body, headers)));
    return c.read_response();
  };
  auto ok = send("/v1beta/models/gpt-test:generateContent", gemini_body,
                 "x-goog-api-key: goog-secret\r\n");
  ASSERT_TRUE(ok.has_value());
  EXPECT_EQ(ok->status, 200) << ok->body;
  expect_error(
      send("/v1beta/models/gpt-test:generateContent", gemini_body, "x-goog-api-key: wrong\r\n"),
      Kind::gemini, 401, "invalid gateway key");
  expect_error(send("/v1beta/models/gpt-test:generateContent", gemini_body, ""), Kind::gemini, 401,
               "x-goog-api-key");
  // Gemini's REST API also takes the key in the query.
  auto query = send("/v1beta/models/gpt-test:generateContent?key=goog-secret", gemini_body, "");
  ASSERT_TRUE(query.has_value());
  EXPECT_EQ(query->status, 200) << query->body;
  expect_error(send("/v1beta/models/gpt-test:generateContent?key=nope", gemini_body, ""),
               Kind::gemini, 401, "invalid gateway key");
  // A SigV4 signature: its access key id is the gateway key.
  const std::string sigv4 =
      "authorization: AWS4-HMAC-SHA256 Credential=AKIDGATEWAY/20250101/us-east-1/bedrock/"
      "aws4_request, SignedHeaders=host;x-amz-date, Signature=" +
      std::string(64, '0') + "\r\nx-amz-date: 20250101T000000Z\r\n";
  auto signed_ok = send("/model/gpt-test/converse", bedrock_body, sigv4);
  ASSERT_TRUE(signed_ok.has_value());
  EXPECT_EQ(signed_ok->status, 200) << signed_ok->body;
  std::string other = sigv4;
  other.replace(other.find("AKIDGATEWAY"), 11, "AKIDUNKNOWN");
  auto refused = send("/model/gpt-test/converse", bedrock_body, other);
  ASSERT_TRUE(refused.has_value());
  EXPECT_EQ(refused->status, 401) << refused->body;
  EXPECT_FALSE(refused->header("x-amzn-errortype").empty());
  EXPECT_NE(refused->body.find("invalid gateway key"), std::string::npos) << refused->body;
}

// ---- /v1/responses and the response store ---------------------------------

// A Responses request for a held model, continuing `previous` when given.
std::string responses_request(std::string_view previous) {
  std::string body = R"({"model":"hold-r","input":"more")";
  if (!previous.empty()) body += ",\"previous_response_id\":\"" + std::string(previous) + "\"";
  return http_post("/v1/responses", body + "}");
}

TEST(ResponseStore, PreviousResponseIdPrependsTheConversation) {
  GatewayRig rig;
  RawClient c(rig.port);
  ASSERT_TRUE(c.send(http_post("/v1/responses", R"({"model":"gpt-test","input":"first"})")));
  auto r1 = c.read_response();
  ASSERT_TRUE(r1.has_value());
  ASSERT_EQ(r1->status, 200) << r1->body;
  json j1 = json::parse(r1->body, nullptr, false);
  ASSERT_TRUE(j1.is_object()) << r1->body;
  std::string id = j1.value("id", "");
  ASSERT_TRUE(id.starts_with("resp_")) << r1->body;

  RawClient c2(rig.port);
  ASSERT_TRUE(c2.send(responses_request(id)));
  auto call = rig.provider->held(0);
  ASSERT_TRUE(call);
  // first (user), echo: first (assistant), more (user).
  ASSERT_EQ(call->request.messages.size(), 3u);
  EXPECT_EQ(call->request.messages[0].role, ir::Role::user);
  EXPECT_EQ(call->request.messages[1].role, ir::Role::assistant);
  EXPECT_EQ(last_user_text(call->request), "more");
  for (const auto& x : call->request.extra) EXPECT_NE(x.key, "previous_response_id");
  ASSERT_TRUE(call->finish());
  auto r2 = c2.read_response();
  ASSERT_TRUE(r2.has_value());
  EXPECT_EQ(r2->status, 200) << r2->body;
}

TEST(ResponseStore, UnknownIdAndStoreOff) {
  GatewayRig rig;
  RawClient c(rig.port);
  ASSERT_TRUE(c.send(responses_request("resp_nope")));
  auto r = c.read_response();
  expect_error_shape(r, false, 400, "resp_nope");
  json j = json::parse(r->body, nullptr, false);
  EXPECT_EQ(j["error"]["code"], "previous_response_not_found") << r->body;
  EXPECT_EQ(j["error"]["param"], "previous_response_id") << r->body;

  // store: false: answered, not kept.
  RawClient s(rig.port);
  ASSERT_TRUE(
      s.send(http_post("/v1/responses", R"({"model":"gpt-test","input":"x","store":false})")));
  auto kept = s.read_response();
  ASSERT_TRUE(kept.has_value());
  ASSERT_EQ(kept->status, 200) << kept->body;
  std::string id = json::parse(kept->body, nullptr, false).value("id", "");
  RawClient again(rig.port);
  ASSERT_TRUE(again.send(responses_request(id)));
  expect_error_shape(again.read_response(), false, 400, "not found");

  gateway::GatewayOptions opt = small_options();
  opt.response_store.max_responses = 0;
  GatewayRig off(opt);
  RawClient o(off.port);
  ASSERT_TRUE(o.send(responses_request("resp_x")));
  expect_error_shape(o.read_response(), false, 400, "response_store");
  EXPECT_EQ(rig.provider->calls(), 1);
  EXPECT_EQ(off.provider->calls(), 0);
}

}  // namespace
}  // namespace toolwire::testing
