// Provider pieces that need no network: capability adaptation, profiles,
// the scripted model, rate-limit lookups, the demo's to-do store.
#include <gtest/gtest.h>

#include <filesystem>

#include "toolwire/agent/agent.h"
#include "toolwire/demo/demo.h"
#include "toolwire/dialects/dialect.h"
#include "toolwire/provider/capabilities.h"
#include "toolwire/provider/profile.h"
#include "toolwire/provider/scripted.h"

namespace toolwire::provider {
namespace {

ir::Request request_with(std::vector<ir::Part> user_parts) {
  ir::Request r;
  r.model = "m";
  r.messages.push_back(ir::Message{ir::Role::user, std::move(user_parts), {}});
  return r;
}

TEST(Adapt, ImagesAreRefusedWithTheirPath) {
  Capabilities caps;
  caps.images = false;
  Warnings w;
  auto r = adapt_request(
      request_with({ir::TextPart{"look"}, ir::ImagePart{"https://x/y.png", "", "", ""}}), caps,
      "groq", w);
  ASSERT_FALSE(r.ok());
  EXPECT_EQ(r.error().code, ErrorCode::invalid_argument);
  EXPECT_EQ(r.error().path, "$.messages[0].parts[1]");
  EXPECT_NE(r.error().message.find("groq"), std::string::npos);
}

TEST(Adapt, ToolChoiceModesAreRefusedOrDropped) {
  Capabilities caps;
  caps.tool_choice_required = false;
  caps.tool_choice_auto = false;
  caps.tool_choice_none = false;
  ir::Request req = request_with({ir::TextPart{"hi"}});
  req.tools.push_back(ir::ToolDefinition{"t", "d", R"({"type":"object"})", {}});
  Warnings w;
  req.tool_choice = ir::ToolChoice{ir::ToolChoice::Kind::required, ""};
  auto refused = adapt_request(req, caps, "p", w);
  ASSERT_FALSE(refused.ok());
  EXPECT_EQ(refused.error().code, ErrorCode::unimplemented);
  EXPECT_EQ(refused.error().path, "$.tool_choice");

  req.tool_choice = ir::ToolChoice{ir::ToolChoice::Kind::auto_, ""};
  auto dropped = adapt_request(req, caps, "p", w);
  ASSERT_TRUE(dropped.ok());
  EXPECT_FALSE(dropped->tool_choice.has_value());
  EXPECT_EQ(dropped->tools.size(), 1u);

  req.tool_choice = ir::ToolChoice{ir::ToolChoice::Kind::none, ""};
  auto none = adapt_request(req, caps, "p", w);
  ASSERT_TRUE(none.ok());
  EXPECT_TRUE(none->tools.empty());
  EXPECT_FALSE(w.empty());
}

TEST(Adapt, ThinkingIsDroppedParallelFlagDroppedMaxTokensFilled) {
  Capabilities caps;
  caps.thinking = false;
  caps.parallel_tool_calls_flag = false;
  caps.requires_max_tokens = true;
  caps.default_max_tokens = 1234;
  ir::Request req = request_with({ir::TextPart{"hi"}});
  req.messages.push_back(ir::Message{
      ir::Role::assistant, {ir::ThinkingPart{"hmm", "sig", false, ""}, ir::TextPart{"yo"}}, {}});
  req.parallel_tool_calls = false;
  Warnings w;
  auto r = adapt_request(req, caps, "p", w);
  ASSERT_TRUE(r.ok());
  ASSERT_EQ(r->messages[1].parts.size(), 1u);
  EXPECT_TRUE(std::holds_alternative<ir::TextPart>(r->messages[1].parts[0]));
  EXPECT_FALSE(r->parallel_tool_calls.has_value());
  EXPECT_EQ(r->max_tokens, 1234);
  ASSERT_EQ(w.size(), 3u);
  // Filled in, and said so: `convert` says the same of its default.
  EXPECT_EQ(w[2].code, "defaulted_max_tokens");
  EXPECT_EQ(w[2].path, "$.max_tokens");
  EXPECT_NE(w[2].message.find("1234"), std::string::npos) << w[2].message;
}

TEST(Profiles, BuiltinsParseAndCarryCapabilities) {
  auto names = builtin_profile_names();
  for (const char* n : {"openai", "anthropic", "openai_compatible", "ollama"})
    EXPECT_NE(std::find(names.begin(), names.end(), n), names.end()) << n;
  for (const auto& n : names) EXPECT_TRUE(builtin_profile(n).ok()) << n;
  auto a = builtin_profile("anthropic");
  ASSERT_TRUE(a.ok());
  EXPECT_EQ(a->dialect, "anthropic_messages");
  EXPECT_EQ(a->auth_header, "x-api-key");
  EXPECT_TRUE(a->capabilities.requires_max_tokens);
  ASSERT_EQ(a->headers.size(), 1u);
  EXPECT_EQ(a->headers[0].first, "anthropic-version");
  auto o = builtin_profile("ollama");
  ASSERT_TRUE(o.ok());
  EXPECT_FALSE(o->capabilities.tool_choice_required);
  EXPECT_FALSE(o->api_key_required);
  auto missing = builtin_profile("nope");
  ASSERT_FALSE(missing.ok());
  EXPECT_NE(missing.error().message.find("openai"), std::string::npos);
}

// A dialect's name or alias picks its official profile (`toolwire chat
// --provider`, `toolwire serve --upstream`, the YAML's `profile:`): one per
// dialect of the list that has a codec.
TEST(Profiles, EveryDialectNameOrAliasNamesAProfile) {
  auto chat = builtin_profile("openai_chat");
  ASSERT_TRUE(chat.ok()) << chat.error().to_string();
  EXPECT_EQ(chat->name, "openai");
  auto an = builtin_profile("anthropic_messages");
  ASSERT_TRUE(an.ok());
  EXPECT_EQ(an->name, "anthropic");
  for (const auto& d : dialects::all_dialects()) {
    if (!d.has_codec()) continue;
    for (std::string_view n : {d.name, d.alias}) {
      if (n.empty()) continue;
      auto p = builtin_profile(n);
      ASSERT_TRUE(p.ok()) << n << ": " << p.error().to_string();
      EXPECT_EQ(dialects::find_dialect(p->dialect), &d) << n << " → profile " << p->name;
    }
  }
}

TEST(Profiles, ErrorsNameThePath) {
  auto r = parse_profile(
      R"({"name":"x","dialect":"openai_chat","capabilities":{"tool_choice":["auto","sometimes"]}})");
  ASSERT_FALSE(r.ok());
  EXPECT_EQ(r.error().path, "$.capabilities.tool_choice[1]");
  auto r2 = parse_profile(R"({"name":"x","dialect":"openai_chat","headers":{"a":1}})");
  ASSERT_FALSE(r2.ok());
  EXPECT_EQ(r2.error().path, "$.headers.a");
  EXPECT_FALSE(parse_profile("{").ok());
}

TEST(RateLimitsTest, ReadsBothNamings) {
  RateLimits l;
  l.headers = {{"x-ratelimit-remaining-requests", "99"},
               {"anthropic-ratelimit-tokens-remaining", "12345"}};
  EXPECT_EQ(l.requests_remaining(), 99);
  EXPECT_EQ(l.tokens_remaining(), 12345);
  EXPECT_EQ(l.get("X-RateLimit-Remaining-Requests"), "99");
  EXPECT_FALSE(l.number({"nope"}).has_value());
}

const char* kScript = R"js({
  "rules": [
    {"user_pattern": "add '([^']+)' to", "calls": [{"name": "add_todo", "arguments": {"text": "$1"}}]},
    {"user_pattern": "complete (\\d+)", "calls": [{"name": "complete_todo", "arguments": {"id": "$1", "note": "id $1"}}]},
    {"after_tool": "add_todo", "reply": "Done: {{result}} (you said: {{user}})"},
    {"user_pattern": "explode", "error": "overloaded_error"}
  ],
  "fallback": "no idea"
})js";

