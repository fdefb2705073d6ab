// table_kit.h — what the table tests of docs/translation.md share: the
// fixture run for every dialect of the dialect list (dialects::all_dialects()),
// where each codec writes a concept (Spot, Spelling), and the IR the rows
// build. The rows: table_spelling_test.cc and table_loss_test.cc.
#pragma once

#include <gtest/gtest.h>

#include <map>
#include <nlohmann/json.hpp>
#include <set>
#include <string>
#include <vector>

#include "ir_print.h"
#include "normalize.h"
#include "toolwire/dialects/dialect.h"
#include "wire.h"

namespace toolwire::testing {

using nlohmann::json;
using Names = std::set<std::string_view>;

// One documented location: `value` at JSON pointer `at`, or nothing there.
struct Spot {
  std::string at;
  json value;
  bool absent = false;
};
inline Spot none_at(std::string at) { return {std::move(at), nullptr, true}; }
// Where each codec writes one concept (the table's row), by codec name.
using Spelling = std::map<std::string_view, std::vector<Spot>>;

inline std::vector<const dialects::Dialect*> dialects_with_codecs() {
  std::vector<const dialects::Dialect*> out;
  for (const auto& d : dialects::all_dialects())
    if (d.has_codec()) out.push_back(&d);
  return out;
}

class TableTest : public ::testing::TestWithParam<const dialects::Dialect*> {
 protected:
  const dialects::Dialect& dialect() const { return *GetParam(); }
  const dialects::Codec& codec() const { return GetParam()->codec(); }
  std::string_view name() const { return GetParam()->name; }
  bool in(const Names& names) const { return names.contains(name()); }

  // The wire JSON of `r` in this dialect; warnings appended to `w`.
  json encode(const ir::Request& r, Warnings& w) const {
    auto bytes = codec().encode_request(r, w);
    EXPECT_TRUE(bytes) << name() << ": " << bytes.error().to_string();
    return bytes ? json::parse(*bytes) : json();
  }
  json encode(const ir::Response& r, Warnings& w) const {
    auto bytes = codec().encode_response(r, w);
    EXPECT_TRUE(bytes) << name() << ": " << bytes.error().to_string();
    return bytes ? json::parse(*bytes) : json();
  }
  ir::Request decode_request(const json& wire) const {
    Warnings w;
    auto r = codec().decode_request(wire.dump(), w);
    EXPECT_TRUE(r) << name() << ": " << r.error().to_string() << "\n" << wire.dump(2);
    return r ? *r : ir::Request{};
  }
  ir::Response decode_response(const json& wire) const {
    Warnings w;
    auto r = codec().decode_response(wire.dump(), w);
    EXPECT_TRUE(r) << name() << ": " << r.error().to_string() << "\n" << wire.dump(2);
    return r ? *r : ir::Response{};
  }

  // The row's spots for this dialect are all where the table says.
  void expect_spelling(const json& wire, const Spelling& row) const {
    auto it = row.find(name());
    if (it == row.end()) {
      ADD_FAILURE() << name() << " has no spelling in this row: add it to docs/translation.md "
                    << "and to this test";
      return;
    }
    for (const Spot& s : it->second) {
      json::json_pointer p(s.at);
      if (s.absent) {
        EXPECT_FALSE(wire.contains(p)) << name() << ": " << s.at << " is set\n" << wire.dump(2);
      } else if (!wire.contains(p)) {
        ADD_FAILURE() << name() << ": nothing at " << s.at << "\n" << wire.dump(2);
      } else {
        EXPECT_EQ(wire.at(p), s.value) << name() << " at " << s.at << "\n" << wire.dump(2);
      }
    }
  }

  // A loss row whose warning differs by dialect: the dialects in `codes`
  // warn their code; the others give none of these codes.
  void expect_loss(const Warnings& w,
                   const std::map<std::string_view, std::string_view>& codes) const {
    if (auto it = codes.find(name()); it != codes.end()) {
      EXPECT_TRUE(has_warning(w, it->second)) << name() << " should warn " << it->second << "\n"
                                              << warnings_text(w);
      return;
    }
    for (const auto& [dialect, code] : codes)
      EXPECT_FALSE(has_warning(w, code)) << name() << " expresses it\n" << warnings_text(w);
  }

  // A loss row: the dialects in `lossy` warn `code` (at least once); the
  // others express the concept and give no such warning.
  void expect_loss(const Warnings& w, const Names& lossy, std::string_view code) const {
    if (in(lossy)) {
      EXPECT_TRUE(has_warning(w, code)) << name() << " should warn " << code << "\n"
                                        << warnings_text(w);
    } else {
      EXPECT_FALSE(has_warning(w, code)) << name() << " expresses it\n" << warnings_text(w);
    }
  }
};

// ---- IR built here -------------------------------------------------------

inline ir::Message user(std::string text) {
  return {ir::Role::user, {ir::TextPart{std::move(text)}}};
}

inline ir::ToolDefinition weather_tool() {
  return {.name = "get_weather",
          .description = "Weather of a city",
          .input_schema =
              R"({"type":"object","properties":{"city":{"type":"string"}},"required":["city"]})"};
}

inline ir::Request ask() {
  ir::Request r;
  r.model = "m-1";
  r.max_tokens = 100;
  r.messages = {user("Weather in Paris?")};
  r.tools = {weather_tool()};
  return r;
}

inline ir::ToolCallPart weather_call() {
  return {.id = "call_1", .name = "get_weather", .arguments = R"({"city":"Paris"})"};
}

// ask() + the model's call + its result.
inline ir::Request answered(std::vector<ir::ResultContent> content, bool is_error = false) {
  ir::Request r = ask();
  r.messages.push_back({ir::Role::assistant, {weather_call()}});
  r.messages.push_back(
      {ir::Role::tool, {ir::ToolResultPart{"call_1", std::move(content), is_error}}});
  return r;
}

inline ir::Response reply(std::vector<ir::Part> parts, ir::FinishReason::Kind finish) {
  ir::Response r;
  r.id = "resp_1";
  r.model = "m-1";
  r.created = 1700000000;
  r.parts = std::move(parts);
  r.finish.kind = finish;
  r.usage.input_tokens = 100;
  r.usage.output_tokens = 7;
  return r;
}

template <class T, class Parts>
const T* first(const Parts& parts) {
  for (const auto& p : parts)
    if (auto* x = std::get_if<T>(&p)) return x;
  return nullptr;
}
template <class T>
const T* first_in(const std::vector<ir::Message>& messages) {
  for (const auto& m : messages)
    if (auto* x = first<T>(m.parts)) return x;
  return nullptr;
}

inline std::string text_of(const std::vector<ir::ResultContent>& content) {
  std::string out;
  for (const auto& c : content)
    if (auto* t = std::get_if<ir::TextPart>(&c)) out += t->text;
  return out;
}

}  // namespace toolwire::testing
