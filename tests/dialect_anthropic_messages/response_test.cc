// Anthropic Messages responses and errors: golden fixtures, finish reasons,
// usage convention, error bodies.
#include <gtest/gtest.h>

#include "test_util.h"

namespace toolwire::dialects::anthropic_test {
namespace {

using nlohmann::json;
using Kind = ir::FinishReason::Kind;

ir::Response decode_ok(const std::string& body) {
  Warnings w;
  auto r = codec().decode_response(body, w);
  EXPECT_TRUE(r.ok()) << (r.ok() ? "" : r.error().to_string());
  return r.ok() ? std::move(r).value() : ir::Response{};
}

std::string encode_ok(const ir::Response& resp, Warnings* warnings = nullptr) {
  Warnings local;
  auto r = codec().encode_response(resp, warnings ? *warnings : local);
  EXPECT_TRUE(r.ok());
  return r.ok() ? *r : std::string("{}");
}

class GoldenResponse : public ::testing::TestWithParam<const char*> {};

// The doc examples omit type, stop_sequence and usage; the encoder always
// writes them (documented normalisation).
TEST_P(GoldenResponse, DecodeEncodeIsSemanticallyEqual) {
  const std::string body = read_fixture(GetParam());
  Warnings warnings;
  const std::string out = encode_ok(decode_ok(body), &warnings);
  EXPECT_TRUE(warnings.empty());
  json expected = parse(body);
  expected["type"] = "message";
  expected["stop_sequence"] = nullptr;
  expected["usage"] = {{"input_tokens", 0}, {"output_tokens", 0}};
  EXPECT_EQ(parse(out), expected) << out;
  EXPECT_EQ(encode_ok(decode_ok(out)), out);
}

INSTANTIATE_TEST_SUITE_P(Fixtures, GoldenResponse,
                         ::testing::Values("anthropic-messages-tool-use.response.json",
                                           "anthropic-messages-tool-result.response.json"));

TEST(AnthropicResponse, ToolUseFixture) {
  ir::Response r = decode_ok(read_fixture("anthropic-messages-tool-use.response.json"));
  EXPECT_EQ(r.id, "msg_01Aq9w938a90dw8q");
  EXPECT_EQ(r.model, "claude-sonnet-4-5");
  EXPECT_EQ(r.finish, (ir::FinishReason{Kind::tool_calls, "tool_use"}));
  ASSERT_EQ(r.parts.size(), 2u);
  const auto& call = std::get<ir::ToolCallPart>(r.parts[1]);
  EXPECT_EQ(call.id, "toolu_01A09q90qw90lq917835lq9");
  EXPECT_EQ(json::parse(call.arguments),
            json({{"location", "San Francisco, CA"}, {"unit", "celsius"}}));
  EXPECT_TRUE(r.usage.empty());
}

TEST(AnthropicResponse, StopSequenceFixtureFinishesAsStop) {
  ir::Response r = decode_ok(read_fixture("anthropic-messages-tool-result.response.json"));
  EXPECT_EQ(r.finish, (ir::FinishReason{Kind::stop, "stop_sequence"}));
}

TEST(AnthropicResponse, FullResponseWithUsageCacheAndExtrasRoundTrips) {
  const std::string body = R"({"id":"msg_1","type":"message","role":"assistant","model":"claude",
    "content":[{"type":"thinking","thinking":"hmm","signature":"sig=="},{"type":"text","text":"Hi"},
               {"type":"server_tool_use","id":"srvtoolu_1","name":"web_search","input":{"query":"q"}}],
    "stop_reason":"stop_sequence","stop_sequence":"END","container":null,
    "usage":{"input_tokens":10,"cache_creation_input_tokens":5,"cache_read_input_tokens":100,"output_tokens":7}})";
  ir::Response r = decode_ok(body);
  EXPECT_EQ(r.usage.input_tokens, 115);  // IR counts cached input too
  EXPECT_EQ(r.usage.cache_read_tokens, 100);
  EXPECT_EQ(r.usage.cache_write_tokens, 5);
  EXPECT_EQ(r.usage.output_tokens, 7);
  EXPECT_EQ(std::get<ir::ThinkingPart>(r.parts[0]).signature, "sig==");
  EXPECT_EQ(std::get<ir::UnknownPart>(r.parts[2]).type, "server_tool_use");
  Warnings warnings;
  EXPECT_EQ(parse(encode_ok(r, &warnings)), parse(body));
  EXPECT_TRUE(warnings.empty());
}

