// Server and mixed tool modes end to end: the gateway runs its own tools in
// rounds of model calls (scripted model), a client that leaves cancels the
// running tool, and the mode rules (client tools on a server route, name
// clashes) are enforced.
#include <gtest/gtest.h>

#include <algorithm>
#include <atomic>
#include <condition_variable>
#include <filesystem>
#include <fstream>
#include <mutex>
#include <nlohmann/json.hpp>

#include "raw_client.h"
#include "toolwire/gateway/config.h"
#include "toolwire/gateway/gateway.h"
#include "toolwire/gateway/routing.h"
#include "toolwire/provider/scripted.h"

namespace toolwire::testing {
namespace {

using nlohmann::json;

// A tool that blocks until its call is cancelled (or 10 s pass), and says
// what happened.
struct SlowTool {
  std::mutex mu;
  std::condition_variable cv;
  bool started = false;
  bool saw_cancel = false;
  bool finished = false;
};

constexpr const char* kScript = R"({"rules": [
  {"user_pattern": "^echo (.*)$", "calls": [{"name": "echo", "arguments": {"text": "$1"}}]},
  {"after_tool": "echo", "reply": "the tool said: {{result}}"},
  {"user_pattern": "^both$", "calls": [{"name": "echo", "arguments": {"text": "s"}},
                                       {"name": "client_tool", "arguments": {}}]},
  {"after_tool": "client_tool", "reply": "client answered: {{result}}"},
  {"user_pattern": "^slow$", "calls": [{"name": "slow", "arguments": {}}]},
  {"after_tool": "slow", "reply": "slow done"}
], "fallback": "plain"})";

class ToolModes : public ::testing::Test {
 protected:
  void SetUp() override {
    auto reg = std::make_shared<tools::Registry>();
    tools::ToolSpec echo;
    echo.name = "echo";
    echo.description = "Echoes its text";
    echo.input_schema =
        R"({"type":"object","properties":{"text":{"type":"string"}},"required":["text"]})";
    echo.handler = tools::SyncHandler([](const json& args, tools::ToolContext&) {
      return tools::ToolOutput::text("echo:" + args.at("text").get<std::string>());
    });
    ASSERT_TRUE(reg->add(std::move(echo)));
    tools::ToolSpec slow;
    slow.name = "slow";
    slow.description = "Waits until cancelled";
    slow.handler = tools::SyncHandler([this](const json&, tools::ToolContext& ctx) {
      std::unique_lock lock(slow_.mu);
      slow_.started = true;
      slow_.cv.notify_all();
      lock.unlock();
      auto until = std::chrono::steady_clock::now() + std::chrono::seconds(10);
      while (!ctx.cancelled() && std::chrono::steady_clock::now() < until)
        std::this_thread::sleep_for(std::chrono::milliseconds(2));  // the tool's own work loop
      lock.lock();
      slow_.saw_cancel = ctx.cancelled();
      slow_.finished = true;
      slow_.cv.notify_all();
      return tools::ToolOutput::text("slow");
    });
    ASSERT_TRUE(reg->add(std::move(slow)));

    auto script = provider::parse_script(kScript);
    ASSERT_TRUE(script) << script.error().to_string();
    auto router = std::make_shared<gateway::PatternRouter>();
    auto* p = router->own(std::make_unique<provider::ScriptedProvider>(std::move(*script)));
    auto server_tools = std::make_shared<gateway::RouteTools>();
    server_tools->mode = gateway::ToolMode::server;
    server_tools->registry = reg;
    server_tools->tool_timeout = std::chrono::seconds(20);
    auto mixed_tools = std::make_shared<gateway::RouteTools>(*server_tools);
    mixed_tools->mode = gateway::ToolMode::mixed;
    router->add_route(
        {.pattern = "server", .aliases = {}, .targets = {{p, "", "scripted", server_tools}}});
    router->add_route(
        {.pattern = "mixed", .aliases = {}, .targets = {{p, "", "scripted", mixed_tools}}});
    gateway::GatewayOptions opt;
    opt.host = "127.0.0.1";
    opt.port = 0;
    opt.threads = 2;
    opt.log = [](std::string_view) {};
    gw_ = std::make_unique<gateway::Gateway>(opt, router);
    ASSERT_TRUE(gw_->start().ok());
  }
  void TearDown() override {
    gw_->stop();
    gw_->wait();
  }

