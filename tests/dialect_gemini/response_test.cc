// Gemini GenerateContentResponse: the official examples (golden), finish
// reasons, usage, ids, signatures, and errors both ways.
#include <gtest/gtest.h>

#include "test_util.h"
#include "toolwire/dialects/dialect.h"

namespace toolwire::dialects::gemini_test {
namespace {

using nlohmann::json;
using Kind = ir::FinishReason::Kind;

ir::Response decode_resp(const std::string& body, Warnings* warnings = nullptr) {
  Warnings local;
  auto r = codec().decode_response(body, warnings ? *warnings : local);
  EXPECT_TRUE(r) << r.error().to_string() << "\n" << body;
  return r ? *r : ir::Response{};
}

std::string encode_resp(const ir::Response& r, Warnings* warnings = nullptr) {
  Warnings local;
  auto out = codec().encode_response(r, warnings ? *warnings : local);
  EXPECT_TRUE(out) << out.error().to_string();
  return out ? *out : std::string("{}");
}

TEST(GeminiResponseGolden, FunctionCallIsAToolCallTurn) {
  const std::string body = read_fixture("gemini-generatecontent-function-call.response.json");
  ir::Response r = decode_resp(body);
  ASSERT_EQ(r.parts.size(), 1u);
  const auto& call = std::get<ir::ToolCallPart>(r.parts[0]);
  EXPECT_EQ(call.name, "find_theaters");
  EXPECT_EQ(parse(call.arguments), parse(R"({"movie":"Barbie","location":"Mountain View, CA"})"));
  EXPECT_TRUE(call.id.starts_with("call_"));
  EXPECT_EQ(call.id, std::get<ir::ToolCallPart>(decode_resp(body).parts[0]).id);  // deterministic
  EXPECT_EQ(r.finish.kind, Kind::tool_calls);  // STOP with a functionCall
  EXPECT_EQ(r.finish.raw, "STOP");
  EXPECT_EQ(r.id, "");
  // Safety ratings and prompt feedback ride along for Gemini, and come back.
  json in = parse(body), out = parse(encode_resp(r));
  EXPECT_EQ(out["candidates"][0]["safetyRatings"], in["candidates"][0]["safetyRatings"]);
  EXPECT_EQ(out["promptFeedback"], in["promptFeedback"]);
  EXPECT_EQ(out["candidates"][0]["finishReason"], "STOP");
  EXPECT_EQ(out["candidates"][0]["content"]["parts"][0]["functionCall"]["args"],
            in["candidates"][0]["content"]["parts"][0]["functionCall"]["args"]);
  EXPECT_EQ(decode_resp(encode_resp(r)).parts, r.parts);
  // Another dialect drops them with warnings naming each.
  Warnings w;
  ASSERT_TRUE(find_codec("openai")->encode_response(r, w));
  EXPECT_TRUE(has_warning(w, "dropped_unknown_field", "$.candidates[0].safetyRatings"))
      << warnings_text(w);
  EXPECT_TRUE(has_warning(w, "dropped_unknown_field", "$.promptFeedback"));
}

TEST(GeminiResponseGolden, TextAnswer) {
  const std::string body = read_fixture("gemini-generatecontent-function-response.response.json");
  ir::Response r = decode_resp(body);
  ASSERT_EQ(r.parts.size(), 1u);
  EXPECT_TRUE(std::get<ir::TextPart>(r.parts[0]).text.starts_with("OK. I found two theaters"));
  EXPECT_EQ(r.finish.kind, Kind::stop);
  EXPECT_EQ(parse(encode_resp(r)), parse(body));
}

TEST(GeminiResponseGolden, SecondCall) {
  ir::Response r =
      decode_resp(read_fixture("gemini-generatecontent-multiturn-function-call.response.json"));
  EXPECT_EQ(std::get<ir::ToolCallPart>(r.parts.at(0)).name, "find_movies");
  EXPECT_EQ(r.finish.kind, Kind::tool_calls);
}

TEST(GeminiResponse, IdsModelUsageSignatures) {
  const std::string body = R"({"candidates":[{"content":{"role":"model","parts":[
      {"text":"let me think","thought":true},
      {"text":"Checking both."},
      {"functionCall":{"id":"fc_1","name":"get_weather","args":{"city":"Paris"}},"thoughtSignature":"U0lH"},
      {"functionCall":{"name":"get_weather","args":{"city":"Rome"}}}]},
      "finishReason":"STOP","index":0}],
    "usageMetadata":{"promptTokenCount":100,"candidatesTokenCount":20,"thoughtsTokenCount":30,
                     "cachedContentTokenCount":40,"totalTokenCount":150},
    "modelVersion":"gemini-2.5-flash","responseId":"resp-abc"})";
  ir::Response r = decode_resp(body);
  EXPECT_EQ(r.id, "resp-abc");
  EXPECT_EQ(r.model, "gemini-2.5-flash");
  ASSERT_EQ(r.parts.size(), 4u);
  EXPECT_EQ(std::get<ir::ThinkingPart>(r.parts[0]).text, "let me think");
  const auto& c1 = std::get<ir::ToolCallPart>(r.parts[2]);
  const auto& c2 = std::get<ir::ToolCallPart>(r.parts[3]);
  EXPECT_EQ(c1.id, "fc_1");
  EXPECT_EQ(c1.signature, "U0lH");
  EXPECT_TRUE(c2.id.starts_with("call_"));
  EXPECT_EQ(r.usage.input_tokens, 100);
  EXPECT_EQ(r.usage.output_tokens, 50);  // candidates + thoughts
  EXPECT_EQ(r.usage.cache_read_tokens, 40);
  EXPECT_EQ(r.finish.kind, Kind::tool_calls);
  json out = parse(encode_resp(r));
  EXPECT_EQ(out["candidates"][0]["content"]["parts"][2]["thoughtSignature"], "U0lH");
  EXPECT_EQ(out["usageMetadata"]["promptTokenCount"], 100);
  EXPECT_EQ(out["usageMetadata"]["candidatesTokenCount"], 50);
  EXPECT_EQ(out["usageMetadata"]["totalTokenCount"], 150);
  EXPECT_EQ(out["usageMetadata"]["cachedContentTokenCount"], 40);
  EXPECT_EQ(out["responseId"], "resp-abc");
  EXPECT_EQ(decode_resp(encode_resp(r)).parts, r.parts);
}

