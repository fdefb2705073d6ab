// The exit-status table of docs/cli.md, row by row, on every subcommand:
// 0 ok, 1 runtime failure, 2 usage error, 130 chat interrupted while idle.
// Also `--version` and `toolwire NAME` for a NAME that is no command.
#include <gtest/gtest.h>

#include <filesystem>
#include <fstream>
#include <regex>
#include <string>

#include "subprocess.h"

namespace toolwire::testing {
namespace {

constexpr std::chrono::seconds kWait{30};

struct CliResult {
  int status = -1;
  std::string out, err;
};

CliResult run_cli(std::vector<std::string> args, const std::string& input = "") {
  args.insert(args.begin(), TOOLWIRE_BINARY);
  Subprocess p(args);
  CliResult r;
  if (!p.started()) return r;
  p.write_stdin(input);
  r.status = p.wait(kWait);
  r.out = p.out();
  r.err = p.err();
  return r;
}

std::string describe(const CliResult& r) { return "stdout: " + r.out + "\nstderr: " + r.err; }

class ExitCodes : public ::testing::Test {
 protected:
  void SetUp() override {
    dir_ = std::filesystem::path(::testing::TempDir()) / ("tw_exit_" + std::to_string(::getpid()));
    std::filesystem::remove_all(dir_);
    std::filesystem::create_directories(dir_);
    // Local connections must not go through a proxy from the environment.
    setenv("NO_PROXY", "127.0.0.1", 1);
    setenv("no_proxy", "127.0.0.1", 1);
  }
  void TearDown() override { std::filesystem::remove_all(dir_); }

  // `toolwire chat` with its to-do database in the test's folder.
  std::vector<std::string> chat(std::vector<std::string> args) const {
    args.insert(args.begin(), {"chat", "--data-dir", (dir_ / "data").string()});
    return args;
  }