  std::optional<HttpResponse> post(const std::string& path, const json& body) {
    RawClient c(gw_->port());
    EXPECT_TRUE(c.send(http_post(path, body.dump())));
    return c.read_response();
  }

  static json user(const std::string& text) { return {{"role", "user"}, {"content", text}}; }

  SlowTool slow_;
  std::unique_ptr<gateway::Gateway> gw_;
};

TEST_F(ToolModes, ServerRunsItsToolAndAnswersWithTheFinalText) {
  auto r = post("/v1/chat/completions", {{"model", "server"}, {"messages", {user("echo hi")}}});
  ASSERT_TRUE(r);
  ASSERT_EQ(r->status, 200) << r->body;
  json j = json::parse(r->body);
  EXPECT_EQ(j["choices"][0]["message"]["content"], "the tool said: echo:hi");
  EXPECT_EQ(j["choices"][0]["finish_reason"], "stop");
  EXPECT_FALSE(j["choices"][0]["message"].contains("tool_calls"));
  // Two model calls' usage, summed.
  EXPECT_GT(j["usage"]["completion_tokens"].get<int>(), 0);
}

TEST_F(ToolModes, ServerStreamShowsOneTurnAndToolCommentsWhenAsked) {
  RawClient c(gw_->port());
  json body = {
      {"model", "server"}, {"max_tokens", 64}, {"stream", true}, {"messages", {user("echo yo")}}};
  ASSERT_TRUE(c.send(http_post("/v1/messages", body.dump(), "toolwire-tool-events: comments\r\n")));
  auto r = c.read_response();
  ASSERT_TRUE(r);
  ASSERT_EQ(r->status, 200);
  EXPECT_NE(r->body.find(": toolwire.tool_call echo"), std::string::npos) << r->body;
  EXPECT_NE(r->body.find(": toolwire.tool_result"), std::string::npos);
  EXPECT_NE(r->body.find("\"the tool"), std::string::npos);  // text arrives in 12-char deltas
  EXPECT_EQ(r->body.find("\"tool_use\""), std::string::npos) << "a server call reached the client";
  size_t starts = 0;
  for (size_t pos = 0; (pos = r->body.find("event: message_start", pos)) != std::string::npos;
       ++pos)
    ++starts;
  EXPECT_EQ(starts, 1u);
  EXPECT_NE(r->body.find("\"stop_reason\":\"end_turn\""), std::string::npos);
}

TEST_F(ToolModes, ServerRouteRefusesClientTools) {
  json tools = json::array({{{"type", "function"},
                             {"function", {{"name", "x"}, {"parameters", {{"type", "object"}}}}}}});
  auto r = post("/v1/chat/completions",
                {{"model", "server"}, {"messages", {user("hi")}}, {"tools", tools}});
  ASSERT_TRUE(r);
  EXPECT_EQ(r->status, 400);
  // It names the switch that serves a framework's own tools (the offline
  // default runs the gateway's), not only the configuration's route mode.
  EXPECT_NE(r->body.find("--tools mixed"), std::string::npos) << r->body;
  EXPECT_NE(r->body.find("tools.mode: mixed"), std::string::npos) << r->body;
  EXPECT_NE(r->body.find("\"param\":\"$.tools\""), std::string::npos) << r->body;
}

