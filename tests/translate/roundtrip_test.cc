// Cross-dialect round trips: X → IR → Y → IR → X must preserve ids, names,
// arguments (as JSON values), result contents, order and finish reason, for
// every request/response fixture of both dialects and for generated
// conversations. Only the documented lossy mappings (normalize.h) are undone.
#include <gtest/gtest.h>

#include <map>
#include <nlohmann/json.hpp>
#include <regex>

#include "gen.h"
#include "ir_print.h"
#include "normalize.h"
#include "wire.h"

namespace toolwire::testing {
namespace {

using nlohmann::json;
Route route_of(const dialects::Codec& c) { return Route::of({&c}); }

// Every tool id on an Anthropic wire must match ^[a-zA-Z0-9_-]+$.
void expect_anthropic_ids_valid(const std::string& wire_json, const std::string& label) {
  static const std::regex kValid("^[a-zA-Z0-9_-]+$");
  json doc = json::parse(wire_json);
  auto check = [&](const json& blocks) {
    if (!blocks.is_array()) return;
    for (const auto& b : blocks) {
      if (b.value("type", "") == "tool_use") {
        EXPECT_TRUE(std::regex_match(b["id"].get<std::string>(), kValid))
            << label << ": " << b["id"];
      }
      if (b.value("type", "") == "tool_result") {
        EXPECT_TRUE(std::regex_match(b["tool_use_id"].get<std::string>(), kValid))
            << label << ": " << b["tool_use_id"];
      }
    }
  };
  if (doc.contains("messages"))
    for (const auto& m : doc["messages"]) check(m["content"]);
  if (doc.contains("content")) check(doc["content"]);
}

// Decodes `bytes` with `src`, checks the same-dialect round trip is exact and
// the trip through `dst` and back preserves the normalized IR. Returns IR1.
// A placed member's raw JSON, [where,i,j,value], whose value says nothing
// (counts of 0, an empty list): dialects drop those without a warning.
bool says_nothing(const std::string& raw) {
  size_t at = 0;
  for (int commas = 0; commas < 3 && at < raw.size(); ++at) commas += raw[at] == ',';
  const std::string value = raw.substr(at);
  return value.find_first_of("123456789") == std::string::npos &&
         value.find("true") == std::string::npos && value.find(":\"") == std::string::npos &&
         value.find("[\"") == std::string::npos;
}

std::optional<ir::Request> check_request(const dialects::Codec& src, const dialects::Codec& dst,
                                         const std::string& bytes, const std::string& label) {
  SCOPED_TRACE(label);
  Warnings w1;
  auto ir1 = src.decode_request(bytes, w1);
  if (!ir1) {
    ADD_FAILURE() << "decode " << src.name() << ": " << ir1.error().to_string() << "\n" << bytes;
    return std::nullopt;
  }
  Warnings ws;
  auto same = src.encode_request(*ir1, ws);
  if (!same) {
    ADD_FAILURE() << "same-dialect encode: " << same.error().to_string();
    return std::nullopt;
  }
  auto ir1b = src.decode_request(*same, ws);
  if (!ir1b) {
    ADD_FAILURE() << "same-dialect re-decode: " << ir1b.error().to_string() << "\n" << *same;
    return std::nullopt;
  }
  EXPECT_TRUE(same_ir(print(*ir1), print(*ir1b), "decoded", "after same-dialect trip")) << *same;

  Warnings w2;
  auto mid = dst.encode_request(*ir1, w2);
  if (!mid) {
    ADD_FAILURE() << "encode " << dst.name() << ": " << mid.error().to_string();
    return std::nullopt;
  }
  if (dst.name() == "anthropic_messages") expect_anthropic_ids_valid(*mid, label);
  // A placed member's key is its path already (src/dialects/common/placed_member.h);
  // one whose value says nothing (zero counts) is dropped without a warning.
  for (const auto& f : ir1->extra) {
    if (f.key.starts_with("$.") && says_nothing(f.raw_json)) continue;
    EXPECT_TRUE(
        has_warning(w2, "dropped_unknown_field", f.key.starts_with("$.") ? f.key : "$." + f.key))
        << f.key << "\n"
        << warnings_text(w2);
  }
  auto ir2 = dst.decode_request(*mid, w2);
  if (!ir2) {
    ADD_FAILURE() << "decode " << dst.name() << ": " << ir2.error().to_string() << "\n" << *mid;
    return std::nullopt;
  }
  auto back = src.encode_request(*ir2, w2);
  if (!back) {
    ADD_FAILURE() << "encode back: " << back.error().to_string();
    return std::nullopt;
  }
  if (src.name() == "anthropic_messages") expect_anthropic_ids_valid(*back, label);
  auto ir3 = src.decode_request(*back, w2);
  if (!ir3) {
    ADD_FAILURE() << "decode back: " << ir3.error().to_string() << "\n" << *back;
    return std::nullopt;
  }
  const Route kBoth = Route::of({&src, &dst});
  const std::string n1 = print(normalized(*ir1, kBoth));
  EXPECT_TRUE(
      same_ir(n1, print(normalized(*ir2, kBoth)), "source IR", std::string(dst.name()) + " IR"))
      << "wire:\n"
      << *mid;
  EXPECT_TRUE(same_ir(n1, print(normalized(*ir3, kBoth)), "source IR", "IR after the round trip"))
      << "wire:\n"
      << *mid << "\nback:\n"
      << *back;
  return std::move(*ir1);
}

std::optional<ir::Response> check_response(const dialects::Codec& src, const dialects::Codec& dst,
                                           const std::string& bytes, const std::string& label) {
  SCOPED_TRACE(label);
  Warnings w;
  auto ir1 = src.decode_response(bytes, w);
  if (!ir1) {
    ADD_FAILURE() << "decode " << src.name() << ": " << ir1.error().to_string() << "\n" << bytes;
    return std::nullopt;
  }
  auto same = src.encode_response(*ir1, w);
  if (!same) {
    ADD_FAILURE() << "same-dialect encode: " << same.error().to_string();
    return std::nullopt;
  }
  auto ir1b = src.decode_response(*same, w);
  if (!ir1b) {
    ADD_FAILURE() << "same-dialect re-decode: " << ir1b.error().to_string() << "\n" << *same;
    return std::nullopt;
  }
  // Encoders must write a usage object: counts the source omitted come back as 0.
  ir::Response a = *ir1, b = *ir1b;
  zero_usage_unset(a.usage);
  zero_usage_unset(b.usage);
  EXPECT_TRUE(same_ir(print(a), print(b), "decoded", "after same-dialect trip")) << *same;

  Warnings w2;
  auto mid = dst.encode_response(*ir1, w2);
  if (!mid) {
    ADD_FAILURE() << "encode " << dst.name() << ": " << mid.error().to_string();
    return std::nullopt;
  }
  if (dst.name() == "anthropic_messages") expect_anthropic_ids_valid(*mid, label);
  // A placed member's key is its path already (src/dialects/common/placed_member.h);
  // one whose value says nothing (zero counts) is dropped without a warning.
  for (const auto& f : ir1->extra) {
    if (f.key.starts_with("$.") && says_nothing(f.raw_json)) continue;
    EXPECT_TRUE(
        has_warning(w2, "dropped_unknown_field", f.key.starts_with("$.") ? f.key : "$." + f.key))
        << f.key << "\n"
        << warnings_text(w2);
  }
  auto ir2 = dst.decode_response(*mid, w2);
  if (!ir2) {
    ADD_FAILURE() << "decode " << dst.name() << ": " << ir2.error().to_string() << "\n" << *mid;
    return std::nullopt;
  }
  auto back = src.encode_response(*ir2, w2);
  if (!back) {
    ADD_FAILURE() << "encode back: " << back.error().to_string();
    return std::nullopt;
  }
  auto ir3 = src.decode_response(*back, w2);
  if (!ir3) {
    ADD_FAILURE() << "decode back: " << ir3.error().to_string() << "\n" << *back;
    return std::nullopt;
  }
  const Route kBoth = Route::of({&src, &dst});
  const std::string n1 = print(normalized(*ir1, kBoth));
  EXPECT_TRUE(
      same_ir(n1, print(normalized(*ir2, kBoth)), "source IR", std::string(dst.name()) + " IR"))
      << "wire:\n"
      << *mid;
  EXPECT_TRUE(same_ir(n1, print(normalized(*ir3, kBoth)), "source IR", "IR after the round trip"))
      << "wire:\n"
      << *mid << "\nback:\n"
      << *back;
  return std::move(*ir1);
}

// Every fixture of every dialect, through every other dialect and back.
TEST(RoundTripFixtures, EveryRequestFixture) {
  ASSERT_GE(codecs().size(), 2u);
  for (const dialects::Codec* src : codecs()) {
    auto files = fixtures_matching(fixture_prefix(*src), ".request.json");
    ASSERT_FALSE(files.empty()) << src->name();
    for (const dialects::Codec* dst : codecs())
      if (dst != src)
        for (const auto& f : files) check_request(*src, *dst, read_fixture(f), f);
  }
}

TEST(RoundTripFixtures, EveryResponseFixture) {
  for (const dialects::Codec* src : codecs()) {
    auto files = fixtures_matching(fixture_prefix(*src), ".response.json");
    ASSERT_FALSE(files.empty()) << src->name();
    for (const dialects::Codec* dst : codecs())
      if (dst != src)
        for (const auto& f : files) check_response(*src, *dst, read_fixture(f), f);
  }
}

// The single-message fixtures, put into the conversation they come from.
TEST(RoundTripFixtures, MessageFixturesInContext) {
  const std::string call =
      R"({"role":"assistant","content":[{"type":"tool_use","id":"toolu_01A09q90qw90lq917835lq9","name":"get_weather","input":{"location":"San Francisco, CA"}}]})";
  for (const auto& f : fixtures_matching("anthropic-messages-", ".message.json")) {
    std::string req =
        R"({"model":"claude-sonnet-4-5","max_tokens":1024,"messages":[{"role":"user","content":"Weather?"},)" +
        call + "," + read_fixture(f) + "]}";
    check_request(anthropic(), openai(), req, f);
  }
  json calls = json::parse(read_fixture("openai-chat-message-tool_calls.json"));
  json req = {
      {"model", "gpt-4o"},
      {"messages",
       json::array({{{"role", "user"}, {"content", "Weather in Paris?"}},
                    {{"role", "assistant"}, {"content", nullptr}, {"tool_calls", calls}},
                    {{"role", "tool"}, {"tool_call_id", calls[0]["id"]}, {"content", "18C"}}})}};
  auto ir = check_request(openai(), anthropic(), req.dump(), "openai-chat-message-tool_calls.json");
  ASSERT_TRUE(ir);
  const auto& tc = std::get<ir::ToolCallPart>(ir->messages[1].parts.at(0));
  EXPECT_EQ(tc.id, "call_12345xyz");
  EXPECT_EQ(json::parse(tc.arguments), json::parse(R"({"latitude":48.8566,"longitude":2.3522})"));
}

struct Coverage {
  int invalid_args = 0, mapped_ids = 0, parallel = 0, errors = 0, user_images = 0,
      result_images = 0, signed_thinking = 0, text_and_calls = 0;
  void count(const ir::Request& r) {
    for (const auto& m : r.messages) {
      int calls = 0;
      bool text = false;
      for (const auto& p : m.parts) {
        if (auto* c = std::get_if<ir::ToolCallPart>(&p)) {
          ++calls;
          invalid_args += !c->arguments_valid;
          mapped_ids += c->id.find_first_of(".:/ ") != std::string::npos;
        }
        text |= std::holds_alternative<ir::TextPart>(p);
        if (auto* res = std::get_if<ir::ToolResultPart>(&p)) {
          errors += res->is_error;
          for (const auto& c : res->content)
            result_images += std::holds_alternative<ir::ImagePart>(c);
        }
        if (m.role == ir::Role::user) user_images += std::holds_alternative<ir::ImagePart>(p);
        if (auto* t = std::get_if<ir::ThinkingPart>(&p)) signed_thinking += !t->signature.empty();
      }
      parallel += calls > 1;
      text_and_calls += calls > 0 && text;
    }
  }
};

TEST(RoundTripGenerated, Requests) {
  std::map<std::string_view, Coverage> from;  // by source dialect
  for (uint64_t seed = 1; seed <= generated_seeds(150); ++seed) {
    for (const dialects::Codec* src : codecs()) {
      for (const dialects::Codec* to : codecs()) {
        if (to == src) continue;
        const dialects::Codec& dst = *to;
        ConversationGen gen(seed);
        ir::Request ir0 = gen.request(gen.uniform(1, 14));
        Warnings w;
        auto bytes = src->encode_request(ir0, w);
        ASSERT_TRUE(bytes) << bytes.error().to_string();
        std::string label = "seed " + std::to_string(seed) + " from " + std::string(src->name());
        auto ir1 = check_request(*src, dst, *bytes, label);
        ASSERT_TRUE(ir1) << label;
        // What the generator made survived into the source wire.
        Route r = route_of(*src);
        EXPECT_TRUE(same_ir(print(normalized(ir0, r)), print(normalized(*ir1, r)), "generated",
                            "decoded source"))
            << label << "\n"
            << *bytes;
        from[src->name()].count(*ir1);
        if (::testing::Test::HasFailure()) return;  // one readable failure beats hundreds
      }
    }
  }
  ASSERT_EQ(from.size(), codecs().size());
  for (const auto& [name, cov] : from) {
    SCOPED_TRACE(std::string(name));
    const Coverage* c = &cov;
    EXPECT_GT(c->invalid_args, 0);
    EXPECT_GT(c->mapped_ids, 0);
    EXPECT_GT(c->parallel, 0);
    EXPECT_GT(c->errors, 0);
    EXPECT_GT(c->user_images, 0);
    EXPECT_GT(c->text_and_calls, 0);
  }
  EXPECT_GT(from["anthropic_messages"].result_images, 0);
  EXPECT_GT(from["anthropic_messages"].signed_thinking, 0);
}

TEST(RoundTripGenerated, Responses) {
  for (uint64_t seed = 1; seed <= generated_seeds(200); ++seed) {
    for (const dialects::Codec* src : codecs()) {
      for (const dialects::Codec* to : codecs()) {
        if (to == src) continue;
        const dialects::Codec& dst = *to;
        ConversationGen gen(seed);
        ir::Response ir0 = gen.response();
        Warnings w;
        auto bytes = src->encode_response(ir0, w);
        ASSERT_TRUE(bytes) << bytes.error().to_string();
        std::string label = "seed " + std::to_string(seed) + " from " + std::string(src->name());
        auto ir1 = check_response(*src, dst, *bytes, label);
        ASSERT_TRUE(ir1) << label;
        // Finish kind and usage survive into the source wire too.
        Route r = route_of(*src);
        EXPECT_TRUE(same_ir(print(normalized(ir0, r)), print(normalized(*ir1, r)), "generated",
                            "decoded source"))
            << label << "\n"
            << *bytes;
        if (::testing::Test::HasFailure()) return;
      }
    }
  }
}

}  // namespace
}  // namespace toolwire::testing
