// wrap_chat_provider over a fake chat provider that streams a given text:
// what the inner provider is asked, and what the caller gets — text, calls
// handed on when they end (renumbered, with ids), a cut-off call dropped
// with a warning, the finish reason — whole and streamed alike.
#include <gtest/gtest.h>
#include <nlohmann/json.hpp>

#include "toolwire/ir/accumulator.h"
#include "toolwire/textprovider/text_provider.h"

namespace toolwire::textprovider {
namespace {

// Answers every request with `text`, streamed in `piece`-byte deltas.
class FakeChat final : public provider::Provider {
 public:
  FakeChat(std::string text, size_t piece) : text_(std::move(text)), piece_(piece) {}
  std::string_view name() const override { return "fake"; }
  const provider::Capabilities& capabilities() const override { return caps_; }

  provider::ProviderCall generate(ir::Request request, provider::DoneCallback done) override {
    seen.push_back(request);
    provider::Generation g;
    g.response.parts.push_back(ir::TextPart{text_});
    g.response.finish = {ir::FinishReason::Kind::stop, "stop"};
    done(std::move(g));
    return {};
  }
  provider::ProviderCall stream(ir::Request request, provider::EventCallback on_event,
                                provider::DoneCallback done) override {
    seen.push_back(request);
    ir::StreamAccumulator acc;
    auto send = [&](const ir::StreamEvent& e) {
      acc.add(e);
      on_event(e);
    };
    send(ir::MessageStart{"m1", "fake-model", 0});
    for (size_t i = 0; i < text_.size(); i += piece_) send(ir::TextDelta{text_.substr(i, piece_)});
    send(ir::Finish{{ir::FinishReason::Kind::stop, "stop"}});
    provider::Generation g;
    g.response = std::move(acc).take();
    done(std::move(g));
    return {};
  }

  std::vector<ir::Request> seen;