TEST_F(ToolModes, MixedRefusesANameClash) {
  json tools =
      json::array({{{"type", "function"},
                    {"function", {{"name", "echo"}, {"parameters", {{"type", "object"}}}}}}});
  auto r = post("/v1/chat/completions",
                {{"model", "mixed"}, {"messages", {user("hi")}}, {"tools", tools}});
  ASSERT_TRUE(r);
  EXPECT_EQ(r->status, 400);
  EXPECT_NE(r->body.find("clashes with a server tool"), std::string::npos) << r->body;
}

// A turn calling a server tool and a client tool: the server call runs, the
// client gets only its own call (index 0); its next request, carrying only
// that call and its result, reaches the model with the server call spliced
// back (the script answers after client_tool).
TEST_F(ToolModes, MixedReturnsClientCallsAndKeepsTheHistoryComplete) {
  json tools = json::array(
      {{{"type", "function"},
        {"function", {{"name", "client_tool"}, {"parameters", {{"type", "object"}}}}}}});
  auto r = post("/v1/chat/completions",
                {{"model", "mixed"}, {"messages", {user("both")}}, {"tools", tools}});
  ASSERT_TRUE(r);
  ASSERT_EQ(r->status, 200) << r->body;
  json msg = json::parse(r->body)["choices"][0]["message"];
  ASSERT_EQ(msg["tool_calls"].size(), 1u) << msg.dump();
  EXPECT_EQ(msg["tool_calls"][0]["function"]["name"], "client_tool");
  EXPECT_EQ(json::parse(r->body)["choices"][0]["finish_reason"], "tool_calls");
  std::string id = msg["tool_calls"][0]["id"];
  json next = {{"model", "mixed"},
               {"tools", tools},
               {"messages",
                {user("both"), msg, {{"role", "tool"}, {"tool_call_id", id}, {"content", "42"}}}}};
  auto r2 = post("/v1/chat/completions", next);
  ASSERT_TRUE(r2);
  ASSERT_EQ(r2->status, 200) << r2->body;
  EXPECT_EQ(json::parse(r2->body)["choices"][0]["message"]["content"], "client answered: 42");
}

TEST_F(ToolModes, ClientLeavingCancelsTheRunningServerTool) {
  {
    RawClient c(gw_->port());
    json body = {{"model", "server"}, {"stream", true}, {"messages", {user("slow")}}};
    ASSERT_TRUE(c.send(http_post("/v1/chat/completions", body.dump())));
    std::unique_lock lock(slow_.mu);
    ASSERT_TRUE(slow_.cv.wait_for(lock, std::chrono::seconds(5), [&] { return slow_.started; }));
    lock.unlock();
    c.reset();  // the client goes away while the tool runs
  }
  std::unique_lock lock(slow_.mu);
  ASSERT_TRUE(slow_.cv.wait_for(lock, std::chrono::seconds(5), [&] { return slow_.finished; }));
  EXPECT_TRUE(slow_.saw_cancel) << "the tool ran to its own limit instead of being cancelled";
}

