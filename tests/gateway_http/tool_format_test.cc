// `tool_format` upstreams (src/textprovider) behind the gateway, built from
// YAML: a mock upstream on 127.0.0.1 answers in hermes text, the OpenAI
// client gets native `tool_calls`, whole and streamed; the upstream saw the
// tools rendered in the prompt and no `tools` field. Over a chat endpoint
// (openai_compatible) and a raw completion endpoint (openai_completions).
#include <sstream>

#include <gtest/gtest.h>
#include <nlohmann/json.hpp>

#include "gateway_rig.h"
#include "mock_http_server.h"
#include "toolwire/gateway/config.h"

namespace toolwire::testing {
namespace {

// The model's answer, and the same cut into small pieces for a stream
// (markers split across chunks).
const std::string kHermes =
    "Let me check.\n<tool_call>\n{\"name\": \"get_weather\", \"arguments\": {\"city\": "
    "\"Zürich\", \"days\": 2}}\n</tool_call>";

std::vector<std::string> pieces(const std::string& s, size_t n) {
  std::vector<std::string> out;
  size_t i = 0;
  while (i < s.size()) {
    size_t end = std::min(s.size(), i + n);
    // Servers send whole characters: never cut a UTF-8 sequence.
    while (end < s.size() && (static_cast<unsigned char>(s[end]) & 0xC0) == 0x80) ++end;
    out.push_back(s.substr(i, end - i));
    i = end;
  }
  return out;
}

// A client's request: tools, and a history with an earlier call and result.
std::string client_request(bool stream) {
  nlohmann::json tools = nlohmann::json::array(
      {{{"type", "function"},
        {"function",
         {{"name", "get_weather"},
          {"description", "Weather for a city"},
          {"parameters",
           {{"type", "object"},
            {"properties", {{"city", {{"type", "string"}}}, {"days", {{"type", "integer"}}}}},
            {"required", {"city"}}}}}}}});
  nlohmann::json messages = nlohmann::json::array(
      {{{"role", "system"}, {"content", "Be brief."}},
       {{"role", "user"}, {"content", "Weather in Oslo?"}},
       {{"role", "assistant"},
        {"content", nullptr},
        {"tool_calls",
         {{{"id", "call_1"},
           {"type", "function"},
           {"function", {{"name", "get_weather"}, {"arguments", "{\"city\":\"Oslo\"}"}}}}}}},
       {{"role", "tool"}, {"tool_call_id", "call_1"}, {"content", "rain, 9 C"}},
       {{"role", "user"}, {"content", "And Zürich?"}}});
  nlohmann::json body = {
      {"model", "local"}, {"messages", messages}, {"tools", tools}, {"stream", stream}};
  return body.dump();
}

class ToolFormat : public ::testing::TestWithParam<bool> {  // true: completion endpoint
 protected:
  void SetUp() override {
    upstream_.set_handler([this](const MockRequest& r) { return answer(r); });
    std::string yaml =
        "upstreams:\n  local:\n    profile: " +
        std::string(completion() ? "openai_completions" : "openai_compatible") +
        "\n    base_url: " + upstream_.url("/v1") +
        "\n    tool_format: hermes\n    max_attempts: 1\n"
        "routes:\n  - model: local\n    upstreams: [{upstream: local, model: qwen}]\n";
    auto config = gateway::load_config_string(yaml);
    ASSERT_TRUE(config.ok()) << config.error().to_string();
    auto built = gateway::build_gateway(*config, client_);
    ASSERT_TRUE(built.ok()) << built.error().to_string();
    gateway::GatewayOptions opt = small_options();
    opt.log = [](std::string_view) {};
    gateway_ = std::make_unique<gateway::Gateway>(std::move(opt), built->router);
    ASSERT_TRUE(gateway_->start().ok());
  }
  void TearDown() override {
    if (gateway_) {
      gateway_->stop();
      gateway_->wait();
    }
    gateway_.reset();
    upstream_.stop();
  }
  bool completion() const { return GetParam(); }

