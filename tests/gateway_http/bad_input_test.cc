// The bad-input table of docs/gateway.md: one test per row, for both client
// dialects. Each row checks the exact status and error shape, and then that
// the server still answers a normal request on a new connection.
#include <gtest/gtest.h>

#include "gateway_rig.h"

namespace toolwire::testing {
namespace {

// `,"tools":[...]` with one tool `f` whose schema is `schema`.
std::string tools_field(const DialectCase& d, std::string_view schema) {
  if (d.anthropic) return R"(,"tools":[{"name":"f","input_schema":)" + std::string(schema) + "}]";
  return R"(,"tools":[{"type":"function","function":{"name":"f","parameters":)" +
         std::string(schema) + "}}]";
}

class BadInput : public ::testing::TestWithParam<DialectCase> {
 protected:
  const DialectCase& d() const { return GetParam(); }

  // A normal request on a fresh connection is answered.
  void expect_serves() {
    RawClient c(rig.port);
    ASSERT_TRUE(c.connected());
    ASSERT_TRUE(c.send(d().request(d().body(d().model(), "still here"))));
    auto r = c.read_response();
    ASSERT_TRUE(r.has_value()) << "no answer to a normal request";
    EXPECT_EQ(r->status, 200) << r->body;
    EXPECT_NE(r->body.find("echo: still here"), std::string::npos) << r->body;
  }

  std::optional<HttpResponse> roundtrip(std::string_view bytes, Ms limit = Ms(5000)) {
    RawClient c(rig.port);
    EXPECT_TRUE(c.connected());
    EXPECT_TRUE(c.send(bytes));
    return c.read_response(limit);
  }