  std::filesystem::path dir_;
};

// Row 0: success, --help and --version included.
TEST_F(ExitCodes, ZeroOnSuccessHelpAndVersion) {
  CliResult r = run_cli({"--version"});
  EXPECT_EQ(r.status, 0) << describe(r);
  // The version, then the allocator the build linked (TOOLWIRE_MALLOC).
  const std::string allocator = TOOLWIRE_EXPECTED_ALLOCATOR;
  const std::string head = "toolwire " TOOLWIRE_EXPECTED_VERSION " (allocator: ";
  EXPECT_EQ(r.out.rfind(head, 0), 0u) << describe(r);
  if (allocator == "mimalloc")
    EXPECT_TRUE(std::regex_match(
        r.out, std::regex(".*\\(allocator: mimalloc [0-9]+\\.[0-9]+\\.[0-9]+\\)\n")))
        << describe(r);
  else
    EXPECT_EQ(r.out, head + "system malloc)\n") << describe(r);

  for (const char* cmd : {"convert", "tools", "chat"}) {
    r = run_cli({cmd, "--help"});
    EXPECT_EQ(r.status, 0) << cmd << ": " << describe(r);
    EXPECT_NE(r.out.find(cmd), std::string::npos) << describe(r);
  }
  r = run_cli({"--help"});
  EXPECT_EQ(r.status, 0) << describe(r);

  r = run_cli({"convert", "--from", "openai", "--to", "anthropic"},
              R"({"model":"m","messages":[{"role":"user","content":"hi"}]})");
  EXPECT_EQ(r.status, 0) << describe(r);
  r = run_cli({"tools", "list"});
  EXPECT_EQ(r.status, 0) << describe(r);
  std::ofstream(dir_ / "a.txt") << "hello\n";
  r = run_cli({"tools", "call", "read", R"({"path":"a.txt"})", "--workspace", dir_.string()});
  EXPECT_EQ(r.status, 0) << describe(r);
  r = run_cli(chat({"--dir", dir_.string(), "--once", "show my to-do list"}));
  EXPECT_EQ(r.status, 0) << describe(r);
  r = run_cli(
      {"serve", "--check-config", std::string(TOOLWIRE_SOURCE_DIR) + "/examples/gateway.yaml"});
  EXPECT_EQ(r.status, 0) << describe(r);

  // serve runs until SIGTERM, then drains and exits 0.
  Subprocess serve({TOOLWIRE_BINARY, "serve", "--listen", "127.0.0.1:0", "--quiet", "--data-dir",
                    (dir_ / "data").string(), "--workspace", dir_.string()});
  ASSERT_TRUE(serve.started());
  ASSERT_TRUE(serve.read_until(
      [](const std::string& out) { return out.find("listening on") != std::string::npos; }, kWait))
      << serve.out() << serve.err();
  ::kill(serve.pid(), SIGTERM);
  EXPECT_EQ(serve.wait(kWait), 0) << serve.out() << serve.err();

  // --listen beside --config wins over the file's address (192.0.2.1, TEST-NET-1,
  // cannot be bound here).
  std::ofstream(dir_ / "gw.yaml") << "listen: 192.0.2.1:0\nupstreams: {s: {profile: scripted}}\n"
                                     "routes: [{model: '*', upstreams: [s]}]\n";
  Subprocess configured({TOOLWIRE_BINARY, "serve", "--config", (dir_ / "gw.yaml").string(),
                         "--listen", "127.0.0.1:0", "--quiet"});
  ASSERT_TRUE(configured.started());
  ASSERT_TRUE(configured.read_until(
      [](const std::string& out) {
        return out.find("listening on http://127.0.0.1:") != std::string::npos;
      },
      kWait))
      << configured.out() << configured.err();
  ::kill(configured.pid(), SIGTERM);
  EXPECT_EQ(configured.wait(kWait), 0) << configured.out() << configured.err();
}

// Row 1: the command line was fine, the work failed.
TEST_F(ExitCodes, OneOnRuntimeFailure) {
  CliResult r = run_cli({"convert", "--from", "openai", "--to", "anthropic"},
                        R"({"model":"m","messages":5})");
  EXPECT_EQ(r.status, 1) << describe(r);
  EXPECT_NE(r.err.find("$.messages"), std::string::npos) << describe(r);

  r = run_cli({"convert", "--from", "anthropic", "--to", "openai", "--kind", "stream"},
              "event: ping\n");
  EXPECT_EQ(r.status, 1) << describe(r);

  r = run_cli({"tools", "call", "read", R"({"path":"missing.txt"})", "--workspace", dir_.string()});
  EXPECT_EQ(r.status, 1) << describe(r);
  EXPECT_NE(r.out.find("\"is_error\": true"), std::string::npos) << describe(r);

  // Nothing listens on port 1: the turn fails (after the transport's retries).
  r = run_cli(chat({"--provider", "openai_compatible", "--base-url", "http://127.0.0.1:1/v1",
                    "--model", "m", "--once", "hi"}));
  EXPECT_EQ(r.status, 1) << describe(r);

  // The to-do database cannot be created under a regular file.
  std::ofstream(dir_ / "file") << "x";
  r = run_cli({"chat", "--data-dir", (dir_ / "file").string(), "--once", "show my to-do list"});
  EXPECT_EQ(r.status, 1) << describe(r);

  // A key variable that is named must be set, a base URL of one's own or not.
  r = run_cli({"serve", "--listen", "127.0.0.1:0", "--quiet", "--upstream",
               "anthropic=http://127.0.0.1:1", "--upstream-key-env", "TW_SURELY_UNSET_VAR"});
  EXPECT_EQ(r.status, 1) << describe(r);
  EXPECT_NE(r.err.find("TW_SURELY_UNSET_VAR is not set"), std::string::npos) << describe(r);

  // 192.0.2.1 (TEST-NET-1) is no address of this host: bind fails.
  r = run_cli({"serve", "--listen", "192.0.2.1:0", "--quiet", "--data-dir",
               (dir_ / "data").string(), "--workspace", dir_.string()});
  EXPECT_EQ(r.status, 1) << describe(r);
}

// Row 2: the command line was wrong. CLI11's own codes (105, 106, 109, ...)
// must not leak out.
TEST_F(ExitCodes, TwoOnUsageErrors) {
  struct Case {
    std::vector<std::string> args;
    std::string stderr_names;
  };
  const std::string data = (dir_ / "data").string();
  const Case cases[] = {
      {{"convert", "--to", "openai"}, "--from"},  // missing required flag
      {{"convert", "--from", "openai", "--to", "anthropic", "--bogus"}, "--bogus"},  // unknown flag
      {{"convert", "--from", "openai", "--to", "anthropic", "extra"}, "extra"},  // extra argument
      {{"convert", "--from", "openai", "--to", "anthropic", "--kind", "x"}, "--kind"},  // bad value
      {{"convert", "--from", "cohere", "--to", "openai"}, "cohere"},  // unknown dialect
      {{"tools"}, "subcommand"},                                      // missing subcommand
      {{"tools", "call"}, "name"},                                    // missing argument
      {{"tools", "call", "read", "--timeout-ms", "0"},
       "--timeout-ms: must be between 1 and 86400000"},
      {{"tools", "call", "read", "--timeout-ms", "abc"},
       "--timeout-ms: must be between 1 and 86400000"},
      {{"tools", "schema", "no_such_tool"}, "no_such_tool"},  // unknown tool
      {{"tools", "list", "--enable", "no_such_tool"}, "no_such_tool"},
      {{"chat", "--data-dir", data, "--max-rounds", "0"},
       "--max-rounds: must be between 1 and 1000"},
      {{"chat", "--data-dir", data, "--tool-timeout", "-1"},
       "--tool-timeout: must be between 1 and 86400"},
      {{"chat", "--data-dir", data, "--provider", "openai_compatible", "--model", "m", "--once",
        "hi"},
       "--base-url"},
      {{"chat", "--data-dir", data, "--provider", "openai_compatible", "--base-url",
        "http://127.0.0.1:1/v1", "--once", "hi"},
       "--model"},
      {{"chat", "--data-dir", data, "--provider", "openai", "--api-key-env", "TW_SURELY_UNSET_VAR",
        "--once", "hi"},
       "TW_SURELY_UNSET_VAR is not set"},
      {{"chat", "--data-dir", data, "--provider", "no_such_provider", "--once", "hi"},
       "no_such_provider"},
      {{"chat", "--data-dir", data, "--script", (dir_ / "missing.json").string(), "--once", "hi"},
       "missing.json"},
      {{"no_such_command"}, "unknown command no_such_command"},
      {{"serve", "--listen", "no-port", "--data-dir", data}, "--listen"},
      {{"serve", "--tools", "nobody"}, "--tools"},
      {{"serve", "--config", (dir_ / "missing.yaml").string()}, "missing.yaml"},
      {{"serve", "--upstream", "nope"}, "--upstream: unknown kind 'nope'"},
      {{"serve", "--upstream", "openai_compatible"}, "openai_compatible needs a base URL"},
      {{"chat", "--data-dir", data, "--tool-format", "hermes", "--once", "hi"},
       "a scripted model takes no tool_format"},
  };
  for (const Case& c : cases) {
    CliResult r = run_cli(c.args);
    std::string line;
    for (const auto& a : c.args) line += a + " ";
    EXPECT_EQ(r.status, 2) << line << "\n" << describe(r);
    EXPECT_NE(r.err.find(c.stderr_names), std::string::npos) << line << "\n" << describe(r);
    EXPECT_LT(r.err.size(), 400u) << line << "\n" << describe(r);  // short: no 300-digit range
  }
}

// `toolwire NAME --help` for a NAME that is no command names it; it does not
// print the top-level help and succeed.
TEST_F(ExitCodes, UnknownCommandWithHelpIsAUsageError) {
  for (std::vector<std::string> args :
       {std::vector<std::string>{"frobnicate", "--help"},
        std::vector<std::string>{"--help", "frobnicate"},
        std::vector<std::string>{"tools", "frobnicate", "--help"}}) {
    CliResult r = run_cli(args);
    EXPECT_EQ(r.status, 2) << args[0] << " " << args[1] << "\n" << describe(r);
    EXPECT_NE(r.err.find("unknown command frobnicate"), std::string::npos) << describe(r);
    EXPECT_TRUE(r.out.empty()) << describe(r);
  }
}

// Row 130: Ctrl-C while `toolwire chat` waits for the next line ends it.
TEST_F(ExitCodes, InterruptedChatWhileIdleExits130) {
  Subprocess p({TOOLWIRE_BINARY, "chat", "--data-dir", (dir_ / "data").string(), "--dir",
                dir_.string(), "--json"});
  ASSERT_TRUE(p.started());
  // A finished turn shows the handler is installed and the chat is idle.
  ASSERT_TRUE(p.write_stdin("show my to-do list\n"));
  ASSERT_TRUE(p.read_until(
      [](const std::string& out) { return out.find("\"final_answer\"") != std::string::npos; },
      kWait))
      << p.out() << p.err();
  // The turn's last event comes a moment before the chat counts as idle; a
  // signal in between only cancels the finished turn, so ask again until it
  // exits (each wait bounded, all of them together too).
  int status = -1;
  for (int i = 0; i < 100 && status < 0; ++i) {
    ::kill(p.pid(), SIGINT);
    status = p.wait(std::chrono::milliseconds(100), /*close_input=*/false);
  }
  EXPECT_EQ(status, 130) << p.out() << p.err();
}

}  // namespace
}  // namespace toolwire::testing