  MockResponse answer(const MockRequest& r) {
    auto body = nlohmann::json::parse(r.body, nullptr, false);
    const bool stream = body.is_object() && body.value("stream", false);
    if (!stream) {
      nlohmann::json out =
          completion()
              ? nlohmann::json{{"id", "cmpl-1"},
                               {"object", "text_completion"},
                               {"model", "qwen"},
                               {"choices",
                                {{{"index", 0}, {"text", kHermes}, {"finish_reason", "stop"}}}},
                               {"usage", {{"prompt_tokens", 50}, {"completion_tokens", 20}}}}
              : nlohmann::json{{"id", "chatcmpl-1"},
                               {"object", "chat.completion"},
                               {"model", "qwen"},
                               {"choices",
                                {{{"index", 0},
                                  {"message", {{"role", "assistant"}, {"content", kHermes}}},
                                  {"finish_reason", "stop"}}}},
                               {"usage", {{"prompt_tokens", 50}, {"completion_tokens", 20}}}};
      return MockResponse::json(200, out.dump());
    }
    MockResponse s = MockResponse::sse_stream();
    for (const auto& p : pieces(kHermes, 5)) {
      nlohmann::json chunk =
          completion()
              ? nlohmann::json{{"id", "cmpl-1"},
                               {"object", "text_completion"},
                               {"model", "qwen"},
                               {"choices",
                                {{{"index", 0}, {"text", p}, {"finish_reason", nullptr}}}}}
              : nlohmann::json{
                    {"id", "chatcmpl-1"},
                    {"object", "chat.completion.chunk"},
                    {"model", "qwen"},
                    {"choices",
                     {{{"index", 0}, {"delta", {{"content", p}}}, {"finish_reason", nullptr}}}}};
      s.sse(chunk.dump());
    }
    nlohmann::json last =
        completion()
            ? nlohmann::json{{"id", "cmpl-1"},
                             {"object", "text_completion"},
                             {"model", "qwen"},
                             {"choices", {{{"index", 0}, {"text", ""}, {"finish_reason", "stop"}}}}}
            : nlohmann::json{{"id", "chatcmpl-1"},
                             {"object", "chat.completion.chunk"},
                             {"model", "qwen"},
                             {"choices",
                              {{{"index", 0},
                                {"delta", nlohmann::json::object()},
                                {"finish_reason", "stop"}}}}};
    s.sse(last.dump());
    s.sse("[DONE]");
    return s;
  }

  // What the upstream was sent: tools rendered into the prompt, no tools field.
  void expect_rendered_request() {
    auto reqs = upstream_.requests();
    ASSERT_EQ(reqs.size(), 1u);
    EXPECT_EQ(reqs[0].target, completion() ? "/v1/completions" : "/v1/chat/completions");
    auto body = nlohmann::json::parse(reqs[0].body);
    EXPECT_FALSE(body.contains("tools")) << reqs[0].body;
    EXPECT_FALSE(body.contains("tool_choice")) << reqs[0].body;
    EXPECT_EQ(body["model"], "qwen");
    std::string prompt;
    if (completion()) {
      prompt = body["prompt"];
      EXPECT_TRUE(prompt.starts_with("<|im_start|>system\nBe brief.")) << prompt;
      EXPECT_TRUE(prompt.ends_with("<|im_start|>assistant\n")) << prompt;
    } else {
      ASSERT_TRUE(body["messages"].is_array());
      for (const auto& m : body["messages"]) {
        EXPECT_NE(m["role"], "tool") << m.dump();
        EXPECT_FALSE(m.contains("tool_calls")) << m.dump();
        prompt += m["role"].get<std::string>() + ": " + m["content"].get<std::string>() + "\n";
      }
      EXPECT_EQ(body["messages"][0]["role"], "system");
    }
    EXPECT_NE(prompt.find("<tools>"), std::string::npos) << prompt;
    EXPECT_NE(prompt.find("\"name\":\"get_weather\""), std::string::npos) << prompt;
    // The earlier call and its result, as hermes writes them.
    EXPECT_NE(prompt.find("<tool_call>\n{\"name\": \"get_weather\", \"arguments\": "
                          "{\"city\":\"Oslo\"}}\n</tool_call>"),
              std::string::npos)
        << prompt;
    EXPECT_NE(prompt.find("<tool_response>\nrain, 9 C\n</tool_response>"), std::string::npos)
        << prompt;
  }

