// `toolwire chat --once ... --json` end to end: the real binary against a
// mock upstream of each dialect, two tool rounds (add_todo, then list_todos)
// and a final answer; then the offline demo sees the row the first run added.
#include <gtest/gtest.h>

#include <cstdio>
#include <filesystem>
#include <mutex>
#include <nlohmann/json.hpp>

#include "mock_upstream.h"

namespace toolwire::testing {
namespace {

constexpr const char* kKey = "sk-chat-test-KEY-987654";

struct CommandResult {
  int status = -1;
  std::string output;
};

CommandResult run_command(const std::string& cmd) {
  CommandResult r;
  FILE* f = popen(cmd.c_str(), "r");
  if (!f) return r;
  char buf[4096];
  size_t n;
  while ((n = fread(buf, 1, sizeof buf, f)) > 0) r.output.append(buf, n);
  int st = pclose(f);
  r.status = WIFEXITED(st) ? WEXITSTATUS(st) : -1;
  return r;
}

std::string quote(const std::string& s) {
  std::string out = "'";
  for (char c : s) out += c == '\'' ? std::string("'\\''") : std::string(1, c);
  return out + "'";
}

std::vector<nlohmann::json> json_lines(const std::string& text) {
  std::vector<nlohmann::json> out;
  size_t start = 0;
  while (start < text.size()) {
    size_t end = text.find('\n', start);
    if (end == std::string::npos) end = text.size();
    std::string line = text.substr(start, end - start);
    if (!line.empty()) out.push_back(nlohmann::json::parse(line, nullptr, false));
    start = end + 1;
  }
  return out;
}

// The model: add the item, then list, then answer with what the list said.
MockResponse model_turn(const Upstream& up, const MockRequest& req) {
  ir::Request r = up.decode(req);
  if (r.messages.empty()) return MockResponse::json(400, R"({"error":{"message":"no messages"}})");
  const ir::Message& last = r.messages.back();
  auto call = [&](const char* id, const char* name, const char* args) {
    return up.stream({ir::MessageStart{"msg", "mock-1", 1700000000}, ir::ToolCallStart{0, id, name},
                      ir::ToolCallDelta{0, args}, ir::ToolCallEnd{0},
                      ir::UsageEvent{ir::Usage{50, 10, {}, {}}},
                      ir::Finish{ir::FinishReason{ir::FinishReason::Kind::tool_calls, ""}}});
  };
  if (last.role == ir::Role::user) return call("call_add_1", "add_todo", R"({"text":"buy milk"})");
  std::string results;
  for (const auto& m : r.messages)
    for (const auto& p : m.parts)
      if (auto* tr = std::get_if<ir::ToolResultPart>(&p))
        for (const auto& c : tr->content)
          if (auto* t = std::get_if<ir::TextPart>(&c)) results += t->text + "\n";
  // Two tool results so far means both rounds happened.
  size_t n = 0;
  for (size_t pos = 0; (pos = results.find('\n', pos)) != std::string::npos; ++pos) ++n;
  if (n < 2) return call("call_list_2", "list_todos", "{}");
  return up.stream({ir::MessageStart{"msg", "mock-1", 1700000000}, ir::TextDelta{"Your list now: "},
                    ir::TextDelta{results.substr(results.find('\n') + 1)},
                    ir::UsageEvent{ir::Usage{80, 9, {}, {}}},
                    ir::Finish{ir::FinishReason{ir::FinishReason::Kind::stop, ""}}});
}

struct ChatDialect {
  const char* provider;
  const char* codec;
  const char* base_path;
};

class ChatCli : public ::testing::TestWithParam<ChatDialect> {
 protected:
  void SetUp() override {
    dir_ = std::filesystem::temp_directory_path() /
           ("tw_chat_" + std::string(GetParam().provider) + "_" + std::to_string(::getpid()));
    std::filesystem::remove_all(dir_);
    std::filesystem::create_directories(dir_);
  }
  void TearDown() override { std::filesystem::remove_all(dir_); }

  std::string base_cmd() const {
    return "NO_PROXY=127.0.0.1 no_proxy=127.0.0.1 " + std::string(TOOLWIRE_BINARY) +
           " chat --data-dir " + quote(dir_.string()) + " --dir " + quote(dir_.string());
  }

