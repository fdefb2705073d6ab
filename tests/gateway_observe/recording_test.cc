// The recording's pieces on their own: request keys (key order, ids and
// timestamps do not matter; the body does), the nearest-difference report,
// the file format both ways, and bad files (each a clear error, no crash).
#include <gtest/gtest.h>

#include "gateway/replay/normalize.h"
#include "gateway/replay/recording.h"

namespace toolwire::gateway::replay {
namespace {

TEST(RequestKey, KeyOrderIdsAndTimestampsDoNotMatter) {
  auto a = normalize_request(
      "POST", "http://127.0.0.1:1234/v1/chat/completions",
      R"({"model":"m","messages":[{"role":"assistant","tool_calls":[{"id":"call_A","function":{}}]},)"
      R"({"role":"tool","tool_call_id":"call_A","content":"x"}],"created":17})");
  auto b = normalize_request(
      "POST", "https://other.example:9/v1/chat/completions",
      R"({"created":99,"messages":[{"tool_calls":[{"function":{},"id":"call_Z"}],"role":"assistant"},)"
      R"({"content":"x","tool_call_id":"call_Z","role":"tool"}],"model":"m"})");
  EXPECT_EQ(a.text(), b.text());
  // Ids used differently (the result answers another call) do not match.
  auto c = normalize_request(
      "POST", "http://h/v1/chat/completions",
      R"({"model":"m","messages":[{"role":"assistant","tool_calls":[{"id":"call_A","function":{}}]},)"
      R"({"role":"tool","tool_call_id":"call_B","content":"x"}],"created":17})");
  EXPECT_NE(a.text(), c.text());
}

TEST(RequestKey, SecretQueryParametersAreDropped) {
  EXPECT_EQ(request_target("https://h/v1beta/models/m:streamGenerateContent?alt=sse&key=SECRET"),
            "/v1beta/models/m:streamGenerateContent?alt=sse");
  EXPECT_EQ(request_target("https://h/x?key=SECRET"), "/x");
  EXPECT_EQ(request_target("https://h"), "/");
}

TEST(RequestKey, DifferenceNamesThePlace) {
  auto rec = normalize_request("POST", "http://h/v1/messages",
                               R"({"model":"m","messages":[{"role":"user","content":"hello"}]})");
  auto got = normalize_request("POST", "http://h/v1/messages",
                               R"({"model":"m","messages":[{"role":"user","content":"hullo"}]})");
  Difference d = differ(rec, got);
  EXPECT_EQ(d.count, 1u);
  EXPECT_EQ(d.where, "$.messages[0].content");
  EXPECT_EQ(d.recorded, "\"hello\"");
  EXPECT_EQ(d.got, "\"hullo\"");
  auto extra = normalize_request(
      "POST", "http://h/v1/messages",
      R"({"model":"m","messages":[{"role":"user","content":"hello"}],"temperature":1})");
  d = differ(rec, extra);
  EXPECT_EQ(d.where, "$.temperature");
  EXPECT_EQ(d.recorded, "(nothing)");
  auto other_path = normalize_request("POST", "http://h/v1/chat/completions", "{}");
  EXPECT_EQ(differ(rec, other_path).where, "the path");
}

TEST(RecordingFile, RoundTripKeepsEveryByte) {
  Exchange e;
  e.method = "POST";
  e.target = "/model/m/converse-stream";
  e.body = R"({"messages":[]})";
  e.status = 200;
  e.head_ms = 1.5;
  e.headers = {{"content-type", "application/vnd.amazon.eventstream"}};
  e.chunks = {{2.0, std::string("\x00\x00\x01\xff\xfe binary", 12)}, {3.25, "data: {\"a\":1}\n\n"}};
  auto back = parse_exchange(to_file(e), "x.json");
  ASSERT_TRUE(back.ok()) << back.error().to_string();
  EXPECT_EQ(back->method, e.method);
  EXPECT_EQ(back->target, e.target);
  EXPECT_EQ(back->body, e.body);
  EXPECT_EQ(back->status, 200);
  EXPECT_EQ(back->headers, e.headers);
  ASSERT_EQ(back->chunks.size(), 2u);
  EXPECT_EQ(back->chunks[0].bytes, e.chunks[0].bytes);
  EXPECT_EQ(back->chunks[1].bytes, e.chunks[1].bytes);
  EXPECT_DOUBLE_EQ(back->chunks[1].at_ms, 3.25);
  // Binary chunks are base64, text stays readable.
  std::string text = to_file(e);
  EXPECT_NE(text.find("\"base64\""), std::string::npos);
  EXPECT_NE(text.find("data: {\\\"a\\\":1}"), std::string::npos);
}

TEST(RecordingFile, BadFilesAreClearErrors) {
  const std::string ok_head =
      R"({"toolwire_recording":1,"request":{"method":"POST","target":"/x"},)";
  struct Case {
    std::string text;
    std::string says;
  } cases[] = {
      {"", "not valid JSON"},
      {"[]", "not an object"},
      {std::string(5000, '['), "nested more than"},
      {R"({"toolwire_recording":2})", "$.toolwire_recording"},
      {R"({"toolwire_recording":1,"request":7})", "$.request"},
      {R"({"toolwire_recording":1,"request":{"method":1,"target":"/x"}})", "$.request.method"},
      {R"({"toolwire_recording":1,"request":{"method":"POST","target":"x"}})", "$.request.target"},
      {ok_head + R"("response":{"status":42,"chunks":[]}})", "$.response.status"},
      {ok_head + R"("response":{"status":200}})", "$.response.chunks"},
      {ok_head + R"("response":{"status":200,"chunks":[{"at_ms":-1,"text":""}]}})",
       "$.response.chunks[0].at_ms"},
      {ok_head + R"("response":{"status":200,"chunks":[{"base64":"!!!"}]}})",
       "$.response.chunks[0].base64"},
      {ok_head + R"("response":{"status":200,"chunks":[{}]}})", "$.response.chunks[0]"},
      {ok_head + R"("response":{"status":200,"headers":[["a"]],"chunks":[]}})",
       "$.response.headers[0]"},
  };
  for (const auto& c : cases) {
    auto r = parse_exchange(c.text, "bad.json");
    ASSERT_FALSE(r.ok()) << c.text;
    EXPECT_NE(r.error().message.find("recording bad.json"), std::string::npos) << r.error().message;
    EXPECT_NE(r.error().message.find(c.says), std::string::npos) << r.error().message;
  }
}

TEST(RecordingFile, SecretHeadersAreNamed) {
  EXPECT_TRUE(secret_header("Set-Cookie"));
  EXPECT_TRUE(secret_header("x-api-key"));
  EXPECT_TRUE(secret_header("X-Amz-Security-Token"));
  EXPECT_FALSE(secret_header("content-type"));
  EXPECT_FALSE(secret_header("x-ratelimit-remaining-requests"));
}

}  // namespace
}  // namespace toolwire::gateway::replay