  GatewayRig rig;
};

TEST_P(BadInput, MalformedJson) {
  // The message names where the JSON goes wrong.
  expect_error_shape(roundtrip(d().request(R"({"model":"gpt-test","messages":[)")), d().anthropic,
                     400, "malformed JSON at byte 32 (line 1, column 33): unexpected end of input");
  expect_error_shape(roundtrip(d().request("not json at all")), d().anthropic, 400);
  EXPECT_EQ(rig.provider->calls(), 0);
  expect_serves();
}

TEST_P(BadInput, EmptyBody) {
  expect_error_shape(roundtrip(d().request("")), d().anthropic, 400);
  expect_serves();
}

// The client sends part of the body and goes away: there is nobody to answer,
// the connection is closed and nothing reaches the provider.
TEST_P(BadInput, TruncatedBodyThenClose) {
  std::string full = d().request(d().body(d().model()));
  {
    RawClient c(rig.port);
    ASSERT_TRUE(c.send(full.substr(0, full.size() - 10)));
    c.shutdown_write();
    EXPECT_TRUE(c.wait_closed(Ms(3000)));
    EXPECT_EQ(c.buffer(), "") << "a request that never arrived was answered";
  }
  {
    RawClient c(rig.port);
    ASSERT_TRUE(c.send(full.substr(0, full.size() - 10)));
    c.reset();
  }
  EXPECT_EQ(rig.provider->calls(), 0);
  expect_serves();
}

// The body stops short of its Content-Length and the client waits: 408 after
// the body timeout, in the dialect of the request's path.
TEST_P(BadInput, TruncatedBodyStalls) {
  std::string full = d().request(d().body(d().model()));
  RawClient c(rig.port);
  auto t0 = SteadyClock::now();
  ASSERT_TRUE(c.send(full.substr(0, full.size() - 10)));
  auto r = c.read_response(Ms(5000));
  auto took = SteadyClock::now() - t0;
  expect_error_shape(r, d().anthropic, 408);
  EXPECT_GE(took, Ms(250));
  EXPECT_LT(took, Ms(3000));
  EXPECT_EQ(r->header("connection"), "close");
  EXPECT_TRUE(c.wait_closed());
  expect_serves();
}

TEST_P(BadInput, OversizedBody) {
  // Declared too large: refused from the header, before the body is read.
  std::string head = "POST " + d().path + " HTTP/1.1\r\nhost: x\r\ncontent-type: " +
                     "application/json\r\ncontent-length: 1000000\r\n\r\n";
  expect_error_shape(roundtrip(head + std::string(1000, ' ')), d().anthropic, 413);
  // Chunked, no length: refused once the body passes the limit.
  std::string chunked =
      "POST " + d().path + " HTTP/1.1\r\nhost: x\r\ntransfer-encoding: chunked\r\n\r\n";
  std::string piece(16 * 1024, ' ');
  char size[16];
  std::snprintf(size, sizeof size, "%zx\r\n", piece.size());
  for (int i = 0; i < 5; ++i) chunked += size + piece + "\r\n";
  expect_error_shape(roundtrip(chunked), d().anthropic, 413);
  EXPECT_EQ(rig.provider->calls(), 0);
  expect_serves();
}

TEST_P(BadInput, UnknownRoute) {
  // The dialect is the path's (/v1/messages...) or the anthropic-version header's.
  std::string path = d().anthropic ? "/v1/messages/batches/x" : "/v1/completions/x";
  auto r = roundtrip(http_post(path, d().body(d().model())));
  expect_error_shape(r, d().anthropic, 404, "no route POST");
  r = roundtrip(d().request(d().body(d().model())).replace(5, d().path.size(), "/v2/nothing"));
  expect_error_shape(r, d().anthropic, 404, "no route POST /v2/nothing");
  expect_serves();
}

TEST_P(BadInput, UnknownModel) {
  auto r = roundtrip(d().request(d().body("no-such-model")));
  expect_error_shape(r, d().anthropic, 404, "no-such-model");
  if (!d().anthropic) {
    auto j = nlohmann::json::parse(r->body);
    EXPECT_EQ(j["error"]["param"], "$.model");
  }
  EXPECT_EQ(rig.provider->calls(), 0);
  expect_serves();
}

TEST_P(BadInput, BadToolChoice) {
  std::string tools = tools_field(d(), R"({"type":"object"})");
  std::string choice =
      d().anthropic ? R"(,"tool_choice":{"type":"sometimes"})" : R"(,"tool_choice":"sometimes")";
  auto r = roundtrip(d().request(d().body(d().model(), "hi", false, tools + choice)));
  expect_error_shape(r, d().anthropic, 400, "sometimes");
  // Not a string or an object at all.
  r = roundtrip(d().request(d().body(d().model(), "hi", false, tools + R"(,"tool_choice":7)")));
  expect_error_shape(r, d().anthropic, 400, "tool_choice");
  EXPECT_EQ(rig.provider->calls(), 0);
  expect_serves();
}

// A tool result whose call id matches no earlier tool call is refused by the
// decoder, with the path of the id.
TEST_P(BadInput, ToolResultWithoutCall) {
  std::string body =
      d().anthropic
          ? R"({"model":"claude-test","max_tokens":64,"messages":[{"role":"user","content":"hi"},)"
            R"({"role":"user","content":[{"type":"tool_result","tool_use_id":"toolu_x",)"
            R"("content":"42"}]}]})"
          : R"({"model":"gpt-test","messages":[{"role":"user","content":"hi"},)"
            R"({"role":"tool","tool_call_id":"call_x","content":"42"}]})";
  auto r = roundtrip(d().request(body));
  expect_error_shape(r, d().anthropic, 400, d().anthropic ? "toolu_x" : "call_x");
  EXPECT_EQ(rig.provider->calls(), 0);
  expect_serves();
}

// A tool's schema that is not a JSON object (a string, an array).
TEST_P(BadInput, ToolSchemaNotJsonObject) {
  for (std::string_view schema : {R"("object")", R"([1,2])"}) {
    auto r = roundtrip(d().request(d().body(d().model(), "hi", false, tools_field(d(), schema))));
    expect_error_shape(r, d().anthropic, 400, "expected object");
  }
  EXPECT_EQ(rig.provider->calls(), 0);
  expect_serves();
}

// A tool's schema that is an object but does not describe one (`type` is not
// "object"): both APIs refuse it, so the gateway must too, before any
// upstream call (the request decoder refuses it).
TEST_P(BadInput, ToolSchemaNotObjectType) {
  std::string tools = tools_field(d(), R"({"type":"string"})");
  auto r = roundtrip(d().request(d().body(d().model(), "hi", false, tools)));
  expect_error_shape(r, d().anthropic, 400, R"(must be of type "object")");
  if (!d().anthropic && r) {
    EXPECT_EQ(nlohmann::json::parse(r->body)["error"]["param"],
              "$.tools[0].function.parameters.type");
  }
  EXPECT_EQ(rig.provider->calls(), 0);
  expect_serves();
}

// A tool name outside the API's rule (^[a-zA-Z0-9_-]{1,64}$ for OpenAI,
// {1,128} for Anthropic): refused before any upstream call, naming the rule.
TEST_P(BadInput, ToolNameInvalid) {
  const std::string name_field = d().anthropic
                                     ? R"("name":"bad name!","input_schema":{"type":"object"})"
                                     : R"("name":"bad name!","parameters":{"type":"object"})";
  const std::string tools =
      d().anthropic ? ",\"tools\":[{" + name_field + "}]"
                    : R"(,"tools":[{"type":"function","function":{)" + name_field + "}}]";
  auto r = roundtrip(d().request(d().body(d().model(), "hi", false, tools)));
  expect_error_shape(r, d().anthropic, 400, "invalid tool name 'bad name!'");
  if (!d().anthropic && r) {
    EXPECT_EQ(nlohmann::json::parse(r->body)["error"]["param"], "$.tools[0].function.name");
  }
  // Too long for the caller's API.
  const std::string long_name(d().anthropic ? 129 : 65, 'n');
  const std::string long_tools =
      d().anthropic
          ? R"(,"tools":[{"name":")" + long_name + R"(","input_schema":{}}])"
          : R"(,"tools":[{"type":"function","function":{"name":")" + long_name + R"("}}])";
  expect_error_shape(roundtrip(d().request(d().body(d().model(), "hi", false, long_tools))),
                     d().anthropic, 400, "invalid tool name");
  EXPECT_EQ(rig.provider->calls(), 0);
  expect_serves();
}

// A top-level key given twice: served with the last value, and said so in
// the `toolwire-warnings` header.
TEST_P(BadInput, DuplicateKeyWarns) {
  const std::string again = R"(,"model":")" + d().model() + "\"";
  auto r = roundtrip(d().request(d().body("no-such-model", "hi", false, again)));
  ASSERT_TRUE(r.has_value());
  EXPECT_EQ(r->status, 200) << r->body;
  EXPECT_NE(r->header("toolwire-warnings").find("duplicate_key ($.model)"), std::string::npos)
      << r->header("toolwire-warnings");
  EXPECT_EQ(rig.provider->calls(), 1);
}

// More header bytes than max_header_bytes: 431 in the dialect of the path on
// the request line, and the connection closes.
TEST_P(BadInput, HeaderFlood) {
  std::string req = "POST " + d().path + " HTTP/1.1\r\nhost: x\r\n";
  for (int i = 0; i < 200; ++i)
    req += "x-flood-" + std::to_string(i) + ": " + std::string(40, 'a') + "\r\n";
  req += "content-length: 2\r\n\r\n{}";
  RawClient c(rig.port);
  ASSERT_TRUE(c.send(req));
  auto r = c.read_response();
  expect_error_shape(r, d().anthropic, 431);
  EXPECT_TRUE(c.wait_closed());
  expect_serves();
}

// A header that never ends (the flood arrives slowly, no CRLFCRLF): still 431
// once the limit is passed, not a wait for the header timeout.
TEST_P(BadInput, HeaderFloodWithoutEnd) {
  std::string req = "POST " + d().path + " HTTP/1.1\r\nx-long: " + std::string(8 * 1024, 'a');
  auto r = roundtrip(req, Ms(3000));
  expect_error_shape(r, d().anthropic, 431);
  expect_serves();
}

// Sends `req` one byte per tick (a tick ends early when the server answers),
// the first `at_once` bytes in one go; after 5 bytes another client is
// served in full meanwhile. Returns the slow client's answer.
std::optional<HttpResponse> slow_send(GatewayRig& rig, const DialectCase& d, const std::string& req,
                                      size_t at_once, size_t& sent, SteadyClock::duration& took) {
  RawClient slow(rig.port);
  auto t0 = SteadyClock::now();
  sent = 0;
  EXPECT_TRUE(slow.send(req.substr(0, at_once)));
  sent = at_once;
  while (sent < req.size()) {
    EXPECT_TRUE(slow.send(req.substr(sent, 1)));
    ++sent;
    if (sent == at_once + 5) {
      RawClient other(rig.port);
      EXPECT_TRUE(other.send(d.request(d.body(d.model(), "meanwhile"))));
      auto r = other.read_response(Ms(2000));
      EXPECT_TRUE(r.has_value() && r->status == 200) << "another client was not served";
    }
    if (slow.wait_readable(Ms(50))) break;  // the server answered (or closed)
  }
  auto r = slow.read_response(Ms(3000));
  took = SteadyClock::now() - t0;
  EXPECT_TRUE(slow.wait_closed());
  return r;
}

// The request line at once, then the headers one byte per tick: 408 after
// the header timeout (300 ms), in the dialect of the path; another client is
// served normally meanwhile.
TEST_P(BadInput, SlowClientOneBytePerTick) {
  std::string req = d().request(d().body(d().model()));
  size_t sent = 0;
  SteadyClock::duration took{};
  auto r = slow_send(rig, d(), req, req.find("\r\n") + 2, sent, took);
  EXPECT_LT(sent, req.size()) << "the whole request went through at a byte per tick";
  expect_error_shape(r, d().anthropic, 408, "read timeout");
  EXPECT_GE(took, Ms(250));
  EXPECT_LT(took, Ms(3000));
  EXPECT_EQ(rig.provider->calls(), 1);  // only the other client's
  expect_serves();
}

// One byte per tick from the first byte: the timeout comes before the path
// is known, so the error is in the default (OpenAI) shape.
TEST_P(BadInput, SlowClientFromFirstByte) {
  std::string req = d().request(d().body(d().model()));
  size_t sent = 0;
  SteadyClock::duration took{};
  auto r = slow_send(rig, d(), req, 0, sent, took);
  EXPECT_LT(sent, d().path.size());
  expect_error_shape(r, /*anthropic=*/false, 408, "read timeout");
  EXPECT_LT(took, Ms(3000));
  expect_serves();
}

TEST_P(BadInput, WrongMethod) {
  RawClient c(rig.port);
  std::string extra = d().anthropic ? "anthropic-version: 2023-06-01\r\n" : "";
  ASSERT_TRUE(c.send(http_get(d().path, extra)));
  auto r = c.read_response();
  expect_error_shape(r, d().anthropic, 405, "GET is not allowed");
  EXPECT_EQ(r->header("allow"), "POST");
  // The connection stays usable.
  ASSERT_TRUE(c.send(d().request(d().body(d().model(), "after 405"))));
  r = c.read_response();
  ASSERT_TRUE(r.has_value());
  EXPECT_EQ(r->status, 200);
  EXPECT_NE(r->body.find("echo: after 405"), std::string::npos);
  expect_serves();
}

TEST_P(BadInput, MalformedRequestLine) {
  auto r = roundtrip("POST /v1/chat/completions HTTP/9.9 nonsense\r\n\r\n");
  ASSERT_TRUE(r.has_value());
  EXPECT_EQ(r->status, 400);
  r = roundtrip(std::string("\x16\x03\x01\x02\x00\x01\x00\x01\xfc\x03\x03", 11) +
                std::string(64, '\0'));  // a TLS ClientHello on the plain port
  ASSERT_TRUE(r.has_value());
  EXPECT_EQ(r->status, 400);
  expect_serves();
}

// Three requests in one write: three answers, in order, on one connection.
TEST_P(BadInput, Pipelining) {
  RawClient c(rig.port);
  std::string bytes = d().request(d().body(d().model(), "one")) +
                      d().request(d().body("no-such-model")) +
                      d().request(d().body(d().model(), "three"), "connection: close\r\n");
  ASSERT_TRUE(c.send(bytes));
  auto a = c.read_response();
  auto b = c.read_response();
  auto e = c.read_response();
  ASSERT_TRUE(a && b && e);
  EXPECT_EQ(a->status, 200);
  EXPECT_NE(a->body.find("echo: one"), std::string::npos);
  expect_error_shape(b, d().anthropic, 404);
  EXPECT_EQ(e->status, 200);
  EXPECT_NE(e->body.find("echo: three"), std::string::npos);
  EXPECT_EQ(e->header("connection"), "close");
  EXPECT_TRUE(c.wait_closed());
  EXPECT_EQ(c.buffer(), "");
}

// More pipelined requests than max_pipelined: reading pauses while the
// queue is full and resumes, and every request is answered in order.
TEST(PipeliningLimit, MoreThanTheQueueHolds) {
  auto opt = small_options();
  opt.limits.max_pipelined = 2;
  GatewayRig rig(opt);
  DialectCase d = dialects()[0];
  RawClient c(rig.port);
  std::string bytes;
  for (int i = 0; i < 7; ++i) bytes += d.request(d.body(d.model(), "n" + std::to_string(i)));
  ASSERT_TRUE(c.send(bytes));
  for (int i = 0; i < 7; ++i) {
    auto r = c.read_response();
    ASSERT_TRUE(r.has_value()) << "answer " << i;
    EXPECT_EQ(r->status, 200);
    EXPECT_NE(r->body.find("echo: n" + std::to_string(i)), std::string::npos) << r->body;
  }
}

// The same with a mix of answers made at once (404, 405, /metrics) and model
// calls, and the client's write side shut after the last byte: every request
// is answered and then the connection closes.
TEST(PipeliningLimit, MixedAnswersThenHalfClose) {
  auto opt = small_options();
  opt.limits.max_pipelined = 2;
  GatewayRig rig(opt);
  DialectCase d = dialects()[1];
  std::string bytes;
  int n = 0;
  for (int i = 0; i < 12; ++i, n += 4)
    bytes += d.request(d.body(d.model(), "n" + std::to_string(i))) + http_get("/metrics") +
             http_get("/nowhere") + http_get(d.path);
  for (int round = 0; round < 20; ++round) {
    RawClient c(rig.port);
    ASSERT_TRUE(c.send(bytes));
    c.shutdown_write();
    ASSERT_TRUE(c.wait_closed(Ms(4000))) << "round " << round;
    int answers = 0;
    while (take_response(c.buffer(), true)) ++answers;
    EXPECT_EQ(answers, n) << "round " << round;
  }
}

// A streamed answer and a whole one pipelined behind it keep their order.
TEST_P(BadInput, PipeliningBehindStream) {
  RawClient c(rig.port);
  ASSERT_TRUE(c.send(d().request(d().body("hold-1", "s", true)) +
                     d().request(d().body(d().model(), "second"))));
  auto call = rig.provider->held(0);
  ASSERT_TRUE(call);
  call->emit(ir::MessageStart{"m", "x", 0});
  call->emit(ir::TextDelta{"streamed"});
  call->emit(ir::Finish{ir::FinishReason{ir::FinishReason::Kind::stop, "stop"}});
  call->finish();
  auto a = c.read_response();
  auto b = c.read_response();
  ASSERT_TRUE(a && b);
  EXPECT_EQ(a->status, 200);
  EXPECT_TRUE(a->chunked);
  EXPECT_NE(a->body.find("streamed"), std::string::npos);
  EXPECT_EQ(b->status, 200);
  EXPECT_NE(b->body.find("echo: second"), std::string::npos);
}

TEST_P(BadInput, KeepAliveReuse) {
  RawClient c(rig.port);
  for (int i = 0; i < 3; ++i) {
    std::string text = "turn " + std::to_string(i);
    ASSERT_TRUE(c.send(d().request(d().body(d().model(), text))));
    auto r = c.read_response();
    ASSERT_TRUE(r.has_value()) << "request " << i;
    EXPECT_EQ(r->status, 200);
    EXPECT_EQ(r->header("connection"), "");
    EXPECT_NE(r->body.find("echo: " + text), std::string::npos);
  }
  EXPECT_FALSE(c.eof());
  EXPECT_EQ(rig.metric("toolwire_open_connections"), 1);
}

TEST_P(BadInput, Http10) {
  std::string extra = d().anthropic ? "anthropic-version: 2023-06-01\r\n" : "";
  {  // Whole answer: HTTP/1.0, Content-Length, then the server closes.
    RawClient c(rig.port);
    ASSERT_TRUE(c.send(http_post(d().path, d().body(d().model(), "old"), extra, "HTTP/1.0")));
    auto r = c.read_response();
    ASSERT_TRUE(r.has_value());
    EXPECT_EQ(r->version, "HTTP/1.0");
    EXPECT_EQ(r->status, 200);
    EXPECT_NE(r->body.find("echo: old"), std::string::npos);
    EXPECT_TRUE(c.wait_closed());
  }
  {  // Streamed: no chunked framing on 1.0; the body ends with the connection.
    RawClient c(rig.port);
    ASSERT_TRUE(c.send(http_post(d().path, d().body(d().model(), "old", true), extra, "HTTP/1.0")));
    EXPECT_TRUE(c.wait_closed());
    auto r = take_response(c.buffer(), true);
    ASSERT_TRUE(r.has_value());
    EXPECT_EQ(r->version, "HTTP/1.0");
    EXPECT_EQ(r->status, 200);
    EXPECT_FALSE(r->chunked);
    EXPECT_NE(r->body.find("old"), std::string::npos);
    EXPECT_NE(r->body.find(d().anthropic ? "message_stop" : "[DONE]"), std::string::npos);
  }
  {  // 1.0 with keep-alive asked for: kept open.
    RawClient c(rig.port);
    ASSERT_TRUE(c.send(http_post(d().path, d().body(d().model(), "a"),
                                 extra + "connection: keep-alive\r\n", "HTTP/1.0")));
    auto r = c.read_response();
    ASSERT_TRUE(r.has_value());
    EXPECT_EQ(r->header("connection"), "keep-alive");
    ASSERT_TRUE(c.send(http_post(d().path, d().body(d().model(), "b"), extra, "HTTP/1.0")));
    r = c.read_response();
    ASSERT_TRUE(r.has_value());
    EXPECT_NE(r->body.find("echo: b"), std::string::npos);
  }
  expect_serves();
}

INSTANTIATE_TEST_SUITE_P(Dialects, BadInput, ::testing::ValuesIn(dialects()),
                         [](const auto& info) { return info.param.name; });

}  // namespace
}  // namespace toolwire::testing