TEST(Scripted, CallsToolsThenRepliesAfterTheResult) {
  auto script = parse_script(kScript);
  ASSERT_TRUE(script.ok()) << script.error().to_string();
  ScriptedProvider model(std::move(*script));
  ir::Request req = request_with({ir::TextPart{"please ADD 'buy milk' to my list"}});
  std::vector<ir::StreamEvent> events;
  auto g = model.stream_sync(req, [&](const ir::StreamEvent& e) { events.push_back(e); });
  ASSERT_TRUE(g.ok());
  ASSERT_EQ(g->response.parts.size(), 1u);
  auto call = std::get<ir::ToolCallPart>(g->response.parts[0]);
  EXPECT_EQ(call.name, "add_todo");
  EXPECT_EQ(call.arguments, R"({"text":"buy milk"})");
  EXPECT_EQ(g->response.finish.kind, ir::FinishReason::Kind::tool_calls);
  EXPECT_TRUE(std::holds_alternative<ir::MessageStart>(events.front()));
  EXPECT_TRUE(std::holds_alternative<ir::Finish>(events.back()));

  req.messages.push_back(ir::Message{ir::Role::assistant, {call}, {}});
  req.messages.push_back(ir::Message{
      ir::Role::tool, {ir::ToolResultPart{call.id, {ir::TextPart{"Added #1"}}, false}}, {}});
  auto g2 = model.generate_sync(req);
  ASSERT_TRUE(g2.ok());
  ASSERT_EQ(g2->response.parts.size(), 1u);
  EXPECT_EQ(std::get<ir::TextPart>(g2->response.parts[0]).text,
            "Done: Added #1 (you said: please ADD 'buy milk' to my list)");
  EXPECT_EQ(g2->response.finish.kind, ir::FinishReason::Kind::stop);
}

