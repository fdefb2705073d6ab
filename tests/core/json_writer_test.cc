#include "toolwire/core/json_writer.h"

#include <gtest/gtest.h>
#include <nlohmann/json.hpp>

namespace toolwire {
namespace {

TEST(JsonWriter, WritesNestedObjectsWithCommas) {
  std::string out;
  JsonWriter w(out);
  w.begin_object();
  w.field("a", "x");
  w.key("b");
  w.begin_array();
  w.number(int64_t{1});
  w.number(2.5);
  w.boolean(true);
  w.null();
  w.begin_object();
  w.end_object();
  w.end_array();
  w.field_raw("c", R"({"k":[1,2]})");
  w.end_object();
  EXPECT_EQ(out, R"({"a":"x","b":[1,2.5,true,null,{}],"c":{"k":[1,2]}})");
}

TEST(JsonWriter, EscapesEverythingJsonRequires) {
  std::string s = "q\"b\\n\n r\r t\t \x01 \x1f é 🙂";
  std::string out;
  JsonWriter::append_escaped(out, s);
  EXPECT_EQ(out, "\"q\\\"b\\\\n\\n r\\r t\\t \\u0001 \\u001f é 🙂\"");
  EXPECT_EQ(nlohmann::json::parse(out).get<std::string>(), s);
}

TEST(JsonWriter, NonFiniteDoublesBecomeNull) {
  std::string out;
  JsonWriter w(out);
  w.begin_array();
  w.number(std::numeric_limits<double>::infinity());
  w.end_array();
  EXPECT_EQ(out, "[null]");
}

}  // namespace
}  // namespace toolwire
