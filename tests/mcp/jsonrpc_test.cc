// The JSON-RPC 2.0 layer: every kind of message, batches, and every way a
// frame can be wrong, each answered with the error a peer should get.
#include <gtest/gtest.h>

#include "schema_check.h"
#include "toolwire/mcp/jsonrpc.h"

namespace toolwire::mcp {
namespace {

using nlohmann::json;

TEST(JsonRpc, ParsesEachKind) {
  auto f = parse_frame(R"({"jsonrpc":"2.0","id":1,"method":"tools/list","params":{"cursor":"2"}})");
  ASSERT_EQ(f.messages.size(), 1u);
  EXPECT_TRUE(f.errors.empty());
  EXPECT_EQ(f.messages[0].kind, Message::Kind::request);
  EXPECT_EQ(f.messages[0].id, 1);
  EXPECT_EQ(f.messages[0].params["cursor"], "2");

  f = parse_frame(R"({"jsonrpc":"2.0","method":"notifications/initialized"})");
  ASSERT_EQ(f.messages.size(), 1u);
  EXPECT_EQ(f.messages[0].kind, Message::Kind::notification);
  EXPECT_TRUE(f.messages[0].params.is_null());

  f = parse_frame(R"({"jsonrpc":"2.0","id":"a","result":{}})");
  ASSERT_EQ(f.messages.size(), 1u);
  EXPECT_EQ(f.messages[0].kind, Message::Kind::response);
  EXPECT_EQ(f.messages[0].id, "a");

  f = parse_frame(
      R"({"jsonrpc":"2.0","id":7,"error":{"code":-32601,"message":"nope","data":[1]}})");
  ASSERT_EQ(f.messages.size(), 1u);
  EXPECT_EQ(f.messages[0].kind, Message::Kind::error);
  EXPECT_EQ(f.messages[0].error.code, -32601);
  EXPECT_EQ(f.messages[0].error.message, "nope");
  EXPECT_EQ(*f.messages[0].error.data, json::array({1}));
}

TEST(JsonRpc, MalformedJsonIsAParseError) {
  for (const char* bad : {"{", "not json", R"({"jsonrpc":"2.0",})", "\xff\xfe"}) {
    auto f = parse_frame(bad);
    EXPECT_TRUE(f.messages.empty()) << bad;
    ASSERT_EQ(f.errors.size(), 1u) << bad;
    EXPECT_EQ(f.errors[0].error.code, rpc_error::parse_error) << bad;
    EXPECT_TRUE(f.errors[0].id.is_null());
  }
}

TEST(JsonRpc, InvalidMessagesKeepTheirIdWhenReadable) {
  struct Case {
    const char* text;
    json id;
  } cases[] = {
      {R"({"id":3,"method":"x"})", 3},                             // no jsonrpc
      {R"({"jsonrpc":"1.0","id":"q","method":"x"})", "q"},         // wrong version
      {R"({"jsonrpc":"2.0","id":4,"method":5})", 4},               // method not a string
      {R"({"jsonrpc":"2.0","id":5,"method":"x","params":3})", 5},  // params not structured
      {R"({"jsonrpc":"2.0","id":1.5,"method":"x"})", nullptr},     // id not string/integer
      {R"({"jsonrpc":"2.0","id":6,"result":1,"error":{}})", 6},    // both
      {R"({"jsonrpc":"2.0","id":6,"error":{"code":"x","message":""}})", 6},
      {R"([1,2])", nullptr},
      {R"("just a string")", nullptr},
  };
  for (const auto& c : cases) {
    auto f = parse_frame(c.text);
    EXPECT_TRUE(f.messages.empty()) << c.text;
    ASSERT_FALSE(f.errors.empty()) << c.text;
    EXPECT_EQ(f.errors[0].error.code, rpc_error::invalid_request) << c.text;
    EXPECT_EQ(f.errors[0].id, c.id) << c.text;
  }
}

TEST(JsonRpc, BatchesKeepValidEntriesAndAnswerBadOnes) {
  auto f = parse_frame(R"([{"jsonrpc":"2.0","id":1,"method":"ping"},{"bad":true},)"
                       R"({"jsonrpc":"2.0","method":"notifications/x"}])");
  EXPECT_TRUE(f.batch);
  ASSERT_EQ(f.messages.size(), 2u);
  EXPECT_EQ(f.messages[0].method, "ping");
  EXPECT_EQ(f.messages[1].kind, Message::Kind::notification);
  ASSERT_EQ(f.errors.size(), 1u);
  EXPECT_EQ(f.errors[0].error.code, rpc_error::invalid_request);

  auto empty = parse_frame("[]");
  EXPECT_TRUE(empty.batch);
  ASSERT_EQ(empty.errors.size(), 1u);

  std::string out = serialize_batch({Message::response(1, json::object()),
                                     Message::failure(2, rpc_error::method_not_found, "no")});
  auto back = parse_frame(out);
  EXPECT_TRUE(back.batch);
  ASSERT_EQ(back.messages.size(), 2u);
  EXPECT_EQ(back.messages[1].error.code, rpc_error::method_not_found);
}

TEST(JsonRpc, DeepNestingIsRefusedBeforeParsing) {
  std::string deep = R"({"jsonrpc":"2.0","id":1,"method":"x","params":{"a":)";
  for (int i = 0; i < 100000; ++i) deep += '[';
  auto f = parse_frame(deep);
  ASSERT_EQ(f.errors.size(), 1u);
  EXPECT_EQ(f.errors[0].error.code, rpc_error::parse_error);
  // Brackets inside strings do not count.
  std::string ok =
      R"({"jsonrpc":"2.0","id":1,"method":"x","params":{"s":")" + std::string(1000, '[') + R"("}})";
  EXPECT_EQ(parse_frame(ok).messages.size(), 1u);
}

TEST(JsonRpc, SerializeRoundTripsAndIsOneLine) {
  Message m = Message::request(9, "tools/call", {{"name", "x"}, {"arguments", {{"t", "a\nb"}}}});
  std::string s = serialize(m);
  EXPECT_EQ(s.find('\n'), std::string::npos);
  auto f = parse_frame(s);
  ASSERT_EQ(f.messages.size(), 1u);
  EXPECT_EQ(f.messages[0].params["arguments"]["t"], "a\nb");
  // Invalid UTF-8 in a tool's text is replaced, not thrown on.
  std::string bad = serialize(Message::response(1, {{"t", std::string("\xff")}}));
  EXPECT_FALSE(parse_frame(bad).messages.empty());
}

TEST(JsonRpc, ErrorsWithoutIdMatchTheMcpSchema) {
  testing::McpSchema schema;
  json with_id = to_json(Message::failure(3, rpc_error::method_not_found, "Method not found"));
  json without = to_json(Message::failure(nullptr, rpc_error::parse_error, "Parse error"));
  EXPECT_EQ(schema.check(with_id, "JSONRPCErrorResponse"), "");
  EXPECT_EQ(schema.check(without, "JSONRPCErrorResponse"), "");
  EXPECT_FALSE(without.contains("id"));
  // And we read such an answer back.
  EXPECT_EQ(parse_frame(without.dump()).messages.size(), 1u);
  // The validator does reject a bad message (the check can fail).
  EXPECT_NE(schema.check(json{{"jsonrpc", "2.0"}, {"id", 1}}, "JSONRPCResultResponse"), "");
}

TEST(LineReader, SplitsAnyChunkingAndDropsOversizedLines) {
  std::string stream = "{\"a\":1}\r\n\n" + std::string(50, 'x') + "\n{\"b\":2}\n  \n{\"c\"";
  for (size_t chunk = 1; chunk <= stream.size(); ++chunk) {
    LineReader r(20);
    std::vector<std::string> lines;
    int oversized = 0;
    for (size_t i = 0; i < stream.size(); i += chunk)
      r.feed(
          std::string_view(stream).substr(i, chunk),
          [&](std::string_view l) { lines.emplace_back(l); }, [&] { ++oversized; });
    ASSERT_EQ(lines.size(), 2u) << chunk;
    EXPECT_EQ(lines[0], "{\"a\":1}");
    EXPECT_EQ(lines[1], "{\"b\":2}");
    EXPECT_EQ(oversized, 1) << chunk;
    EXPECT_EQ(r.buffered(), 4u);  // the unfinished {"c"
  }
}

}  // namespace
}  // namespace toolwire::mcp
