// Each dialect's ingress entry (toolwire/dialects/ingress.h): which
// model-call endpoint a path names, with the model and stream flag a path may
// carry; percent-decoding; the key each dialect's clients present; the
// dialect a request speaks before its route is known.
#include <gtest/gtest.h>

#include <map>

#include "toolwire/dialects/dialect.h"
#include "toolwire/dialects/ingress.h"

namespace toolwire::dialects {
namespace {

const Dialect* named(std::string_view name) { return find_dialect(name); }

struct Match {
  const Dialect* dialect = nullptr;
  RouteMatch route;
};

Match match(std::string_view path, std::string_view query = "") {
  auto m = match_model_call(path, query);
  EXPECT_TRUE(m.has_value()) << path;
  if (!m) return {};
  EXPECT_TRUE(m->match.ok()) << path << ": " << m->match.error().to_string();
  if (!m->match.ok()) return {};
  return {m->dialect, *m->match};
}

Error match_error(std::string_view path, std::string_view query = "") {
  auto m = match_model_call(path, query);
  EXPECT_TRUE(m.has_value()) << path;
  if (!m || m->match.ok()) return {};
  return m->match.error();
}

TEST(Ingress, BodyDialectsTakeModelAndStreamFromTheBody) {
  Match chat = match("/v1/chat/completions");
  EXPECT_EQ(chat.dialect, named("openai_chat"));
  EXPECT_EQ(chat.route.route, "/v1/chat/completions");
  EXPECT_EQ(chat.route.model, "");
  EXPECT_FALSE(chat.route.stream.has_value());
  EXPECT_EQ(match("/chat/completions/").dialect, named("openai_chat"));
  EXPECT_EQ(match("/v1/messages").dialect, named("anthropic_messages"));
  Match resp = match("/v1/responses");
  EXPECT_EQ(resp.dialect, named("openai_responses"));
  EXPECT_EQ(resp.route.route, "/v1/responses");
  EXPECT_FALSE(resp.route.stream.has_value());
}

TEST(Ingress, GeminiModelAndStreamFromThePath) {
  Match g = match("/v1beta/models/gemini-2.5-flash:generateContent");
  EXPECT_EQ(g.dialect, named("gemini"));
  EXPECT_EQ(g.route.model, "gemini-2.5-flash");
  EXPECT_EQ(g.route.stream, false);
  EXPECT_EQ(g.route.route, "/v1beta/models/{model}:generateContent");
  Match s = match("/v1beta/models/gemini-2.5-flash:streamGenerateContent", "alt=sse");
  EXPECT_EQ(s.route.stream, true);
  EXPECT_EQ(s.route.model, "gemini-2.5-flash");
  EXPECT_EQ(s.route.route, "/v1beta/models/{model}:streamGenerateContent");
  EXPECT_EQ(match("/v1/models/gemini-pro:streamGenerateContent", "key=x&alt=sse").route.stream,
            true);
  EXPECT_EQ(match("/v1beta/models/my%20model:generateContent").route.model, "my model");
}

TEST(Ingress, GeminiStreamWithoutAltSseIsRefused) {
  Error e = match_error("/v1beta/models/gemini-2.5-flash:streamGenerateContent");
  EXPECT_EQ(e.http_status, 400);
  EXPECT_NE(e.message.find("alt=sse"), std::string::npos) << e.message;
  EXPECT_EQ(match_error("/v1beta/models/g:streamGenerateContent", "alt=json").http_status, 400);
}

TEST(Ingress, BedrockModelIdIsPercentDecoded) {
  Match b = match("/model/amazon.nova-lite-v1%3A0/converse");
  EXPECT_EQ(b.dialect, named("bedrock_converse"));
  EXPECT_EQ(b.route.model, "amazon.nova-lite-v1:0");
  EXPECT_EQ(b.route.stream, false);
  EXPECT_EQ(b.route.route, "/model/{modelId}/converse");
  Match s = match("/model/anthropic.claude-3-haiku-20240307-v1:0/converse-stream");
  EXPECT_EQ(s.route.model, "anthropic.claude-3-haiku-20240307-v1:0");
  EXPECT_EQ(s.route.stream, true);
  EXPECT_EQ(s.route.route, "/model/{modelId}/converse-stream");
  // An inference profile ARN, encoded whole by the SDK.
  EXPECT_EQ(match("/model/arn%3Aaws%3Abedrock%3Aus-east-1%3A1%3Aprofile%2Fx/converse").route.model,
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

// A request's headers, lower-case names.
HeaderLookup headers(std::map<std::string, std::string> h) {
  return [h = std::move(h)](std::string_view name) -> std::string_view {
    auto it = h.find(std::string(name));
    return it == h.end() ? std::string_view() : std::string_view(it->second);
  };
}

TEST(Ingress, PresentedKeyPerDialect) {
  EXPECT_EQ(presented_key(headers({{"authorization", "Bearer abc"}})), "abc");
  EXPECT_EQ(presented_key(headers({{"authorization", "bearer abc"}})), "abc");
  EXPECT_EQ(presented_key(headers({{"x-api-key", "xyz"}})), "xyz");
  EXPECT_EQ(presented_key(headers({{"x-goog-api-key", "goog-key"}})), "goog-key");
  // A header that carries only a key wins over the shared Authorization.
  EXPECT_EQ(presented_key(headers({{"authorization", "Bearer abc"}, {"x-goog-api-key", "g"}})),
            "g");
  EXPECT_EQ(presented_key(headers({{"authorization", "Bearer abc"}, {"x-api-key", "x"}})), "x");
  EXPECT_EQ(presented_key(headers({{"authorization",
                                    "AWS4-HMAC-SHA256 Credential=AKIDTEST/20250101/us-east-1/"
                                    "bedrock/aws4_request, SignedHeaders=host;x-amz-date, "
                                    "Signature=00ff"}})),
            "AKIDTEST");
  EXPECT_EQ(presented_key(
                headers({{"authorization", "AWS4-HMAC-SHA256 SignedHeaders=host, Signature=00"}})),
            "");
  EXPECT_EQ(
      presented_key(headers({{"authorization", "AWS4-HMAC-SHA256 Credential=AKID, Signature=00"}})),
      "");
  EXPECT_EQ(presented_key(headers({{"authorization", "Basic abc"}})), "");
  EXPECT_EQ(presented_key(headers({})), "");
}

TEST(Ingress, KeyInTheQueryOnlyWhereTheDialectTakesIt) {
  EXPECT_EQ(presented_key(headers({}), named("gemini"), "alt=sse&key=q"), "q");
  EXPECT_EQ(presented_key(headers({{"x-goog-api-key", "h"}}), named("gemini"), "key=q"), "h");
  EXPECT_EQ(presented_key(headers({}), named("openai_chat"), "key=q"), "");
  EXPECT_EQ(presented_key(headers({}), nullptr, "key=q"), "");
}

TEST(Ingress, DialectOfARequestBeforeItsRoute) {
  EXPECT_EQ(&dialect_for_request("/v1/messages/batches", headers({})), named("anthropic"));
  EXPECT_EQ(&dialect_for_request("/nowhere", headers({{"anthropic-version", "2023-06-01"}})),
            named("anthropic"));
  EXPECT_EQ(&dialect_for_request("/v1/responses/x", headers({})), named("responses"));
  EXPECT_EQ(&dialect_for_request("/v1beta/models", headers({})), named("gemini"));
  EXPECT_EQ(&dialect_for_request("/x/y:generateContent", headers({})), named("gemini"));
  EXPECT_EQ(&dialect_for_request("/model/m/invoke", headers({})), named("bedrock"));
  EXPECT_EQ(&dialect_for_request("/nowhere", headers({})), &all_dialects().front());
}

TEST(Ingress, EveryCodecDialectIsServedAndListed) {
  std::string served = served_routes();
  for (const Dialect& d : all_dialects()) {
    if (!d.has_codec()) continue;
    EXPECT_NE(d.ingress.match_model_call, nullptr) << d.name;
    EXPECT_FALSE(d.ingress.routes_help.empty()) << d.name;
    EXPECT_NE(served.find(d.ingress.routes_help), std::string::npos) << d.name;
    EXPECT_FALSE(d.ingress.key_header.empty()) << d.name;
  }
}

}  // namespace
}  // namespace toolwire::dialects