  MockHttpServer upstream_;
  transport::HttpClient client_;
  std::unique_ptr<gateway::Gateway> gateway_;
};

TEST_P(ToolFormat, WholeAnswerHasNativeToolCalls) {
  RawClient c(gateway_->port());
  ASSERT_TRUE(c.send(http_post("/v1/chat/completions", client_request(false))));
  auto r = c.read_response(Ms(10'000));
  ASSERT_TRUE(r.has_value());
  ASSERT_EQ(r->status, 200) << r->body;
  auto j = nlohmann::json::parse(r->body);
  const auto& choice = j["choices"][0];
  EXPECT_EQ(choice["finish_reason"], "tool_calls") << r->body;
  EXPECT_EQ(choice["message"]["content"], "Let me check.") << r->body;
  ASSERT_EQ(choice["message"]["tool_calls"].size(), 1u) << r->body;
  const auto& call = choice["message"]["tool_calls"][0];
  EXPECT_EQ(call["function"]["name"], "get_weather");
  EXPECT_EQ(nlohmann::json::parse(call["function"]["arguments"].get<std::string>()),
            nlohmann::json::parse(R"({"city":"Zürich","days":2})"));
  EXPECT_FALSE(call["id"].get<std::string>().empty());
  expect_rendered_request();
}

TEST_P(ToolFormat, StreamHasNativeToolCallDeltas) {
  RawClient c(gateway_->port());
  ASSERT_TRUE(c.send(http_post("/v1/chat/completions", client_request(true))));
  auto r = c.read_response(Ms(10'000));
  ASSERT_TRUE(r.has_value());
  ASSERT_EQ(r->status, 200) << r->body;
  std::string content, name, args, finish;
  int calls = 0;
  bool done = false;
  std::istringstream lines(r->body);
  for (std::string line; std::getline(lines, line);) {
    if (!line.starts_with("data: ")) continue;
    std::string data = line.substr(6);
    if (data == "[DONE]") {
      done = true;
      continue;
    }
    auto chunk = nlohmann::json::parse(data);
    EXPECT_FALSE(chunk.contains("error")) << data;
    if (!chunk.contains("choices") || chunk["choices"].empty()) continue;
    const auto& ch = chunk["choices"][0];
    const auto& delta = ch["delta"];
    if (delta.contains("content") && delta["content"].is_string()) content += delta["content"];
    if (delta.contains("tool_calls"))
      for (const auto& tc : delta["tool_calls"]) {
        if (tc.contains("id")) ++calls;
        if (tc.contains("function") && tc["function"].contains("name"))
          name += tc["function"]["name"];
        if (tc.contains("function") && tc["function"].contains("arguments"))
          args += tc["function"]["arguments"];
      }
    if (ch.contains("finish_reason") && ch["finish_reason"].is_string())
      finish = ch["finish_reason"];
    // No markup ever reaches the client's text.
    EXPECT_EQ(content.find("<tool"), std::string::npos) << content;
  }
  EXPECT_TRUE(done);
  EXPECT_EQ(content, "Let me check.");
  EXPECT_EQ(calls, 1);
  EXPECT_EQ(name, "get_weather");
  EXPECT_EQ(nlohmann::json::parse(args), nlohmann::json::parse(R"({"city":"Zürich","days":2})"));
  EXPECT_EQ(finish, "tool_calls");
  expect_rendered_request();
}

TEST_P(ToolFormat, AnthropicClientGetsToolUse) {
  nlohmann::json body = {
      {"model", "local"},
      {"max_tokens", 200},
      {"system", "Be brief."},
      {"tools",
       {{{"name", "get_weather"},
         {"description", "Weather for a city"},
         {"input_schema",
          {{"type", "object"},
           {"properties", {{"city", {{"type", "string"}}}, {"days", {{"type", "integer"}}}}},
           {"required", {"city"}}}}}}},
      {"messages",
       {{{"role", "user"}, {"content", "Weather in Oslo?"}},
        {{"role", "assistant"},
         {"content",
          {{{"type", "tool_use"},
            {"id", "call_1"},
            {"name", "get_weather"},
            {"input", {{"city", "Oslo"}}}}}}},
        {{"role", "user"},
         {"content",
          {{{"type", "tool_result"}, {"tool_use_id", "call_1"}, {"content", "rain, 9 C"}},
           {{"type", "text"}, {"text", "And Zürich?"}}}}}}}};
  RawClient c(gateway_->port());
  ASSERT_TRUE(c.send(http_post("/v1/messages", body.dump(), "anthropic-version: 2023-06-01\r\n")));
  auto r = c.read_response(Ms(10'000));
  ASSERT_TRUE(r.has_value());
  ASSERT_EQ(r->status, 200) << r->body;
  auto j = nlohmann::json::parse(r->body);
  EXPECT_EQ(j["stop_reason"], "tool_use") << r->body;
  ASSERT_EQ(j["content"].size(), 2u) << r->body;
  EXPECT_EQ(j["content"][0]["type"], "text");
  EXPECT_EQ(j["content"][0]["text"], "Let me check.");
  EXPECT_EQ(j["content"][1]["type"], "tool_use");
  EXPECT_EQ(j["content"][1]["name"], "get_weather");
  EXPECT_EQ(j["content"][1]["input"], nlohmann::json::parse(R"({"city":"Zürich","days":2})"));
  expect_rendered_request();
}

INSTANTIATE_TEST_SUITE_P(Endpoints, ToolFormat, ::testing::Bool(),
                         [](const auto& info) { return info.param ? "completions" : "chat"; });

TEST(ToolFormatConfig, FamilyNameIsValidated) {
  auto bad = gateway::load_config_string(
      "upstreams:\n  u:\n    profile: openai_compatible\n    base_url: http://127.0.0.1:1/v1\n"
      "    tool_format: hermez\nroutes:\n  - model: '*'\n    upstreams: [u]\n");
  ASSERT_FALSE(bad.ok());
  EXPECT_NE(bad.error().to_string().find("upstreams.u.tool_format"), std::string::npos)
      << bad.error().to_string();
  EXPECT_NE(bad.error().to_string().find("hermes"), std::string::npos) << bad.error().to_string();
  auto none = gateway::load_config_string(
      "upstreams:\n  u:\n    profile: openai_completions\n    base_url: http://127.0.0.1:1/v1\n"
      "routes:\n  - model: '*'\n    upstreams: [u]\n");
  ASSERT_FALSE(none.ok());
  EXPECT_NE(none.error().to_string().find("tool_format"), std::string::npos)
      << none.error().to_string();
  auto anthropic = gateway::load_config_string(
      "upstreams:\n  u:\n    profile: anthropic\n    tool_format: hermes\n"
      "routes:\n  - model: '*'\n    upstreams: [u]\n");
  EXPECT_FALSE(anthropic.ok());
  auto ok = gateway::load_config_string(
      "upstreams:\n  u:\n    profile: openai_compatible\n    base_url: http://127.0.0.1:1/v1\n"
      "    tool_format: qwen3_coder\nroutes:\n  - model: '*'\n    upstreams: [u]\n");
  ASSERT_TRUE(ok.ok()) << ok.error().to_string();
  EXPECT_EQ(ok->upstreams[0].tool_format, "qwen3_coder");
}

}  // namespace
}  // namespace toolwire::testing