  std::filesystem::path dir_;
};

TEST_P(ChatCli, OnceJsonTwoToolRoundsAgainstMockUpstream) {
  Upstream up(GetParam().codec);
  MockHttpServer server([&](const MockRequest& req) { return model_turn(up, req); });
  std::string cmd = "TW_CHAT_TEST_KEY=" + std::string(kKey) + " " + base_cmd() + " --provider " +
                    GetParam().provider + " --base-url " + server.url(GetParam().base_path) +
                    " --api-key-env TW_CHAT_TEST_KEY --model mock-1 --json --once " +
                    quote("add 'buy milk' to my to-do list") + " 2>&1";
  CommandResult r = run_command(cmd);
  ASSERT_EQ(r.status, 0) << r.output;
  EXPECT_EQ(r.output.find(kKey), std::string::npos) << "the key leaked:\n" << r.output;
  auto events = json_lines(r.output);
  std::vector<std::string> sequence;
  std::string final_text;
  for (const auto& e : events) {
    ASSERT_FALSE(e.is_discarded()) << r.output;
    std::string type = e["type"];
    if (type == "tool_call") sequence.push_back("call:" + e["name"].get<std::string>());
    if (type == "tool_result") {
      sequence.push_back("result:" + e["name"].get<std::string>());
      EXPECT_FALSE(e["is_error"].get<bool>()) << e.dump();
    }
    if (type == "round_finished") {
      sequence.push_back("round");
      // The upstream's own counts: not marked as estimates.
      EXPECT_FALSE(e["usage"].contains("estimated")) << e.dump();
      EXPECT_TRUE(e["usage"].contains("input_tokens")) << e.dump();
    }
    if (type == "final_answer") {
      EXPECT_EQ(e["stop"], "final_text");
      EXPECT_EQ(e["rounds"], 3);
      final_text = e["text"];
    }
  }
  EXPECT_EQ(sequence,
            (std::vector<std::string>{"call:add_todo", "result:add_todo", "round",
                                      "call:list_todos", "result:list_todos", "round", "round"}))
      << r.output;
  EXPECT_NE(final_text.find("#1 [ ] buy milk"), std::string::npos) << r.output;
  ASSERT_EQ(server.request_count(), 3u);
  auto auth = std::string(GetParam().codec) == "anthropic_messages"
                  ? server.requests()[0].header("x-api-key")
                  : server.requests()[0].header("authorization");
  ASSERT_TRUE(auth.has_value());
  EXPECT_NE(auth->find(kKey), std::string::npos);

  // The row is in SQLite: the offline demo (no flags) lists it in the next run.
  CommandResult next = run_command(base_cmd() + " --once " + quote("show my to-do list") + " 2>&1");
  ASSERT_EQ(next.status, 0) << next.output;
  EXPECT_NE(next.output.find("#1 [ ] buy milk"), std::string::npos) << next.output;
}

TEST_P(ChatCli, WriteIsRefusedWithoutATerminalUnlessYes) {
  Upstream up(GetParam().codec);
  MockHttpServer server([&](const MockRequest& req) {
    ir::Request r = up.decode(req);
    if (!r.messages.empty() && r.messages.back().role == ir::Role::user)
      return up.stream(
          {ir::MessageStart{"msg", "mock-1", 0}, ir::ToolCallStart{0, "call_w", "write"},
           ir::ToolCallDelta{0, R"({"path":"note.txt","content":"hi"})"}, ir::ToolCallEnd{0},
           ir::Finish{ir::FinishReason{ir::FinishReason::Kind::tool_calls, ""}}});
    return up.stream({ir::MessageStart{"msg", "mock-1", 0}, ir::TextDelta{"ok"},
                      ir::Finish{ir::FinishReason{ir::FinishReason::Kind::stop, ""}}});
  });
  std::string cmd = "TW_CHAT_TEST_KEY=" + std::string(kKey) + " " + base_cmd() + " --provider " +
                    GetParam().provider + " --base-url " + server.url(GetParam().base_path) +
                    " --api-key-env TW_CHAT_TEST_KEY --model mock-1 --json --once " +
                    quote("write a note") + " < /dev/null 2>&1";
  CommandResult denied = run_command(cmd);
  ASSERT_EQ(denied.status, 0) << denied.output;
  EXPECT_NE(denied.output.find("did not allow write"), std::string::npos) << denied.output;
  EXPECT_FALSE(std::filesystem::exists(dir_ / "note.txt"));
  CommandResult yes = run_command("TW_CHAT_TEST_KEY=" + std::string(kKey) + " " + base_cmd() +
                                  " --yes --provider " + GetParam().provider + " --base-url " +
                                  server.url(GetParam().base_path) +
                                  " --api-key-env TW_CHAT_TEST_KEY --model mock-1 --json --once " +
                                  quote("write a note") + " < /dev/null 2>&1");
  ASSERT_EQ(yes.status, 0) << yes.output;
  EXPECT_TRUE(std::filesystem::exists(dir_ / "note.txt")) << yes.output;
}

INSTANTIATE_TEST_SUITE_P(Dialects, ChatCli,
                         ::testing::Values(ChatDialect{"openai_compatible", "openai_chat", "/v1"},
                                           ChatDialect{"anthropic", "anthropic_messages", ""}),
                         [](const auto& info) { return std::string(info.param.provider); });

TEST(ChatCliOffline, DemoAddsAndListsWithoutNetwork) {
  auto dir =
      std::filesystem::temp_directory_path() / ("tw_chat_offline_" + std::to_string(::getpid()));
  std::filesystem::remove_all(dir);
  std::filesystem::create_directories(dir);
  std::string base = std::string(TOOLWIRE_BINARY) + " chat --data-dir " + quote(dir.string()) +
                     " --dir " + quote(std::string(TOOLWIRE_SOURCE_DIR) + "/profiles");
  CommandResult add =
      run_command(base + " --once " + quote("add 'water the plants' to my todo list") + " 2>&1");
  ASSERT_EQ(add.status, 0) << add.output;
  EXPECT_NE(add.output.find("→ add_todo"), std::string::npos) << add.output;
  EXPECT_NE(add.output.find("#1 [ ] water the plants"), std::string::npos) << add.output;
  CommandResult files =
      run_command(base + " --once " + quote("list the files here") + " --json 2>&1");
  ASSERT_EQ(files.status, 0) << files.output;
  EXPECT_NE(files.output.find("openai.json"), std::string::npos) << files.output;
  CommandResult done = run_command(base + " --once " + quote("complete 1") + " 2>&1");
  EXPECT_NE(done.output.find("Completed #1: water the plants"), std::string::npos) << done.output;
  std::filesystem::remove_all(dir);
}

// The scripted model counts characters / 4; --json says these are estimates.
TEST(ChatCliOffline, ScriptedUsageIsMarkedEstimated) {
  auto dir =
      std::filesystem::temp_directory_path() / ("tw_chat_usage_" + std::to_string(::getpid()));
  std::filesystem::remove_all(dir);
  std::filesystem::create_directories(dir);
  CommandResult r = run_command(std::string(TOOLWIRE_BINARY) + " chat --data-dir " +
                                quote(dir.string()) + " --dir " + quote(dir.string()) +
                                " --json --once " + quote("show my to-do list") + " 2>&1");
  ASSERT_EQ(r.status, 0) << r.output;
  int rounds = 0;
  for (const auto& e : json_lines(r.output)) {
    ASSERT_FALSE(e.is_discarded()) << r.output;
    if (e["type"] != "round_finished") continue;
    ++rounds;
    EXPECT_GT(e["usage"].value("input_tokens", 0), 0) << e.dump();
    EXPECT_EQ(e["usage"].value("estimated", false), true) << e.dump();
  }
  EXPECT_GT(rounds, 0) << r.output;
  std::filesystem::remove_all(dir);
}

TEST(ChatCliOffline, BadProviderConfigFailsClearly) {
  CommandResult r = run_command(
      std::string(TOOLWIRE_BINARY) +
      " chat --provider openai --api-key-env TW_SURELY_UNSET_VAR --data-dir /tmp/tw_unused_" +
      std::to_string(::getpid()) + " --once hi 2>&1");
  EXPECT_EQ(r.status, 2) << r.output;
  EXPECT_NE(r.output.find("TW_SURELY_UNSET_VAR is not set"), std::string::npos) << r.output;
  std::filesystem::remove_all("/tmp/tw_unused_" + std::to_string(::getpid()));
}

}  // namespace
}  // namespace toolwire::testing
