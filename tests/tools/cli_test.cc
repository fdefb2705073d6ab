// `toolwire tools` end to end: the real binary, a temporary workspace.
#include <gtest/gtest.h>

#include <array>
#include <cstdio>
#include <filesystem>
#include <fstream>
#include <string>

#include <sys/wait.h>
#include <nlohmann/json.hpp>

namespace fs = std::filesystem;
using nlohmann::json;

namespace {

struct CliRun {
  int code;
  std::string out;
};

CliRun run(const std::string& args) {
  std::string cmd = std::string(TOOLWIRE_BINARY) + " " + args + " 2>/dev/null";
  FILE* p = popen(cmd.c_str(), "r");
  CliRun r{-1, {}};
  if (!p) return r;
  std::array<char, 4096> buf;
  size_t n;
  while ((n = fread(buf.data(), 1, buf.size(), p)) > 0) r.out.append(buf.data(), n);
  int st = pclose(p);
  r.code = WIFEXITED(st) ? WEXITSTATUS(st) : -1;
  return r;
}

class ToolsCli : public ::testing::Test {
 protected:
  void SetUp() override {
    dir_ = fs::temp_directory_path() / ("toolwire_cli_" + std::to_string(::getpid()));
    fs::create_directories(dir_);
    std::ofstream(dir_ / "hello.txt") << "line one\nline two\n";
  }
  void TearDown() override { fs::remove_all(dir_); }
  std::string ws() const { return " --workspace '" + dir_.string() + "'"; }
  fs::path dir_;
};

}  // namespace

TEST_F(ToolsCli, ListShowsDefaultToolsButNotShell) {
  CliRun r = run("tools list" + ws());
  ASSERT_EQ(r.code, 0) << r.out;
  json j = json::parse(r.out);
  ASSERT_TRUE(j.is_array());
  std::vector<std::string> names;
  for (const auto& t : j) names.push_back(t["name"]);
  EXPECT_NE(std::find(names.begin(), names.end(), "read"), names.end());
  EXPECT_EQ(std::find(names.begin(), names.end(), "shell"), names.end());
  CliRun with_shell = run("tools list --enable shell --shell-allow echo" + ws());
  ASSERT_EQ(with_shell.code, 0);
  EXPECT_NE(with_shell.out.find("\"shell\""), std::string::npos);
}

TEST_F(ToolsCli, SchemaInEachDialect) {
  CliRun o = run("tools schema read --dialect openai" + ws());
  ASSERT_EQ(o.code, 0) << o.out;
  json jo = json::parse(o.out);
  EXPECT_EQ(jo["type"], "function");
  EXPECT_EQ(jo["function"]["name"], "read");
  CliRun a = run("tools schema read --dialect anthropic" + ws());
  ASSERT_EQ(a.code, 0);
  EXPECT_TRUE(json::parse(a.out).contains("input_schema"));
  CliRun g = run("tools schema read --dialect gemini" + ws());
  ASSERT_EQ(g.code, 0);
  json jg = json::parse(g.out);
  EXPECT_TRUE(jg.contains("parameters"));
  EXPECT_EQ(g.out.find("additionalProperties"), std::string::npos);
  CliRun b = run("tools schema read --dialect bedrock" + ws());
  ASSERT_EQ(b.code, 0);
  EXPECT_EQ(json::parse(b.out)["toolSpec"]["name"], "read");
  EXPECT_NE(run("tools schema read --dialect cohere" + ws()).code, 0);  // CLI11 validation error
  EXPECT_EQ(run("tools schema nope --dialect openai" + ws()).code, 2);
}

TEST_F(ToolsCli, CallPrintsResultJson) {
  CliRun r = run("tools call read '{\"path\":\"hello.txt\"}'" + ws());
  ASSERT_EQ(r.code, 0) << r.out;
  json j = json::parse(r.out);
  EXPECT_EQ(j["is_error"], false);
  EXPECT_EQ(j["call_id"], "cli_call");
  EXPECT_NE(j["content"][0]["text"].get<std::string>().find("line two"), std::string::npos)
      << r.out;

  CliRun bad = run("tools call read '{\"nope\":1}'" + ws());
  EXPECT_EQ(bad.code, 1);
  EXPECT_EQ(json::parse(bad.out)["is_error"], true);

  CliRun escape = run("tools call read '{\"path\":\"../../etc/passwd\"}'" + ws());
  EXPECT_EQ(escape.code, 1);
  EXPECT_EQ(escape.out.find("root:"), std::string::npos);

  CliRun unknown = run("tools call shell '{\"command\":\"echo hi\"}'" + ws());
  EXPECT_EQ(unknown.code, 1);
  EXPECT_NE(unknown.out.find("available tools"), std::string::npos) << unknown.out;
}