// createTime (RFC 3339) is the IR's `created` (gap 17): an answer translated
// to OpenAI carries the time, and Gemini writes it back (to the second).
TEST(GeminiResponse, CreateTimeIsCreated) {
  const std::string body =
      R"({"candidates":[{"content":{"role":"model","parts":[{"text":"hi"}]},)"
      R"("finishReason":"STOP","index":0}],"modelVersion":"g","responseId":"r1",)"
      R"("createTime":"2026-11-27T10:20:30.123456Z"})";
  ir::Response r = decode_resp(body);
  EXPECT_EQ(r.created, 1795774830);
  EXPECT_TRUE(r.extra.empty());
  EXPECT_EQ(parse(encode_resp(r))["createTime"], "2026-11-27T10:20:30Z");
  Warnings w;
  auto chat = find_codec("openai_chat")->encode_response(r, w);
  ASSERT_TRUE(chat.ok());
  EXPECT_EQ(parse(*chat)["created"], 1795774830);
  EXPECT_TRUE(w.empty()) << w.front().code << " " << w.front().path;
  // An offset is honoured; text that is no date-time stays an extra.
  const std::string cand =
      R"({"candidates":[{"content":{"role":"model","parts":[{"text":"hi"}]},"index":0}],)";
  EXPECT_EQ(decode_resp(cand + R"("createTime":"2026-11-27T11:20:30+01:00"})").created, 1795774830);
  ir::Response odd = decode_resp(cand + R"("createTime":"yesterday"})");
  EXPECT_EQ(odd.created, 0);
  ASSERT_EQ(odd.extra.size(), 1u);
  EXPECT_EQ(odd.extra[0].key, "createTime");
}

TEST(GeminiResponse, FinishReasons) {
  auto finish = [](const std::string& reason, bool call = false) {
    const std::string part =
        call ? R"({"functionCall":{"name":"f","args":{}}})" : R"({"text":"x"})";
    return decode_resp(R"({"candidates":[{"content":{"role":"model","parts":[)" + part +
                       R"(]},"finishReason":")" + reason + R"("}]})")
        .finish;
  };
  EXPECT_EQ(finish("STOP").kind, Kind::stop);
  EXPECT_EQ(finish("STOP", true).kind, Kind::tool_calls);
  EXPECT_EQ(finish("MAX_TOKENS").kind, Kind::length);
  for (const char* r : {"SAFETY", "RECITATION", "BLOCKLIST", "PROHIBITED_CONTENT", "SPII"})
    EXPECT_EQ(finish(r).kind, Kind::content_filter) << r;
  EXPECT_EQ(finish("MALFORMED_FUNCTION_CALL").kind, Kind::error);
  EXPECT_EQ(finish("MALFORMED_FUNCTION_CALL").raw, "MALFORMED_FUNCTION_CALL");
  EXPECT_EQ(finish("OTHER").kind, Kind::other);
  // A prompt blocked before any candidate.
  ir::Response blocked = decode_resp(
      R"({"promptFeedback":{"blockReason":"SAFETY","safetyRatings":[]},"usageMetadata":{"promptTokenCount":7}})");
  EXPECT_EQ(blocked.finish.kind, Kind::content_filter);
  EXPECT_EQ(blocked.finish.raw, "SAFETY");
  EXPECT_TRUE(blocked.parts.empty());
  EXPECT_EQ(parse(encode_resp(blocked)),
            parse(R"({"usageMetadata":{"promptTokenCount":7,"totalTokenCount":7},
                      "promptFeedback":{"blockReason":"SAFETY","safetyRatings":[]}})"));
  // Encoding kinds from other dialects.
  auto encoded = [](Kind k, const std::string& raw) {
    ir::Response r;
    r.parts.push_back(ir::TextPart{"x"});
    r.finish = {k, raw};
    return parse(encode_resp(r))["candidates"][0]["finishReason"];
  };
  EXPECT_EQ(encoded(Kind::stop, "end_turn"), "STOP");
  EXPECT_EQ(encoded(Kind::length, "max_tokens"), "MAX_TOKENS");
  EXPECT_EQ(encoded(Kind::content_filter, "refusal"), "SAFETY");
  EXPECT_EQ(encoded(Kind::content_filter, "RECITATION"), "RECITATION");
  EXPECT_EQ(encoded(Kind::other, "pause_turn"), "OTHER");
}

