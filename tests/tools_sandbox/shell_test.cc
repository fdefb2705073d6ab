// shell: allow-list, argv without a shell, clean environment, timeouts,
// SIGTERM-ignoring processes, whole-group kills, output floods.
#include <csignal>
#include <cstdlib>
#include <fstream>
#include <thread>

#include "sandbox_fixture.h"

namespace {

using namespace twtest;
using namespace std::chrono_literals;

struct ShellTest : ::testing::Test {
  Tree tree;
  toolwire::tools::BuiltinOptions opt;
  void SetUp() override {
    opt.workspace = tree.ws.string();
    opt.enabled = {"shell"};
    opt.shell_allow = {"echo", "pwd", "env", "sleep", "sh", "yes", "cat", "/bin/true"};
    opt.kill_grace = 300ms;
    opt.shell_max_output = 64 * 1024;
  }
  toolwire::tools::ToolOutput run(const nlohmann::json& args) {
    return make_tools(opt).call("shell", args);
  }
};

// A pid that no longer runs: gone, or a zombie waiting for its new parent.
bool dead(long pid) {
  std::ifstream st("/proc/" + std::to_string(pid) + "/stat");
  if (!st) return true;
  std::string line;
  std::getline(st, line);
  auto close = line.rfind(')');
  return close != std::string::npos && close + 2 < line.size() && line[close + 2] == 'Z';
}

long first_number(const std::string& s) {
  auto p = s.find("--- stdout ---\n");
  return p == std::string::npos ? -1 : std::strtol(s.c_str() + p + 15, nullptr, 10);
}

TEST_F(ShellTest, RunsAllowedProgramWithArgv) {
  auto o = run({{"argv", {"echo", "hello", "$(id)", ";", "ls", "|", "*"}}});
  EXPECT_FALSE(o.is_error) << text(o);
  EXPECT_EQ(text(o), "exit code: 0\n--- stdout ---\nhello $(id) ; ls | *\n");
}

TEST_F(ShellTest, CwdIsTheWorkspace) {
  EXPECT_EQ(text(run({{"argv", {"pwd"}}})),
            "exit code: 0\n--- stdout ---\n" + tree.ws.string() + "\n");
}

TEST_F(ShellTest, EnvironmentIsNotInherited) {
  setenv("TOOLWIRE_FAKE_API_KEY", "sk-should-not-leak", 1);
  std::string t = text(run({{"argv", {"env"}}}));
  unsetenv("TOOLWIRE_FAKE_API_KEY");
  EXPECT_EQ(t.find("sk-should-not-leak"), std::string::npos) << t;
  EXPECT_NE(t.find("PATH=/usr/local/bin:/usr/bin:/bin"), std::string::npos) << t;
}

TEST_F(ShellTest, ProgramOutsideAllowListIsRefused) {
  for (const char* prog :
       {"rm", "bash", "/bin/rm", "./echo", "../../bin/sh", "/bin/echo", "true"}) {
    auto o = run({{"argv", {prog, "-rf", "/"}}});
    EXPECT_TRUE(o.is_error) << prog;
    EXPECT_NE(text(o).find("not in the shell allow-list"), std::string::npos)
        << prog << ": " << text(o);
  }
  EXPECT_FALSE(run({{"argv", {"/bin/true"}}}).is_error);  // listed as an absolute path
}

TEST_F(ShellTest, NonZeroExitIsAnErrorResult) {
  auto o = run({{"argv", {"sh", "-c", "echo oops >&2; exit 3"}}});
  EXPECT_TRUE(o.is_error);
  EXPECT_EQ(text(o), "exit code: 3\n--- stderr ---\noops\n");
}

TEST_F(ShellTest, TimeoutKillsTheProcess) {
  auto t0 = std::chrono::steady_clock::now();
  auto o = run({{"argv", {"sleep", "30"}}, {"timeout_ms", 300}});
  auto took = std::chrono::steady_clock::now() - t0;
  EXPECT_TRUE(o.is_error);
  EXPECT_NE(text(o).find("timed out after 300 ms"), std::string::npos) << text(o);
  EXPECT_LT(took, 5s);
}

TEST_F(ShellTest, SigtermIgnoringGroupIsSigkilledNoOrphan) {
  // The leader and its background child both ignore SIGTERM (inherited SIG_IGN).
  auto t0 = std::chrono::steady_clock::now();
  auto o =
      run({{"argv", {"sh", "-c", "trap '' TERM; sleep 60 & echo $!; while :; do sleep 1; done"}},
           {"timeout_ms", 400}});
  auto took = std::chrono::steady_clock::now() - t0;
  std::string t = text(o);
  EXPECT_TRUE(o.is_error);
  EXPECT_NE(t.find("SIGTERM ignored, SIGKILL sent"), std::string::npos) << t;
  EXPECT_LT(took, 5s);
  long child = first_number(t);
  ASSERT_GT(child, 1) << t;
  for (int i = 0; i < 50 && !dead(child); ++i) std::this_thread::sleep_for(20ms);
  EXPECT_TRUE(dead(child)) << "background child " << child << " survived";
}

TEST_F(ShellTest, BackgroundChildDoesNotOutliveTheCall) {
  auto o = run({{"argv", {"sh", "-c", "sleep 60 & echo $!"}}});
  long child = first_number(text(o));
  ASSERT_GT(child, 1) << text(o);
  for (int i = 0; i < 50 && !dead(child); ++i) std::this_thread::sleep_for(20ms);
  EXPECT_TRUE(dead(child));
}

TEST_F(ShellTest, OutputFloodIsCappedAndStopped) {
  auto t0 = std::chrono::steady_clock::now();
  auto o = run({{"argv", {"yes"}}});
  auto took = std::chrono::steady_clock::now() - t0;
  std::string t = text(o);
  EXPECT_TRUE(o.is_error);
  EXPECT_NE(t.find("output exceeded 65536 bytes"), std::string::npos) << t.substr(0, 200);
  EXPECT_NE(t.find("[stdout truncated at 65536 bytes]"), std::string::npos);
  EXPECT_LT(t.size(), 66000u);
  EXPECT_LT(took, 5s);
}

TEST_F(ShellTest, StderrFloodIsCapped) {
  auto o = run({{"argv", {"sh", "-c", "yes err >&2"}}});
  EXPECT_NE(text(o).find("[stderr truncated at 65536 bytes]"), std::string::npos);
}

TEST_F(ShellTest, CancellationStopsTheProcess) {
  toolwire::tools::ToolContext ctx;
  std::thread canceller([c = ctx.cancel] {
    std::this_thread::sleep_for(200ms);
    c.cancel();
  });
  auto t0 = std::chrono::steady_clock::now();
  auto o = make_tools(opt).call("shell", {{"argv", {"sleep", "30"}}}, ctx);
  canceller.join();
  EXPECT_TRUE(o.is_error);
  EXPECT_NE(text(o).find("cancelled"), std::string::npos) << text(o);
  EXPECT_LT(std::chrono::steady_clock::now() - t0, 5s);
}

TEST_F(ShellTest, CallDeadlineBoundsTheTimeout) {
  toolwire::tools::ToolContext ctx;
  ctx.deadline = std::chrono::steady_clock::now() + 300ms;
  auto o = make_tools(opt).call("shell", {{"argv", {"sleep", "30"}}, {"timeout_ms", 60000}}, ctx);
  EXPECT_TRUE(o.is_error);
  EXPECT_NE(text(o).find("timed out"), std::string::npos) << text(o);
}

TEST_F(ShellTest, StdinIsEmpty) {
  auto o = run({{"argv", {"cat"}}, {"timeout_ms", 2000}});
  EXPECT_EQ(text(o), "exit code: 0\n");
}

TEST_F(ShellTest, BadArgvShapes) {
  EXPECT_NE(text(run({{"argv", nlohmann::json::array()}})).find("$.argv"), std::string::npos);
  EXPECT_NE(text(run({{"argv", {"echo", 3}}})).find("$.argv[1]"), std::string::npos);
  EXPECT_NE(text(run({{"argv", "echo hi"}})).find("$.argv"), std::string::npos);
}

}  // namespace
