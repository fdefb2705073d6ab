// The envelope turn protocol end to end: the scripted provider answers with
// JSON envelopes, chosen by rules over the results message the loop feeds
// back, and the Agent runs them (send_chat, say, priority order, errors fed
// back and corrected, end_turn, the round cap, a non-JSON answer).
#include <gtest/gtest.h>

#include <atomic>
#include <mutex>

#include <nlohmann/json.hpp>

#include "toolwire/agent/agent.h"
#include "toolwire/agent/history.h"
#include "toolwire/provider/scripted.h"

namespace toolwire::agent {
namespace {

// The scripted provider, keeping every request it was sent.
class Recording final : public provider::Provider {
 public:
  explicit Recording(provider::Script script) : inner_(std::move(script)) {}
  std::string_view name() const override { return inner_.name(); }
  const provider::Capabilities& capabilities() const override { return inner_.capabilities(); }
  std::string_view default_model() const override { return inner_.default_model(); }
  provider::ProviderCall generate(ir::Request r, provider::DoneCallback done) override {
    requests.push_back(r);
    return inner_.generate(std::move(r), std::move(done));
  }
  provider::ProviderCall stream(ir::Request r, provider::EventCallback on_event,
                                provider::DoneCallback done) override {
    requests.push_back(r);
    return inner_.stream(std::move(r), std::move(on_event), std::move(done));
  }
  std::vector<ir::Request> requests;