// The same loop behind the later dialects' routes: Gemini (model in the
// path), Bedrock's binary event stream (no tool-activity comments: they are
// SSE-only) and OpenAI Responses.
TEST_F(ToolModes, ServerModeBehindGeminiBedrockAndResponses) {
  auto g = post("/v1beta/models/server:generateContent",
                {{"contents", {{{"role", "user"}, {"parts", {{{"text", "echo gem"}}}}}}}});
  ASSERT_TRUE(g);
  ASSERT_EQ(g->status, 200) << g->body;
  json parts = json::parse(g->body)["candidates"][0]["content"]["parts"];
  ASSERT_EQ(parts.size(), 1u) << g->body;
  EXPECT_EQ(parts[0]["text"], "the tool said: echo:gem") << g->body;

  RawClient b(gw_->port());
  json converse = {{"messages", {{{"role", "user"}, {"content", {{{"text", "echo bed"}}}}}}}};
  ASSERT_TRUE(b.send(http_post("/model/server/converse-stream", converse.dump(),
                               "toolwire-tool-events: comments\r\n")));
  auto bs = b.read_response();
  ASSERT_TRUE(bs);
  ASSERT_EQ(bs->status, 200) << bs->body;
  EXPECT_EQ(bs->header("content-type"), "application/vnd.amazon.eventstream");
  EXPECT_EQ(bs->body.find(": toolwire."), std::string::npos) << "an SSE comment in a binary stream";
  EXPECT_EQ(bs->body.find("toolUse"), std::string::npos) << "a server call reached the client";
  EXPECT_NE(bs->body.find("messageStop"), std::string::npos);
  EXPECT_NE(bs->body.find("end_turn"), std::string::npos);

  RawClient rs(gw_->port());
  json resp = {{"model", "server"}, {"stream", true}, {"input", "echo res"}};
  ASSERT_TRUE(
      rs.send(http_post("/v1/responses", resp.dump(), "toolwire-tool-events: comments\r\n")));
  auto rr = rs.read_response();
  ASSERT_TRUE(rr);
  ASSERT_EQ(rr->status, 200) << rr->body;
  EXPECT_NE(rr->body.find(": toolwire.tool_call echo"), std::string::npos) << rr->body;
  EXPECT_NE(rr->body.find("response.completed"), std::string::npos) << rr->body;
  EXPECT_EQ(rr->body.find("function_call"), std::string::npos) << rr->body;
}

// Mixed mode through /v1/responses: the client gets its own call only, and
// its next request (the call and its output) reaches the model with the
// server call spliced back.
TEST_F(ToolModes, MixedBehindResponses) {
  json tools = json::array(
      {{{"type", "function"}, {"name", "client_tool"}, {"parameters", {{"type", "object"}}}}});
  auto r = post("/v1/responses", {{"model", "mixed"}, {"input", "both"}, {"tools", tools}});
  ASSERT_TRUE(r);
  ASSERT_EQ(r->status, 200) << r->body;
  json calls = json::array();
  json out = json::parse(r->body);
  for (const auto& item : out["output"])
    if (item["type"] == "function_call") calls.push_back(item);
  ASSERT_EQ(calls.size(), 1u) << r->body;
  EXPECT_EQ(calls[0]["name"], "client_tool");
  json next = {
      {"model", "mixed"},
      {"tools", tools},
      {"input",
       {{{"role", "user"}, {"content", "both"}},
        {{"type", "function_call"},
         {"call_id", calls[0]["call_id"]},
         {"name", "client_tool"},
         {"arguments", calls[0]["arguments"]}},
        {{"type", "function_call_output"}, {"call_id", calls[0]["call_id"]}, {"output", "42"}}}}};
  auto r2 = post("/v1/responses", next);
  ASSERT_TRUE(r2);
  ASSERT_EQ(r2->status, 200) << r2->body;
  std::string text;
  json out2 = json::parse(r2->body);
  for (const auto& item : out2["output"])
    if (item["type"] == "message") text += item["content"][0]["text"].get<std::string>();
  EXPECT_EQ(text, "client answered: 42") << r2->body;
}