 private:
  std::string text_;
  size_t piece_;
  provider::Capabilities caps_;
};

ir::Request request_with_tools() {
  ir::Request r;
  r.model = "m";
  ir::ToolDefinition t;
  t.name = "get_weather";
  t.input_schema = R"({"type":"object","properties":{"city":{"type":"string"}}})";
  r.tools.push_back(t);
  ir::Message m;
  m.role = ir::Role::user;
  m.parts.push_back(ir::TextPart{"Weather?"});
  r.messages.push_back(m);
  return r;
}

// Two good calls around one that is not JSON, then one cut off by the end.
const std::string kAnswer =
    "Checking.\n<tool_call>{\"name\": \"get_weather\", \"arguments\": {\"city\": \"Paris\"}}"
    "</tool_call>\n<tool_call>{not json}</tool_call>\n<tool_call>{\"name\": \"get_weather\", "
    "\"arguments\": {\"city\": \"Oslo\"}}</tool_call>\n<tool_call>{\"name\": \"get_weather\", "
    "\"arguments\": {\"ci";

struct Got {
  std::vector<ir::StreamEvent> events;
  Result<provider::Generation> result = make_error(ErrorCode::internal, "no result");
};

void check(const Got& got, bool streamed) {
  ASSERT_TRUE(got.result.ok()) << got.result.error().to_string();
  const ir::Response& r = got.result->response;
  std::string text;
  std::vector<const ir::ToolCallPart*> calls;
  for (const auto& p : r.parts) {
    if (auto* t = std::get_if<ir::TextPart>(&p)) text += t->text;
    if (auto* c = std::get_if<ir::ToolCallPart>(&p)) calls.push_back(c);
  }
  EXPECT_EQ(text, "Checking.");
  ASSERT_EQ(calls.size(), 2u);
  EXPECT_EQ(nlohmann::json::parse(calls[0]->arguments),
            nlohmann::json::parse(R"({"city":"Paris"})"));
  EXPECT_EQ(nlohmann::json::parse(calls[1]->arguments),
            nlohmann::json::parse(R"({"city":"Oslo"})"));
  EXPECT_TRUE(calls[0]->id.starts_with("call_")) << calls[0]->id;
  EXPECT_NE(calls[0]->id, calls[1]->id);
  EXPECT_EQ(r.finish.kind, ir::FinishReason::Kind::tool_calls);
  // The malformed and the cut-off call are warnings, not calls.
  int warnings = 0;
  for (const auto& w : got.result->warnings) warnings += w.code == "tool_format";
  EXPECT_EQ(warnings, 2);
  if (!streamed) return;
  // Indices 0 and 1 as handed on; starts only for calls that ended; no markup in text.
  std::vector<int> starts, ends;
  for (const auto& e : got.events) {
    if (auto* s = std::get_if<ir::ToolCallStart>(&e)) starts.push_back(s->index);
    if (auto* n = std::get_if<ir::ToolCallEnd>(&e)) ends.push_back(n->index);
    if (auto* t = std::get_if<ir::TextDelta>(&e)) {
      EXPECT_EQ(t->text.find('<'), std::string::npos);
    }
  }
  EXPECT_EQ(starts, (std::vector<int>{0, 1}));
  EXPECT_EQ(ends, (std::vector<int>{0, 1}));
  ASSERT_FALSE(got.events.empty());
  EXPECT_TRUE(std::holds_alternative<ir::Finish>(got.events.back()));
}

TEST(ChatWrapper, StreamedAtAnySplitAndWhole) {
  for (size_t piece : {1u, 3u, 7u, 1000u}) {
    auto fake = std::make_unique<FakeChat>(kAnswer, piece);
    FakeChat* inner = fake.get();
    auto p = wrap_chat_provider(std::move(fake), "hermes");
    ASSERT_TRUE(p.ok());
    Got got;
    (*p)->stream(
        request_with_tools(), [&](const ir::StreamEvent& e) { got.events.push_back(e); },
        [&](Result<provider::Generation> r) { got.result = std::move(r); });
    check(got, true);
    // The inner provider was given no tools; the definitions are in the system prompt.
    ASSERT_EQ(inner->seen.size(), 1u);
    EXPECT_TRUE(inner->seen[0].tools.empty());
    ASSERT_EQ(inner->seen[0].system.size(), 1u);
    EXPECT_NE(inner->seen[0].system[0].text.find("\"get_weather\""), std::string::npos);
  }
  auto p = wrap_chat_provider(std::make_unique<FakeChat>(kAnswer, 5), "hermes");
  Got got;
  (*p)->generate(request_with_tools(),
                 [&](Result<provider::Generation> r) { got.result = std::move(r); });
  check(got, false);
}

TEST(ChatWrapper, PlainTextStaysText) {
  auto p = wrap_chat_provider(std::make_unique<FakeChat>("It is sunny <b>today</b>.", 2), "hermes");
  Got got;
  (*p)->stream(
      request_with_tools(), [&](const ir::StreamEvent& e) { got.events.push_back(e); },
      [&](Result<provider::Generation> r) { got.result = std::move(r); });
  ASSERT_TRUE(got.result.ok());
  EXPECT_EQ(got.result->response.finish.kind, ir::FinishReason::Kind::stop);
  ASSERT_EQ(got.result->response.parts.size(), 1u);
  EXPECT_EQ(std::get<ir::TextPart>(got.result->response.parts[0]).text,
            "It is sunny <b>today</b>.");
}

TEST(ChatWrapper, UnknownFamilyIsRefused) {
  auto p = wrap_chat_provider(std::make_unique<FakeChat>("", 1), "nope");
  ASSERT_FALSE(p.ok());
  EXPECT_EQ(p.error().code, ErrorCode::not_found);
  EXPECT_FALSE(check_family("nope").ok());
  EXPECT_TRUE(check_family("functionary_v32").ok());
}

}  // namespace
}  // namespace toolwire::textprovider