TEST(Scripted, IntegersFallbackAndErrors) {
  auto script = parse_script(kScript);
  ASSERT_TRUE(script.ok());
  ScriptedProvider model(std::move(*script));
  auto g = model.generate_sync(request_with({ir::TextPart{"complete 12"}}));
  ASSERT_TRUE(g.ok());
  EXPECT_EQ(std::get<ir::ToolCallPart>(g->response.parts[0]).arguments,
            R"({"id":12,"note":"id 12"})");
  auto f = model.generate_sync(request_with({ir::TextPart{"what?"}}));
  ASSERT_TRUE(f.ok());
  EXPECT_EQ(std::get<ir::TextPart>(f->response.parts[0]).text, "no idea");
  auto e = model.generate_sync(request_with({ir::TextPart{"explode"}}));
  ASSERT_FALSE(e.ok());
  EXPECT_NE(e.error().message.find("overloaded_error"), std::string::npos);
  // Deterministic: the same request gives the same events.
  auto a = model.respond(request_with({ir::TextPart{"complete 3"}}));
  auto b = model.respond(request_with({ir::TextPart{"complete 3"}}));
  ASSERT_TRUE(a.ok() && b.ok());
  EXPECT_EQ(*a, *b);
}

TEST(Scripted, BadScriptsAreReportedWithPaths) {
  auto r = parse_script(R"({"rules":[{"user_pattern":"(unclosed"}]})");
  ASSERT_FALSE(r.ok());
  EXPECT_EQ(r.error().path, "$.rules[0].user_pattern");
  auto r2 = parse_script(R"({"rules":[{"calls":[{"name":"x","arguments":[1]}]}]})");
  ASSERT_FALSE(r2.ok());
  EXPECT_EQ(r2.error().path, "$.rules[0].calls[0].arguments");
  EXPECT_FALSE(parse_script("[]").ok());
}

TEST(Demo, ScriptParsesAndTodoStorePersists) {
  ASSERT_TRUE(parse_script(demo::demo_script_json()).ok())
      << parse_script(demo::demo_script_json()).error().to_string();
  auto dir = std::filesystem::temp_directory_path() / ("tw_todo_" + std::to_string(::getpid()));
  std::filesystem::remove_all(dir);
  std::string path = (dir / "sub" / "todo.sqlite3").string();
  {
    auto store = demo::TodoStore::open(path);
    ASSERT_TRUE(store.ok()) << store.error().to_string();
    ASSERT_EQ(*(*store)->add("buy milk"), 1);
    ASSERT_EQ(*(*store)->add("walk the 'dog'; DROP TABLE todos"), 2);
    ASSERT_TRUE((*store)->complete(1).ok());
    EXPECT_EQ((*store)->complete(99).error().code, ErrorCode::not_found);
  }
  auto again = demo::TodoStore::open(path);
  ASSERT_TRUE(again.ok());
  auto open_items = (*again)->list(false);
  ASSERT_TRUE(open_items.ok());
  ASSERT_EQ(open_items->size(), 1u);
  EXPECT_EQ((*open_items)[0].text, "walk the 'dog'; DROP TABLE todos");
  EXPECT_EQ((*again)->list(true)->size(), 2u);
  std::filesystem::remove_all(dir);
}

TEST(Demo, OfflineAgentAddsThenListsInTwoToolRounds) {
  auto dir = std::filesystem::temp_directory_path() / ("tw_demo_" + std::to_string(::getpid()));
  std::filesystem::remove_all(dir);
  auto store = demo::TodoStore::open((dir / "todo.sqlite3").string());
  ASSERT_TRUE(store.ok());
  tools::Registry reg;
  ASSERT_TRUE(demo::register_todo_tools(reg, *store).ok());
  ScriptedProvider model(*parse_script(demo::demo_script_json()));
  agent::Agent a(model, reg);
  int tool_rounds = 0;
  auto r = a.run("add 'buy milk' to my to-do list", [&](const agent::Event& e) {
    if (auto* f = std::get_if<agent::RoundFinishedEvent>(&e); f && f->tool_calls > 0) ++tool_rounds;
  });
  EXPECT_EQ(r.reason, agent::StopReason::final_text);
  EXPECT_EQ(tool_rounds, 2);
  EXPECT_NE(r.text.find("#1 [ ] buy milk"), std::string::npos) << r.text;
  std::string streamed;
  auto r2 = a.run("complete 1", [&](const agent::Event& e) {
    if (auto* t = std::get_if<agent::TextDeltaEvent>(&e)) streamed += t->text;
  });
  EXPECT_NE(streamed.find("Completed #1: buy milk"), std::string::npos) << streamed;
  EXPECT_NE(r2.text.find("empty"), std::string::npos) << r2.text;  // the final round's text
  std::filesystem::remove_all(dir);
}

}  // namespace
}  // namespace toolwire::provider