// A passthrough route with `builtin_when_client_has_no_tools` and a tool
// prefix, built from its config: a request without tools is answered by the
// server loop with the prefixed built-ins (the model calls `gw_list`, the
// registry runs `list` in the route's workspace); a request that brings its
// own tools passes through, its call returned to the client.
// A provider whose answers carry a loss its stream decoder found (as an HTTP
// provider's Generation::warnings do) and whose finish carries a raw extra
// (as an `openai` or `gemini` stream's may): the scripted provider, each
// answer with one warning and each Finish with one extra.
class LossyProvider final : public provider::Provider {
 public:
  explicit LossyProvider(std::unique_ptr<provider::Provider> inner) : inner_(std::move(inner)) {}
  std::string_view name() const override { return inner_->name(); }
  const provider::Capabilities& capabilities() const override { return inner_->capabilities(); }
  provider::ProviderCall generate(ir::Request request, provider::DoneCallback done) override {
    return inner_->generate(std::move(request), with_loss(std::move(done)));
  }
  provider::ProviderCall stream(ir::Request request, provider::EventCallback on_event,
                                provider::DoneCallback done) override {
    auto with_extra = [on_event = std::move(on_event)](const ir::StreamEvent& e) {
      if (const auto* f = std::get_if<ir::Finish>(&e)) {
        ir::Finish fin = *f;
        fin.extras = {{{"service_tier", R"("default")"}}, "openai_chat"};
        return on_event(ir::StreamEvent{std::move(fin)});
      }
      on_event(e);
    };
    return inner_->stream(std::move(request), std::move(with_extra), with_loss(std::move(done)));
  }

 private:
  static provider::DoneCallback with_loss(provider::DoneCallback done) {
    return [done = std::move(done)](Result<provider::Generation> g) {
      if (g)
        g->warnings.push_back(
            Warning{"dropped_unknown_field", "$.system_fingerprint", "no stream event"});
      done(std::move(g));
    };
  }
  std::unique_ptr<provider::Provider> inner_;
};

// In server mode the gateway runs the rounds itself; what a round's stream
// decoder lost reaches the counter (stage "stream") and the log, as a
// passthrough stream's does (ModelCall::report_stream_warnings), not only
// the model call's span; so does a round's finish extra, which the client's
// one answer (its own finish) cannot carry.
TEST(ToolModesLosses, ARoundsStreamLossesReachTheCounterAndTheLog) {
  auto reg = std::make_shared<tools::Registry>();
  tools::ToolSpec echo;
  echo.name = "echo";
  echo.input_schema = R"({"type":"object","properties":{"text":{"type":"string"}}})";
  echo.handler = tools::SyncHandler([](const json& args, tools::ToolContext&) {
    return tools::ToolOutput::text("echo:" + args.value("text", std::string()));
  });
  ASSERT_TRUE(reg->add(std::move(echo)));
  auto script = provider::parse_script(kScript);
  ASSERT_TRUE(script) << script.error().to_string();
  auto router = std::make_shared<gateway::PatternRouter>();
  auto* p = router->own(std::make_unique<LossyProvider>(
      std::make_unique<provider::ScriptedProvider>(std::move(*script))));
  auto tools = std::make_shared<gateway::RouteTools>();
  tools->mode = gateway::ToolMode::server;
  tools->registry = reg;
  router->add_route({.pattern = "*", .aliases = {}, .targets = {{p, "", "scripted", tools}}});
  gateway::GatewayOptions opt;
  opt.host = "127.0.0.1";
  opt.port = 0;
  opt.threads = 1;
  auto lines = std::make_shared<std::vector<std::string>>();
  auto mu = std::make_shared<std::mutex>();
  opt.log = [lines, mu](std::string_view line) {
    std::lock_guard lock(*mu);
    lines->emplace_back(line);
  };
  gateway::Gateway gw(opt, router);
  ASSERT_TRUE(gw.start().ok());
  RawClient c(gw.port());
  json body = {
      {"model", "m"}, {"stream", true}, {"messages", {{{"role", "user"}, {"content", "echo yo"}}}}};
  ASSERT_TRUE(c.send(http_post("/v1/chat/completions", body.dump())));
  auto r = c.read_response();
  ASSERT_TRUE(r);
  ASSERT_EQ(r->status, 200) << r->body;
  EXPECT_NE(r->body.find("the tool"), std::string::npos) << r->body;  // in 12-char deltas
  const std::string metrics = gw.metrics_text();
  gw.stop();
  gw.wait();
  EXPECT_NE(metrics.find("toolwire_translation_warnings_total{route=\"/v1/chat/completions\","
                         "code=\"dropped_unknown_field\",stage=\"stream\"} 2"),
            std::string::npos)
      << metrics;
  std::string logged;
  for (const auto& line : *lines)
    if (line.find("lost after the headers were sent") != std::string::npos) logged += line;
  EXPECT_NE(logged.find("dropped_unknown_field ($.system_fingerprint)"), std::string::npos)
      << logged;
  EXPECT_NE(logged.find("dropped_unknown_field ($.service_tier)"), std::string::npos) << logged;
}