TEST(GeminiResponse, BadInputNamesThePath) {
  struct Case {
    const char* body;
    const char* path;
  } cases[] = {
      {R"({})", "$"},
      {R"({"candidates":{}})", "$.candidates"},
      {R"({"candidates":[{"content":{"parts":[{"functionCall":{"name":"f","args":"x"}}]}}]})",
       "$.candidates[0].content.parts[0].functionCall.args"},
      {R"({"candidates":[{"finishReason":3}]})", "$.candidates[0].finishReason"},
      {R"({"candidates":[],"usageMetadata":{"promptTokenCount":"9"}})",
       "$.usageMetadata.promptTokenCount"},
  };
  for (const auto& c : cases) {
    Warnings w;
    auto r = codec().decode_response(c.body, w);
    ASSERT_FALSE(r) << c.body;
    EXPECT_EQ(r.error().path, c.path) << c.body << "\n" << r.error().to_string();
  }
}

TEST(GeminiErrors, EncodeWithGoogleStatuses) {
  struct Case {
    ErrorCode code;
    int http;
    const char* status;
  } cases[] = {{ErrorCode::invalid_argument, 400, "INVALID_ARGUMENT"},
               {ErrorCode::unauthenticated, 401, "UNAUTHENTICATED"},
               {ErrorCode::permission_denied, 403, "PERMISSION_DENIED"},
               {ErrorCode::not_found, 404, "NOT_FOUND"},
               {ErrorCode::resource_exhausted, 429, "RESOURCE_EXHAUSTED"},
               {ErrorCode::internal, 500, "INTERNAL"},
               {ErrorCode::deadline_exceeded, 504, "DEADLINE_EXCEEDED"}};
  for (const auto& c : cases) {
    WireError e = codec().encode_error(make_error(c.code, "bad thing", "$.contents[0]"));
    EXPECT_EQ(e.http_status, c.http) << c.status;
    json body = parse(e.body);
    EXPECT_EQ(body["error"]["code"], c.http);
    EXPECT_EQ(body["error"]["status"], c.status);
    EXPECT_EQ(body["error"]["message"], "$.contents[0]: bad thing");
  }
  Error upstream = make_error(ErrorCode::unavailable, "down");
  upstream.http_status = 503;
  EXPECT_EQ(parse(codec().encode_error(upstream).body)["error"]["status"], "UNAVAILABLE");
}

TEST(GeminiErrors, DecodeGoogleShape) {
  const std::string body =
      R"({"error":{"code":429,"message":"Resource has been exhausted (e.g. check quota).","status":"RESOURCE_EXHAUSTED"}})";
  Error e = codec().decode_error(429, body);
  EXPECT_EQ(e.code, ErrorCode::resource_exhausted);
  EXPECT_EQ(e.message, "Resource has been exhausted (e.g. check quota).");
  // In a 200 body or a stream the status string decides; a list wraps it
  // when alt=sse was not asked for.
  EXPECT_EQ(codec().decode_error(0, "[" + body + "]").code, ErrorCode::resource_exhausted);
  EXPECT_EQ(
      codec()
          .decode_error(200, R"({"error":{"code":400,"message":"m","status":"INVALID_ARGUMENT"}})")
          .code,
      ErrorCode::invalid_argument);
  Error plain = codec().decode_error(502, "<html>bad gateway</html>");
  EXPECT_EQ(plain.code, ErrorCode::unavailable);
  EXPECT_EQ(plain.message, "<html>bad gateway</html>");
  // A response body that is an error decodes as that error.
  Warnings w;
  auto r = codec().decode_response(body, w);
  ASSERT_FALSE(r);
  EXPECT_EQ(r.error().code, ErrorCode::resource_exhausted);
  // Round trip through the encoder.
  WireError wire = codec().encode_error(make_error(ErrorCode::not_found, "no such model"));
  EXPECT_EQ(codec().decode_error(wire.http_status, wire.body).code, ErrorCode::not_found);
}

TEST(GeminiErrors, StreamErrorCodes) {
  const Dialect* d = find_dialect("gemini");
  ASSERT_TRUE(d && d->stream_error_code);
  auto stream_error_code_for = d->stream_error_code;
  EXPECT_EQ(stream_error_code_for("RESOURCE_EXHAUSTED"), ErrorCode::resource_exhausted);
  EXPECT_EQ(stream_error_code_for("INVALID_ARGUMENT"), ErrorCode::invalid_argument);
  EXPECT_EQ(stream_error_code_for("INTERNAL"), ErrorCode::unavailable);
}

}  // namespace
}  // namespace toolwire::dialects::gemini_test
