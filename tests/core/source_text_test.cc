// Opaque JSON copied from the source text (dialects/common/source_text.h): the
// slice of every object and array equals what a JSON library sees there,
// line breaks are dropped, spaces and number spellings are kept, and an
// element of a document that is no longer the remembered one is re-serialized
// from the DOM instead.
#include "dialects/common/source_text.h"

#include <gtest/gtest.h>

#include <nlohmann/json.hpp>
#include <random>
#include <string>

#include "dialects/common/dom_json.h"
#include "dialects/common/json_in.h"
#include "toolwire/dialects/codec.h"

namespace toolwire::dialects::json {
namespace {

// Every object and array under `e`, with its path, checked against nlohmann's
// view of the same source.
void check_all(element e, const nlohmann::json& expected, const std::string& where) {
  if (e.is_object() || e.is_array()) {
    std::string slice;
    ASSERT_TRUE(append_source(slice, e)) << where;
    EXPECT_EQ(slice.find('\n'), std::string::npos) << where;
    EXPECT_EQ(nlohmann::json::parse(slice), expected) << where << ": " << slice;
  }
  if (e.is_object()) {
    const simdjson::dom::object obj =
        e.get_object().value_unsafe();  // a local: the result is a temporary
    for (auto [key, value] : obj)
      check_all(value, expected.at(std::string(key)), where + "." + std::string(key));
  } else if (e.is_array()) {
    const simdjson::dom::array arr = e.get_array().value_unsafe();
    size_t i = 0;
    for (element item : arr) {
      check_all(item, expected.at(i), where + "[" + std::to_string(i) + "]");
      ++i;
    }
  }
}

TEST(SourceText, EverySliceOfAPrettyPrintedDocumentIsItsValue) {
  const std::string text = R"({
  "tools": [ {"name": "a", "schema": {"type": "object", "properties": {"n": {"type": "number", "default": 1.50}}}},
             {"name": "b", "schema": {}} ],
  "nums": [-1, 0, 2.5e3, 18446744073709551615, -9223372036854775808],
  "lits": [true, false, null, "", "caf\u00e9 \"q\" \\ /"],
  "deep": [[[[{"x": [[]]}]]]],
  "empty": {}
})";
  simdjson::dom::parser parser;
  auto root = parse(parser, text);
  ASSERT_TRUE(root);
  check_all(*root, nlohmann::json::parse(text), "$");
}

TEST(SourceText, KeepsSpacesAndSpellingsDropsLineBreaks) {
  const std::string text = "{\"s\": {\"a\": 1.50,\r\n \"b\": \"\\u00e9\"}}";
  simdjson::dom::parser parser;
  auto root = parse(parser, text);
  ASSERT_TRUE(root);
  element s = root->get_object().value_unsafe()["s"].value_unsafe();
  EXPECT_EQ(compact(s), "{\"a\":1.50,\"b\":\"\\u00e9\"}");  // had a line break: minified
  const std::string flat = "{\"s\": {\"a\": 1.50, \"b\": \"\\u00e9\"}}";
  root = parse(parser, flat);
  ASSERT_TRUE(root);
  s = root->get_object().value_unsafe()["s"].value_unsafe();
  EXPECT_EQ(compact(s), "{\"a\": 1.50, \"b\": \"\\u00e9\"}");  // kept as written
}

TEST(SourceText, AnElementOfAnotherDocumentIsReserializedFromTheDom) {
  simdjson::dom::parser first, second;
  auto a = parse(first, R"({"x": [1, 2.0,  "y"]})");
  ASSERT_TRUE(a);
  element x = a->get_object().value_unsafe()["x"].value_unsafe();
  auto b = parse(second, R"({"z": {}})");  // now the remembered document
  ASSERT_TRUE(b);
  std::string slice;
  EXPECT_FALSE(append_source(slice, x));
  EXPECT_EQ(compact(x), "[1,2.0,\"y\"]");  // the DOM re-serializer's compact form
}

// Random documents: nested objects and arrays of every scalar, with random
// whitespace (spaces, tabs, line breaks) between tokens.
std::string random_json(std::mt19937& rng, int depth, std::string& ws_pool) {
  auto ws = [&] { return std::string(rng() % 3, ws_pool[rng() % ws_pool.size()]); };
  const unsigned kind = depth > 4 ? rng() % 5 : rng() % 7;
  switch (kind) {
    case 0:
      return "null";
    case 1:
      return rng() % 2 ? "true" : "false";
    case 2:
      return std::to_string(static_cast<int>(rng() % 2000) - 1000);
    case 3:
      return std::to_string(rng() % 1000) + ".25e-1";
    case 4:
      return "\"s" + std::to_string(rng() % 100) + "\\n\\\"\"";
    case 5: {
      std::string out = "[" + ws();
      const unsigned n = rng() % 4;
      for (unsigned i = 0; i < n; ++i)
        out += (i ? "," + ws() : "") + random_json(rng, depth + 1, ws_pool) + ws();
      return out + "]";
    }
    default: {
      std::string out = "{" + ws();
      const unsigned n = rng() % 4;
      for (unsigned i = 0; i < n; ++i)
        out += (i ? "," + ws() : "") + "\"k" + std::to_string(i) + "\"" + ws() + ":" + ws() +
               random_json(rng, depth + 1, ws_pool) + ws();
      return out + "}";
    }
  }
}

TEST(SourceText, RandomDocumentsWithRandomWhitespace) {
  std::mt19937 rng(11);
  std::string ws_pool = " \t\n\r";
  simdjson::dom::parser parser;
  for (int round = 0; round < 500; ++round) {
    const std::string text = "{\"root\":" + random_json(rng, 0, ws_pool) + "}";
    auto root = parse(parser, text);
    ASSERT_TRUE(root) << text;
    check_all(*root, nlohmann::json::parse(text), "$ of " + text);
  }
}

// End to end: an Anthropic request with a pretty-printed schema and input.
TEST(SourceText, DecodedRequestsCarryLineBreakFreeSourceText) {
  const std::string body = R"({"model": "m", "max_tokens": 10,
  "tools": [{"name": "t", "input_schema": {
      "type": "object",
      "properties": {"n": {"type": "number", "minimum": 0.50}}
  }}],
  "messages": [{"role": "user", "content": "hi"},
    {"role": "assistant", "content": [{"type": "tool_use", "id": "toolu_1", "name": "t", "input": {
      "n": 2.50
    }}]}]})";
  Warnings w;
  auto req = find_codec("anthropic")->decode_request(body, w);
  ASSERT_TRUE(req) << req.error().to_string();
  EXPECT_EQ(req->tools.at(0).input_schema,
            R"({"type":"object","properties":{"n":{"type":"number","minimum":0.50}}})");
  const auto& call = std::get<ir::ToolCallPart>(req->messages.at(1).parts.at(0));
  EXPECT_EQ(call.arguments, R"({"n":2.50})");
  EXPECT_TRUE(call.arguments_valid);
}

}  // namespace
}  // namespace toolwire::dialects::json