// Citations and usage details (issue 23): kept for Anthropic, dropped with a
// warning at their path by any other dialect.
TEST(AnthropicResponse, CitationsAndUsageDetailsSurviveSameDialectAndWarnElsewhere) {
  const std::string body =
      R"({"id":"msg_1","type":"message","role":"assistant","model":"claude","content":[)"
      R"({"type":"text","text":"Hi","citations":[{"type":"web_search_result_location",)"
      R"("url":"https://x","title":"X","encrypted_index":"e","cited_text":"c"}]}],)"
      R"("stop_reason":"end_turn","stop_sequence":null,"usage":{"input_tokens":10,)"
      R"("cache_creation_input_tokens":5,"cache_read_input_tokens":1,"output_tokens":7,)"
      R"("cache_creation":{"ephemeral_5m_input_tokens":5,"ephemeral_1h_input_tokens":0},)"
      R"("server_tool_use":{"web_search_requests":1},"service_tier":"standard"}})";
  ir::Response r = decode_ok(body);
  Warnings warnings;
  EXPECT_EQ(parse(encode_ok(r, &warnings)), parse(body));
  EXPECT_TRUE(warnings.empty());
  Warnings cross;
  auto out = find_codec("openai_chat")->encode_response(r, cross);
  ASSERT_TRUE(out.ok());
  EXPECT_EQ(out->find("citations"), std::string::npos);
  std::vector<std::string> paths;
  for (const auto& w : cross)
    if (w.code == "dropped_unknown_field") paths.push_back(w.path);
  EXPECT_EQ(paths, (std::vector<std::string>{"$.content[0].citations", "$.usage.cache_creation",
                                             "$.usage.server_tool_use", "$.usage.service_tier"}));
}

// Found by fuzz_anthropic_messages_response: with stop_sequence given twice,
// both values were kept, and re-encoding moved one of them, so decode/encode
// was not a fixed point. A key given twice keeps its last value.
TEST(AnthropicResponse, DuplicateStopSequenceKeepsTheLastValueAndEncodingIsAFixedPoint) {
  const std::string body =
      R"({"id":"msg_1","type":"message","role":"assistant","model":"claude","content":[],
    "stop_reason":"end_turn","stop_sequence":"first","usage":{"input_tokens":0,"output_tokens":0},
    "other":1,"stop_sequence":"last"})";
  ir::Response r = decode_ok(body);
  size_t kept = 0;
  for (const auto& e : r.extra)
    if (e.key == "stop_sequence") {
      ++kept;
      EXPECT_EQ(e.raw_json, "\"last\"");
    }
  EXPECT_EQ(kept, 1u);
  const std::string once = encode_ok(r);
  EXPECT_EQ(parse(once)["stop_sequence"], "last");
  EXPECT_EQ(encode_ok(decode_ok(once)), once);
  // A later null clears an earlier value.
  ir::Response cleared =
      decode_ok(R"({"id":"m","model":"c","content":[],"stop_sequence":"x","stop_sequence":null})");
  for (const auto& e : cleared.extra) EXPECT_NE(e.key, "stop_sequence");
}

TEST(AnthropicResponse, CrossDialectResponse) {
  ir::Response r;
  r.model = "gpt-4o";
  r.source_dialect = "openai_chat";
  r.parts = {ir::TextPart{"Checking."}, ir::ToolCallPart{"call_1", "f", "{\"a\":1}", true}};
  r.finish = {Kind::stop, "stop"};  // text + tool calls is still a tool call turn
  r.usage = {50, 9, 20, std::nullopt};
  r.extra = {{"system_fingerprint", "\"fp\""}};
  Warnings warnings;
  json out = parse(encode_ok(r, &warnings));
  EXPECT_EQ(out["stop_reason"], "tool_use");
  EXPECT_EQ(out["usage"],
            json({{"input_tokens", 30}, {"cache_read_input_tokens", 20}, {"output_tokens", 9}}));
  EXPECT_TRUE(out["id"].get<std::string>().rfind("msg_toolwire_", 0) == 0);
  EXPECT_FALSE(out.contains("system_fingerprint"));
  EXPECT_TRUE(has_warning(warnings, "dropped_unknown_field"));
  EXPECT_TRUE(has_warning(warnings, "synthesized_id"));
}

