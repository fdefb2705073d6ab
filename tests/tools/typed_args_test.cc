#include <gtest/gtest.h>

#include "test_tools.h"
#include "toolwire/tools/registry.h"
#include "toolwire/tools/typed_args.h"

using namespace toolwire;
using namespace toolwire::tools;
using nlohmann::json;

namespace {

struct Location {
  std::string city;
  std::optional<std::string> country;
  static auto tw_fields() {
    return fields(field("city", &Location::city, "City name"),
                  field("country", &Location::country, "ISO 3166 code").pattern("^[A-Z]{2}$"));
  }
};

struct WeatherArgs {
  Location where;
  std::string unit = "c";
  std::vector<int> days;
  double threshold = 0;
  bool alerts = false;
  std::map<std::string, std::string> tags;
  std::vector<Location> also;
  json extra;
  static auto tw_fields() {
    return fields(
        field("where", &WeatherArgs::where, "Where"),
        field("unit", &WeatherArgs::unit, "Unit").one_of({"c", "f"}).optional(),
        field("days", &WeatherArgs::days, "Day offsets").minimum(0).maximum(6).max_items(3),
        field("threshold", &WeatherArgs::threshold).minimum(-1.5).optional(),
        field("alerts", &WeatherArgs::alerts).optional(),
        field("tags", &WeatherArgs::tags).optional(), field("also", &WeatherArgs::also).optional(),
        field("extra", &WeatherArgs::extra).optional());
  }
};

}  // namespace

TEST(TypedArgs, SchemaMatchesTheDescription) {
  json s = schema_of<WeatherArgs>();
  json expected = json::parse(R"({
    "type":"object","additionalProperties":false,"required":["where","days"],
    "properties":{
      "where":{"type":"object","additionalProperties":false,"required":["city"],"description":"Where",
               "properties":{"city":{"type":"string","description":"City name"},
                             "country":{"type":"string","pattern":"^[A-Z]{2}$","description":"ISO 3166 code"}}},
      "unit":{"type":"string","enum":["c","f"],"description":"Unit"},
      "days":{"type":"array","items":{"type":"integer","minimum":0,"maximum":6},"maxItems":3,"description":"Day offsets"},
      "threshold":{"type":"number","minimum":-1.5},
      "alerts":{"type":"boolean"},
      "tags":{"type":"object","additionalProperties":{"type":"string"}},
      "also":{"type":"array","items":{"type":"object","additionalProperties":false,"required":["city"],
              "properties":{"city":{"type":"string","description":"City name"},
                            "country":{"type":"string","pattern":"^[A-Z]{2}$","description":"ISO 3166 code"}}}},
      "extra":{}
    }})");
  EXPECT_EQ(s, expected) << s.dump(2);
  // The schema is a valid tool schema.
  EXPECT_TRUE(CompiledSchema::compile(s).ok());
}

TEST(TypedArgs, DecodesAndKeepsDefaults) {
  auto a = decode_args<WeatherArgs>(json::parse(
      R"({"where":{"city":"Oslo"},"days":[0,2],"tags":{"k":"v"},"also":[{"city":"Rome","country":"IT"}],"extra":[1]})"));
  ASSERT_TRUE(a.ok()) << a.error().to_string();
  EXPECT_EQ(a->where.city, "Oslo");
  EXPECT_FALSE(a->where.country.has_value());
  EXPECT_EQ(a->unit, "c");
  EXPECT_EQ(a->days, (std::vector<int>{0, 2}));
  EXPECT_EQ(a->tags.at("k"), "v");
  ASSERT_EQ(a->also.size(), 1u);
  EXPECT_EQ(*a->also[0].country, "IT");
  EXPECT_EQ(a->extra, json::array({1}));
}

TEST(TypedArgs, DecodeErrorsNameThePath) {
  auto a = decode_args<WeatherArgs>(json::parse(R"({"where":{"city":3},"days":[]})"));
  ASSERT_FALSE(a.ok());
  EXPECT_EQ(a.error().to_string(), "$.where.city: expected string");
  a = decode_args<WeatherArgs>(json::parse(R"({"where":{"city":"x"},"days":[1,"2"]})"));
  ASSERT_FALSE(a.ok());
  EXPECT_EQ(a.error().to_string(), "$.days[1]: expected integer");
  a = decode_args<WeatherArgs>(json::parse(R"({"days":[]})"));
  ASSERT_FALSE(a.ok());
  EXPECT_EQ(a.error().to_string(), "$.where: required property missing");
  a = decode_args<WeatherArgs>(json::parse(R"({"where":{"city":"x"},"days":[1e12]})"));
  ASSERT_FALSE(a.ok());  // out of int range
}

TEST(TypedArgs, TypedToolValidatesThenDecodes) {
  Registry reg;
  ASSERT_TRUE(reg.add(typed_tool<WeatherArgs>("get_weather", "Weather",
                                              [](const WeatherArgs& a, ToolContext&) {
                                                return ToolOutput::text(
                                                    a.where.city + "/" + a.unit + "/" +
                                                    std::to_string(a.days.size()));
                                              }))
                  .ok());
  auto r = reg.dispatch(
      tools_test::call("1", "get_weather", R"({"where":{"city":"Oslo"},"days":[1],"unit":"f"})"));
  EXPECT_FALSE(r.is_error) << tools_test::text_of(r);
  EXPECT_EQ(tools_test::text_of(r), "Oslo/f/1");
  r = reg.dispatch(tools_test::call("2", "get_weather",
                                    R"({"where":{"city":"Oslo","country":"no"},"days":[9]})"));
  EXPECT_TRUE(r.is_error);
  std::string msg = tools_test::text_of(r);
  EXPECT_NE(msg.find("/where/country"), std::string::npos) << msg;
  EXPECT_NE(msg.find("/days/0"), std::string::npos) << msg;
  r = reg.dispatch(
      tools_test::call("3", "get_weather", R"({"where":{"city":"Oslo"},"days":[],"bogus":1})"));
  EXPECT_TRUE(r.is_error);  // additionalProperties:false
}