 private:
  provider::ScriptedProvider inner_;
};

provider::Script script(std::vector<std::pair<std::string, std::string>> rules,
                        std::string fallback = "no rule") {
  provider::Script s;
  for (auto& [pattern, reply] : rules) {
    provider::ScriptRule r;
    r.user_pattern = std::move(pattern);
    r.reply = std::move(reply);
    s.rules.push_back(std::move(r));
  }
  s.fallback = std::move(fallback);
  return s;
}

std::string last_user_text(const ir::Request& r) {
  for (auto it = r.messages.rbegin(); it != r.messages.rend(); ++it)
    if (it->role == ir::Role::user)
      for (const auto& p : it->parts)
        if (auto* t = std::get_if<ir::TextPart>(&p)) return t->text;
  return {};
}

struct Recorder {
  std::vector<Event> events;
  std::function<void(const Event&)> also;
  EventSink sink() {
    return [this](const Event& e) {
      events.push_back(e);
      if (also) also(e);
    };
  }
  template <class T>
  std::vector<T> all() const {
    std::vector<T> out;
    for (const auto& e : events)
      if (auto* t = std::get_if<T>(&e)) out.push_back(*t);
    return out;
  }
  // One line per event, to check the order of everything at once.
  std::vector<std::string> trace() const {
    std::vector<std::string> out;
    for (const auto& e : events) {
      if (auto* t = std::get_if<TextDeltaEvent>(&e)) out.push_back("text:" + t->text);
      if (auto* s = std::get_if<SpeechEvent>(&e)) out.push_back("say:" + s->text);
      if (auto* c = std::get_if<ToolCallEvent>(&e)) out.push_back("call:" + c->call.name);
      if (auto* r = std::get_if<ToolResultEvent>(&e))
        out.push_back(std::string(r->result.is_error ? "error:" : "result:") + r->tool_name);
      if (auto* f = std::get_if<RoundFinishedEvent>(&e))
        out.push_back("round:" + std::to_string(f->round));
      if (auto* f = std::get_if<FinalAnswerEvent>(&e))
        out.push_back("final:" + std::string(to_string(f->reason)));
      if (std::get_if<ErrorEvent>(&e)) out.push_back("error_event");
    }
    return out;
  }
};

using Trace = std::vector<std::string>;

AgentOptions envelope_options() {
  AgentOptions o;
  o.turn_protocol = TurnProtocol::envelope;
  o.log = [](std::string_view) {};
  return o;
}

tools::ToolSpec weather_tool(std::atomic<bool>* chat_seen = nullptr,
                             std::atomic<bool>* chat_seen_at_run = nullptr) {
  tools::ToolSpec s;
  s.name = "get_weather";
  s.description = "Current weather for a city.";
  s.input_schema =
      R"({"type":"object","properties":{"city":{"type":"string"}},"required":["city"],"additionalProperties":false})";
  s.handler = tools::SyncHandler(
      [chat_seen, chat_seen_at_run](const nlohmann::json& a, tools::ToolContext&) {
        if (chat_seen_at_run) *chat_seen_at_run = chat_seen->load();
        return tools::ToolOutput::text("Sunny in " + a["city"].get<std::string>());
      });
  return s;
}

TEST(EnvelopeLoop, SendChatReachesTheUserAtOnceSayIsSpeechEndTurnEnds) {
  Recording model(script({
      {R"re("id":"w1","type":"get_weather","status":"ok","output":"([^"]*)")re",
       R"({"toolCalls":[{"type":"end_turn","id":"e"},)"
       R"({"type":"send_chat","id":"m2","parameters":{"content":"Result: $1"},"priority":1}]})"},
      {R"(weather in (\w+))",
       "```json\n"
       R"({"toolCalls":[{"type":"get_weather","id":"w1","operation":"look it up","parameters":{"city":"$1"}},)"
       R"({"type":"say","id":"s1","parameters":{"utterance":"Checking $1"},"priority":5},)"
       R"({"type":"send_chat","id":"m1","parameters":{"content":"Looking up $1..."},"priority":9}]})"
       "\n```"},
  }));
  std::atomic<bool> chat_seen{false}, chat_seen_at_run{false};
  tools::Registry reg;
  ASSERT_TRUE(reg.add(weather_tool(&chat_seen, &chat_seen_at_run)).ok());
  Agent agent(model, reg, envelope_options());
  Recorder rec;
  rec.also = [&](const Event& e) {
    if (std::holds_alternative<TextDeltaEvent>(e)) chat_seen = true;
  };
  RunResult r = agent.run("What is the weather in Paris?", rec.sink());

  EXPECT_EQ(r.reason, StopReason::end_turn_tool);
  EXPECT_EQ(r.rounds, 2);
  EXPECT_EQ(r.text, "Looking up Paris...\nResult: Sunny in Paris");
  EXPECT_FALSE(r.error.has_value());
  EXPECT_EQ(rec.trace(),
            (Trace{"text:Looking up Paris...", "say:Checking Paris", "call:get_weather",
                   "result:get_weather", "round:1", "text:\nResult: Sunny in Paris", "round:2",
                   "final:end_turn_tool"}));
  // The message was delivered before the tool even started, not at the turn's end.
  EXPECT_TRUE(chat_seen_at_run.load());
  ASSERT_EQ(rec.all<SpeechEvent>().size(), 1u);
  EXPECT_EQ(rec.all<SpeechEvent>()[0].call_id, "s1");
  EXPECT_EQ(rec.all<ToolCallEvent>()[0].call.id, "w1");
  EXPECT_EQ(rec.all<ToolCallEvent>()[0].call.arguments, R"({"city":"Paris"})");
  EXPECT_EQ(rec.all<RoundFinishedEvent>()[0].tool_calls, 3);

  // The model was sent no native tools, and the protocol in its system prompt.
  ASSERT_EQ(model.requests.size(), 2u);
  EXPECT_TRUE(model.requests[0].tools.empty());
  ASSERT_FALSE(model.requests[0].system.empty());
  const std::string& sys = model.requests[0].system.back().text;
  EXPECT_NE(sys.find("## get_weather"), std::string::npos);
  EXPECT_NE(sys.find("## send_chat"), std::string::npos);
  // Round 2 read the results in the documented format (in the order they ran).
  nlohmann::json fed = nlohmann::json::parse(last_user_text(model.requests[1]));
  EXPECT_EQ(fed, nlohmann::json::parse(R"({"toolResults":[
      {"id":"m1","type":"send_chat","status":"ok","output":"sent"},
      {"id":"s1","type":"say","status":"ok","output":"queued"},
      {"id":"w1","type":"get_weather","status":"ok","output":"Sunny in Paris"}],"errors":[]})"));

  // History: plain text only; the closing answer (messages only) needs no results message.
  const auto& h = agent.history();
  ASSERT_EQ(h.size(), 4u);
  EXPECT_EQ(h[1].role, ir::Role::assistant);
  EXPECT_EQ(h[2].role, ir::Role::user);
  EXPECT_EQ(h[3].role, ir::Role::assistant);
  EXPECT_TRUE(check_history(h).ok());
}

TEST(EnvelopeLoop, CallsRunInPriorityOrderOneAtATime) {
  std::mutex mu;
  std::vector<int> ran;
  std::atomic<int> running{0}, overlap{0};
  tools::ToolSpec step;
  step.name = "step";
  step.description = "Records its number.";
  step.input_schema = R"({"type":"object","properties":{"n":{"type":"integer"}},"required":["n"]})";
  step.handler = tools::SyncHandler([&](const nlohmann::json& a, tools::ToolContext&) {
    if (++running > 1) ++overlap;
    {
      std::lock_guard lock(mu);
      ran.push_back(a["n"].get<int>());
    }
    --running;
    return tools::ToolOutput::text("step " + std::to_string(a["n"].get<int>()));
  });
  tools::Registry reg;
  ASSERT_TRUE(reg.add(step).ok());
  Recording model(
      script({{"go", R"({"toolCalls":[)"
                     R"({"type":"step","parameters":{"n":1}},)"
                     R"({"type":"step","parameters":{"n":2},"priority":3},)"
                     R"({"type":"end_turn","priority":10},)"
                     R"({"type":"step","parameters":{"n":3},"priority":0},)"
                     R"({"type":"send_chat","parameters":{"content":"half way"},"priority":1},)"
                     R"({"type":"step","parameters":{"n":4},"priority":3},)"
                     R"({"type":"step","parameters":{"n":5},"priority":-2.5}]})"}}));
  AgentOptions o = envelope_options();
  o.max_concurrency = 8;  // the envelope runs calls one by one whatever the pool allows
  Agent agent(model, reg, o);
  Recorder rec;
  RunResult r = agent.run("go", rec.sink());
  EXPECT_EQ(r.reason, StopReason::end_turn_tool);
  EXPECT_EQ(r.rounds, 1);
  EXPECT_EQ(ran, (std::vector<int>{2, 4, 1, 3, 5}));
  EXPECT_EQ(overlap.load(), 0);
  EXPECT_EQ(rec.trace(),
            (Trace{"call:step", "result:step", "call:step", "result:step", "text:half way",
                   "call:step", "result:step", "call:step", "result:step", "call:step",
                   "result:step", "round:1", "final:end_turn_tool"}));
  // Generated ids are unique and name the call's place in the answer.
  auto calls = rec.all<ToolCallEvent>();
  EXPECT_EQ(calls[0].call.id, "call_1_2");
  EXPECT_EQ(calls[4].call.id, "call_1_7");
  // Tool results beside end_turn are kept for the model's next turn.
  const auto& h = agent.history();
  ASSERT_EQ(h.size(), 3u);
  EXPECT_EQ(h[2].role, ir::Role::user);
  ASSERT_EQ(h[2].parts.size(), 1u);
  auto fed = nlohmann::json::parse(std::get<ir::TextPart>(h[2].parts[0]).text);
  ASSERT_EQ(fed["toolResults"].size(), 7u);
  EXPECT_EQ(fed["toolResults"][0]["type"], "end_turn");
  EXPECT_EQ(fed["toolResults"][1]["output"], "step 2");
}

TEST(EnvelopeLoop, InvalidCallsAreFedBackAndCorrected) {
  Recording model(script({
      {R"re("status":"ok","output":"(Sunny[^"]*)")re",
       R"({"toolCalls":[{"type":"send_chat","parameters":{"content":"$1"}},{"type":"end_turn"}]})"},
      // Round 2 answers only when it read all three errors.
      {R"(invalid arguments for tool 'get_weather'[\s\S]*unknown tool[\s\S]*invalid arguments for tool 'send_chat')",
       R"({"toolCalls":[{"type":"get_weather","id":"w3","parameters":{"city":"Oslo"}}]})"},
      {"weather", R"({"toolCalls":[{"type":"get_weather","id":"w1","parameters":{"town":"Oslo"}},)"
                  R"({"type":"get_wether","id":"w2","parameters":{"city":"Oslo"}},)"
                  R"({"type":"send_chat","id":"m1","parameters":{"text":"hi"}},)"
                  R"({"id":"x"}]})"},
  }));
  tools::Registry reg;
  ASSERT_TRUE(reg.add(weather_tool()).ok());
  Agent agent(model, reg, envelope_options());
  Recorder rec;
  RunResult r = agent.run("weather in Oslo?", rec.sink());
  EXPECT_EQ(r.reason, StopReason::end_turn_tool);
  EXPECT_EQ(r.rounds, 3);
  EXPECT_EQ(r.text, "Sunny in Oslo");
  EXPECT_EQ(rec.trace(), (Trace{"call:get_weather", "error:get_weather", "call:get_wether",
                                "error:get_wether", "call:send_chat", "error:send_chat", "round:1",
                                "call:get_weather", "result:get_weather", "round:2",
                                "text:Sunny in Oslo", "round:3", "final:end_turn_tool"}));
  ASSERT_EQ(model.requests.size(), 3u);
  nlohmann::json fed = nlohmann::json::parse(last_user_text(model.requests[1]));
  ASSERT_EQ(fed["toolResults"].size(), 3u);
  for (const auto& res : fed["toolResults"]) EXPECT_EQ(res["status"], "error") << res;
  EXPECT_NE(fed["toolResults"][0]["output"].get<std::string>().find("city"), std::string::npos);
  EXPECT_NE(fed["toolResults"][1]["output"].get<std::string>().find("get_wether"),
            std::string::npos);
  EXPECT_EQ(fed["errors"], nlohmann::json::parse(R"(["toolCalls[3]: a call has no name"])"));
}

TEST(EnvelopeLoop, BrokenJsonIsFedBackAndCorrected) {
  Recording model(script({
      {"not valid JSON|ended inside the envelope",
       R"({"toolCalls":[{"type":"send_chat","parameters":{"content":"fixed"}},{"type":"end_turn"}]})"},
      {"hello", R"({"toolCalls":[{"type":"send_chat","parameters":{"content":"x"}})"},
  }));
  tools::Registry reg;
  Agent agent(model, reg, envelope_options());
  Recorder rec;
  RunResult r = agent.run("hello", rec.sink());
  EXPECT_EQ(r.reason, StopReason::end_turn_tool);
  EXPECT_EQ(r.rounds, 2);
  EXPECT_EQ(r.text, "fixed");  // nothing of the broken answer reached the user
  EXPECT_EQ(rec.trace(), (Trace{"round:1", "text:fixed", "round:2", "final:end_turn_tool"}));
  nlohmann::json fed = nlohmann::json::parse(last_user_text(model.requests[1]));
  EXPECT_EQ(fed["toolResults"].size(), 0u);
  ASSERT_EQ(fed["errors"].size(), 1u);
}

TEST(EnvelopeLoop, ProseAnswerIsAnErrorNotText) {
  Recording model(script({
      {"the answer is not JSON",
       R"({"toolCalls":[{"type":"send_chat","parameters":{"content":"It is sunny."}},{"type":"end_turn"}]})"},
      {"weather", "Sure! It is sunny in Paris today."},
  }));
  tools::Registry reg;
  Agent agent(model, reg, envelope_options());
  Recorder rec;
  RunResult r = agent.run("weather?", rec.sink());
  EXPECT_EQ(r.reason, StopReason::end_turn_tool);
  EXPECT_EQ(r.text, "It is sunny.");
  ASSERT_EQ(rec.all<TextDeltaEvent>().size(), 1u);
  EXPECT_EQ(rec.all<TextDeltaEvent>()[0].text, "It is sunny.");
  EXPECT_EQ(nlohmann::json::parse(last_user_text(model.requests[1]))["errors"][0],
            R"(the answer is not JSON: expected {"toolCalls": [...]})");
}

TEST(EnvelopeLoop, OnlyEndTurnEndsTheTurnUntilTheRoundCap) {
  // Never calls end_turn: a message alone, then an empty envelope, forever.
  Recording model(script(
      {{"no calls", R"({"toolCalls":[{"type":"send_chat","parameters":{"content":"again"}}]})"},
       {"start|sent", R"({"toolCalls":[]})"}}));
  tools::Registry reg;
  AgentOptions o = envelope_options();
  o.max_rounds = 4;
  Agent agent(model, reg, o);
  Recorder rec;
  RunResult r = agent.run("start", rec.sink());
  EXPECT_EQ(r.reason, StopReason::round_limit);
  EXPECT_EQ(r.rounds, 4);
  ASSERT_TRUE(r.error.has_value());
  EXPECT_EQ(r.error->code, ErrorCode::resource_exhausted);
  EXPECT_NE(r.error->message.find("end_turn"), std::string::npos);
  EXPECT_EQ(r.text, "again\nagain");
  EXPECT_EQ(rec.trace(), (Trace{"round:1", "text:again", "round:2", "round:3", "text:\nagain",
                                "round:4", "error_event", "final:round_limit"}));
  EXPECT_EQ(nlohmann::json::parse(last_user_text(model.requests[1]))["errors"][0],
            "the envelope has no calls; only end_turn ends your turn");
  EXPECT_TRUE(check_history(agent.history()).ok());
}

TEST(EnvelopeLoop, RemoteCallIsAwaitedBeforeTheNextCallRuns) {
  Recording model(script({
      {R"("status":"ok","output":"photo.jpg"[\s\S]*"output":"Sunny in Rome")",
       R"({"toolCalls":[{"type":"end_turn"}]})"},
      {"photo", R"({"toolCalls":[{"type":"get_weather","parameters":{"city":"Rome"}},)"
                R"({"type":"take_photo","id":"p1","parameters":{"zoom":2},"priority":1},)"
                R"({"type":"take_photo","id":"p2","parameters":{"zoom":"far"},"priority":1}]})"},
  }));
  tools::Registry reg;
  ASSERT_TRUE(reg.add(weather_tool()).ok());
  AgentOptions o = envelope_options();
  o.remote_tools = {
      {.definition = {"take_photo", "Takes a photo on the phone",
                      R"({"type":"object","properties":{"zoom":{"type":"integer"}}})"}}};
  Agent agent(model, reg, o);
  Recorder rec;
  std::vector<std::string> pending_at_call;
  rec.also = [&](const Event& e) {
    auto* c = std::get_if<ToolCallEvent>(&e);
    if (!c) return;
    pending_at_call.push_back(c->call.name + ":" +
                              std::to_string(agent.pending_remote_calls().size()));
    if (c->remote && c->call.id == "p1") {
      EXPECT_TRUE(agent.submit_result("p1", tools::ToolOutput::text("photo.jpg")).ok());
    }
  };
  RunResult r = agent.run("take a photo", rec.sink());
  EXPECT_EQ(r.reason, StopReason::end_turn_tool);
  EXPECT_EQ(r.rounds, 2);
  // p2's arguments break its schema: an error, never sent to the device.
  EXPECT_EQ(rec.trace(), (Trace{"call:take_photo", "result:take_photo", "call:take_photo",
                                "error:take_photo", "call:get_weather", "result:get_weather",
                                "round:1", "round:2", "final:end_turn_tool"}));
  auto calls = rec.all<ToolCallEvent>();
  EXPECT_TRUE(calls[0].remote);
  // The weather call started only once the photo's result was in.
  EXPECT_EQ(pending_at_call,
            (std::vector<std::string>{"take_photo:1", "take_photo:0", "get_weather:0"}));
}

TEST(EnvelopeLoop, CancelStopsTheRunningCallAndSkipsTheRest) {
  tools::ToolSpec slow;
  slow.name = "slow";
  slow.description = "Waits to be cancelled.";
  slow.handler = tools::SyncHandler([](const nlohmann::json&, tools::ToolContext& ctx) {
    if (ctx.cancel.wait_for(std::chrono::seconds(20))) return tools::ToolOutput::error("stopped");
    return tools::ToolOutput::text("done");
  });
  tools::Registry reg;
  ASSERT_TRUE(reg.add(slow).ok());
  Recording model(script({{"go", R"({"toolCalls":[{"type":"slow","id":"a","priority":1},)"
                                 R"({"type":"send_chat","parameters":{"content":"never"}},)"
                                 R"({"type":"end_turn"}]})"}}));
  Agent agent(model, reg, envelope_options());
  Recorder rec;
  rec.also = [&](const Event& e) {
    if (std::holds_alternative<ToolCallEvent>(e)) agent.cancel();
  };
  RunResult r = agent.run("go", rec.sink());
  EXPECT_EQ(r.reason, StopReason::cancelled);
  EXPECT_EQ(r.text, "");
  EXPECT_EQ(rec.trace(), (Trace{"call:slow", "error:slow", "round:1", "final:cancelled"}));
  const auto& h = agent.history();
  ASSERT_EQ(h.size(), 3u);
  EXPECT_TRUE(check_history(h).ok());
  auto fed = nlohmann::json::parse(std::get<ir::TextPart>(h[2].parts[0]).text);
  ASSERT_EQ(fed["toolResults"].size(), 3u);
  for (const auto& res : fed["toolResults"]) EXPECT_EQ(res["status"], "error") << res;
  EXPECT_EQ(fed["toolResults"][1]["output"], "tool 'send_chat' cancelled");
}

TEST(EnvelopeLoop, TurnProtocolNames) {
  EXPECT_EQ(parse_turn_protocol("envelope").value(), TurnProtocol::envelope);
  EXPECT_EQ(parse_turn_protocol("native").value(), TurnProtocol::native);
  EXPECT_FALSE(parse_turn_protocol("xml").ok());
  EXPECT_EQ(to_string(TurnProtocol::envelope), "envelope");
  EXPECT_EQ(to_json(Event{SpeechEvent{2, "hi", "s1"}}),
            R"({"type":"speech","round":2,"text":"hi","id":"s1"})");
}

}  // namespace
}  // namespace toolwire::agent