TEST(AnthropicResponse, FinishReasonMapping) {
  struct Case {
    const char* raw;
    Kind kind;
  };
  for (Case c :
       {Case{"end_turn", Kind::stop}, Case{"stop_sequence", Kind::stop},
        Case{"max_tokens", Kind::length}, Case{"model_context_window_exceeded", Kind::length},
        Case{"tool_use", Kind::tool_calls}, Case{"refusal", Kind::content_filter},
        Case{"pause_turn", Kind::other}, Case{"something_new", Kind::other}}) {
    ir::Response r = decode_ok(std::string(R"({"content":[],"stop_reason":")") + c.raw + "\"}");
    EXPECT_EQ(r.finish.kind, c.kind) << c.raw;
    EXPECT_EQ(r.finish.raw, c.raw);
    EXPECT_EQ(parse(encode_ok(r))["stop_reason"], c.raw);  // same dialect: raw written back
  }
  // Another dialect's raw values are rewritten to Anthropic's canonical ones.
  struct Out {
    ir::FinishReason reason;
    const char* expected;
  };
  for (Out c : {Out{{Kind::stop, "stop"}, "end_turn"}, Out{{Kind::length, "length"}, "max_tokens"},
                Out{{Kind::tool_calls, "tool_calls"}, "tool_use"},
                Out{{Kind::content_filter, "content_filter"}, "refusal"},
                Out{{Kind::error, "error"}, "end_turn"}, Out{{Kind::stop, ""}, "end_turn"}}) {
    ir::Response r;
    r.id = "x";
    r.finish = c.reason;
    EXPECT_EQ(parse(encode_ok(r))["stop_reason"], c.expected) << c.reason.raw;
  }
  // A tool call in the parts wins over the raw reason when decoding too.
  ir::Response r = decode_ok(R"({"content":[{"type":"tool_use","id":"a","name":"f","input":{}}],
                                "stop_reason":"end_turn"})");
  EXPECT_EQ(r.finish.kind, Kind::tool_calls);
}

TEST(AnthropicResponse, BadInputNamesThePath) {
  struct Case {
    std::string body;
    std::string path;
  };
  for (const Case& c :
       {Case{R"({"content":{}})", "$.content"},
        Case{R"({"content":[{"type":"text","text":1}]})", "$.content[0].text"},
        Case{R"({"content":[],"usage":{"input_tokens":"1"}})", "$.usage.input_tokens"},
        Case{R"({"content":[],"role":"user"})", "$.role"},
        Case{R"({"content":[{"type":"image"}]})", "$.content[0].type"}, Case{R"({"id":"x"})", "$"},
        Case{"{\"content\":[", "$"}, Case{"\"\xff\"", "$"}}) {
    Warnings w;
    auto r = codec().decode_response(c.body, w);
    ASSERT_FALSE(r.ok()) << c.body;
    EXPECT_EQ(r.error().path, c.path) << r.error().to_string();
  }
  Warnings w;
  EXPECT_EQ(codec().decode_response("{\"content\":\n  [nul]}", w).error().message,
            "malformed JSON at byte 18 (line 2, column 7): invalid literal (expected null)");
}

TEST(AnthropicErrors, EncodeUsesAnthropicTypesAndStatuses) {
  struct Case {
    ErrorCode code;
    int status;
    const char* type;
  };
  for (Case c : {Case{ErrorCode::invalid_argument, 400, "invalid_request_error"},
                 Case{ErrorCode::unauthenticated, 401, "authentication_error"},
                 Case{ErrorCode::permission_denied, 403, "permission_error"},
                 Case{ErrorCode::not_found, 404, "not_found_error"},
                 Case{ErrorCode::resource_exhausted, 429, "rate_limit_error"},
                 Case{ErrorCode::internal, 500, "api_error"},
                 Case{ErrorCode::unavailable, 529, "overloaded_error"}}) {
    WireError e =
        codec().encode_error(make_error(c.code, "unknown role 'bot'", "$.messages[2].role"));
    EXPECT_EQ(e.http_status, c.status);
    EXPECT_EQ(parse(e.body),
              json({{"type", "error"},
                    {"error",
                     {{"type", c.type}, {"message", "$.messages[2].role: unknown role 'bot'"}}}}));
  }
}

TEST(AnthropicErrors, DecodeReadsTheMessageAndStatus) {
  Error e = codec().decode_error(
      529, R"({"type":"error","error":{"type":"overloaded_error","message":"Overloaded"}})");
  EXPECT_EQ(e.code, ErrorCode::unavailable);
  EXPECT_EQ(e.message, "Overloaded");
  e = codec().decode_error(401, "<html>nope</html>");
  EXPECT_EQ(e.code, ErrorCode::unauthenticated);
  EXPECT_EQ(e.message, "<html>nope</html>");
  // An error object in a response body: the type decides the code.
  Warnings w;
  auto r = codec().decode_response(
      R"({"type":"error","error":{"type":"rate_limit_error","message":"slow"}})", w);
  ASSERT_FALSE(r.ok());
  EXPECT_EQ(r.error().code, ErrorCode::resource_exhausted);
  EXPECT_EQ(r.error().message, "slow");
}

}  // namespace
}  // namespace toolwire::dialects::anthropic_test
