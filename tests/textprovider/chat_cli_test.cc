// `toolwire chat --tool-format hermes` against a raw completion endpoint on
// 127.0.0.1 (the real binary): the model answers in hermes text, the agent
// runs the parsed call (the demo's add_todo) and the next prompt carries the
// call and its result in hermes markup.
#include <sys/wait.h>
#include <unistd.h>

#include <cstdio>
#include <filesystem>
#include <mutex>
#include <sstream>

#include <gtest/gtest.h>
#include <nlohmann/json.hpp>

#include "mock_http_server.h"

namespace toolwire::testing {
namespace {

std::string run(const std::string& cmd, int& status) {
  std::string out;
  FILE* f = popen(cmd.c_str(), "r");
  if (!f) return out;
  char buf[4096];
  size_t n;
  while ((n = fread(buf, 1, sizeof buf, f)) > 0) out.append(buf, n);
  int st = pclose(f);
  status = WIFEXITED(st) ? WEXITSTATUS(st) : -1;
  return out;
}

// The answer streamed as the endpoint streams: `choices[0].text` chunks, then [DONE].
MockResponse completion(const std::string& text) {
  MockResponse r = MockResponse::sse_stream();
  for (size_t i = 0; i < text.size(); i += 7) {
    nlohmann::json j = {
        {"id", "cmpl-1"},
        {"model", "m"},
        {"choices", {{{"index", 0}, {"text", text.substr(i, 7)}, {"finish_reason", nullptr}}}}};
    r.sse(j.dump());
  }
  nlohmann::json last = {{"id", "cmpl-1"},
                         {"model", "m"},
                         {"choices", {{{"index", 0}, {"text", ""}, {"finish_reason", "stop"}}}},
                         {"usage", {{"prompt_tokens", 10}, {"completion_tokens", 5}}}};
  r.sse(last.dump());
  r.sse("[DONE]");
  return r;
}

TEST(ChatToolFormat, CompletionEndpointRunsParsedCalls) {
  std::vector<std::string> prompts;
  std::mutex mu;
  MockHttpServer server([&](const MockRequest& req) {
    auto body = nlohmann::json::parse(req.body, nullptr, false);
    if (!body.is_object() || !body.contains("prompt"))
      return MockResponse::json(400, R"({"error":{"message":"no prompt"}})");
    EXPECT_TRUE(body.value("stream", false));
    std::string prompt = body["prompt"];
    std::lock_guard<std::mutex> lock(mu);
    prompts.push_back(prompt);
    if (prompt.find("<tool_response>") == std::string::npos)
      return completion(
          "I'll add it.\n<tool_call>\n{\"name\": \"add_todo\", \"arguments\": {\"text\": \"buy "
          "milk\"}}\n</tool_call>");
    return completion("Added: buy milk.");
  });
  auto dir = std::filesystem::temp_directory_path() / ("tw_tf_chat_" + std::to_string(::getpid()));
  std::filesystem::remove_all(dir);
  std::filesystem::create_directories(dir);
  std::string cmd = "NO_PROXY=127.0.0.1 no_proxy=127.0.0.1 " + std::string(TOOLWIRE_BINARY) +
                    " chat --data-dir " + dir.string() + " --dir " + dir.string() +
                    " --provider openai_completions --base-url " + server.url("/v1") +
                    " --model m --tool-format hermes --json --once 'add buy milk' 2>&1";
  int status = -1;
  std::string out = run(cmd, status);
  std::filesystem::remove_all(dir);
  ASSERT_EQ(status, 0) << out;
  std::vector<std::string> seq;
  std::string final_text;
  std::istringstream lines(out);
  for (std::string line; std::getline(lines, line);) {
    auto e = nlohmann::json::parse(line, nullptr, false);
    if (!e.is_object() || !e.contains("type")) continue;
    if (e["type"] == "tool_call") seq.push_back("call:" + e["name"].get<std::string>());
    if (e["type"] == "tool_result") {
      seq.push_back("result:" + e["name"].get<std::string>());
      EXPECT_FALSE(e["is_error"].get<bool>()) << e.dump();
    }
    if (e["type"] == "final_answer") final_text = e["text"];
  }
  EXPECT_EQ(seq, (std::vector<std::string>{"call:add_todo", "result:add_todo"})) << out;
  EXPECT_EQ(final_text, "Added: buy milk.") << out;
  std::lock_guard<std::mutex> lock(mu);
  ASSERT_EQ(prompts.size(), 2u) << out;
  // The tools in the first prompt (ChatML system message), the call and its
  // result in the second.
  EXPECT_TRUE(prompts[0].starts_with("<|im_start|>system\n")) << prompts[0];
  EXPECT_NE(prompts[0].find("\"name\":\"add_todo\""), std::string::npos) << prompts[0];
  EXPECT_NE(prompts[1].find("<tool_call>\n{\"name\": \"add_todo\", \"arguments\": "
                            "{\"text\":\"buy milk\"}}\n</tool_call>"),
            std::string::npos)
      << prompts[1];
  EXPECT_NE(prompts[1].find("<tool_response>\n"), std::string::npos) << prompts[1];
}

// DeepSeek-R1's generation prompt opens `<think>`: the model's output starts
// inside its reasoning, so the text before `</think>` is reasoning, not the
// answer.
TEST(ChatToolFormat, ReasoningOpenedByThePromptIsNotTheAnswer) {
  std::string prompt;
  std::mutex mu;
  MockHttpServer server([&](const MockRequest& req) {
    auto body = nlohmann::json::parse(req.body, nullptr, false);
    std::lock_guard<std::mutex> lock(mu);
    prompt = body.value("prompt", "");
    return completion("The user greets me.</think>\n\nHello there.");
  });
  auto dir = std::filesystem::temp_directory_path() / ("tw_r1_chat_" + std::to_string(::getpid()));
  std::filesystem::remove_all(dir);
  std::filesystem::create_directories(dir);
  std::string cmd = "NO_PROXY=127.0.0.1 no_proxy=127.0.0.1 " + std::string(TOOLWIRE_BINARY) +
                    " chat --data-dir " + dir.string() + " --dir " + dir.string() +
                    " --provider openai_completions --base-url " + server.url("/v1") +
                    " --model m --tool-format deepseek_r1 --json --once 'hi' 2>&1";
  int status = -1;
  std::string out = run(cmd, status);
  std::filesystem::remove_all(dir);
  ASSERT_EQ(status, 0) << out;
  std::string final_text;
  std::istringstream lines(out);
  for (std::string line; std::getline(lines, line);) {
    auto e = nlohmann::json::parse(line, nullptr, false);
    if (e.is_object() && e.value("type", "") == "final_answer") final_text = e["text"];
  }
  EXPECT_EQ(final_text, "Hello there.") << out;
  std::lock_guard<std::mutex> lock(mu);
  EXPECT_TRUE(prompt.ends_with("<think>\n")) << prompt;
}

}  // namespace
}  // namespace toolwire::testing