TEST(ToolModesConfig, BuiltinsWhenTheClientHasNoToolsUnderAPrefix) {
  namespace fs = std::filesystem;
  fs::path ws = fs::temp_directory_path() / ("tw_builtins_" + std::to_string(::getpid()));
  fs::create_directories(ws);
  std::ofstream(ws / "notes.txt") << "hello";
  gateway::RouteToolsConfig cfg;
  cfg.mode = gateway::ToolMode::passthrough;
  cfg.workspace = ws.string();
  cfg.builtins = {"list", "read"};
  cfg.tool_prefix = "gw_";
  cfg.builtin_when_client_has_no_tools = true;
  auto tools = gateway::make_route_tools(cfg);
  ASSERT_TRUE(tools) << tools.error().to_string();
  ASSERT_TRUE((*tools)->registry);
  auto names = (*tools)->registry->names();
  std::sort(names.begin(), names.end());
  EXPECT_EQ(names, (std::vector<std::string>{"gw_list", "gw_read"}));

  auto script = provider::parse_script(R"({"rules": [
    {"user_pattern": "^ls$", "calls": [{"name": "gw_list", "arguments": {}}]},
    {"after_tool": "gw_list", "reply": "files: {{result}}"},
    {"user_pattern": "^mine$", "calls": [{"name": "my_tool", "arguments": {"x": 1}}]}
  ], "fallback": "plain"})");
  ASSERT_TRUE(script) << script.error().to_string();
  auto router = std::make_shared<gateway::PatternRouter>();
  auto* p = router->own(std::make_unique<provider::ScriptedProvider>(std::move(*script)));
  router->add_route({.pattern = "*", .aliases = {}, .targets = {{p, "", "scripted", *tools}}});
  gateway::GatewayOptions opt;
  opt.host = "127.0.0.1";
  opt.port = 0;
  opt.threads = 1;
  opt.log = [](std::string_view) {};
  gateway::Gateway gw(opt, router);
  ASSERT_TRUE(gw.start().ok());
  auto post = [&](const json& body) {
    RawClient c(gw.port());
    EXPECT_TRUE(c.send(http_post("/v1/chat/completions", body.dump())));
    return c.read_response();
  };
  json msgs = json::array({{{"role", "user"}, {"content", "ls"}}});
  auto served = post({{"model", "m"}, {"messages", msgs}});
  ASSERT_TRUE(served);
  ASSERT_EQ(served->status, 200) << served->body;
  json a = json::parse(served->body)["choices"][0];
  EXPECT_NE(a["message"]["content"].get<std::string>().find("notes.txt"), std::string::npos)
      << a.dump();
  EXPECT_EQ(a["finish_reason"], "stop");

  json own_tool = {{"type", "function"},
                   {"function", {{"name", "my_tool"}, {"parameters", {{"type", "object"}}}}}};
  auto passed = post({{"model", "m"},
                      {"messages", {{{"role", "user"}, {"content", "mine"}}}},
                      {"tools", json::array({own_tool})}});
  ASSERT_TRUE(passed);
  ASSERT_EQ(passed->status, 200) << passed->body;
  json b = json::parse(passed->body)["choices"][0];
  EXPECT_EQ(b["finish_reason"], "tool_calls");
  EXPECT_EQ(b["message"]["tool_calls"][0]["function"]["name"], "my_tool");
  gw.stop();
  gw.wait();
  fs::remove_all(ws);
}

}  // namespace
}  // namespace toolwire::testing
