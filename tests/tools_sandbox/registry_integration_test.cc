// The built-ins through the real Registry and Executor: every schema
// compiles, arguments are validated before a handler runs, errors keep call
// ids, and shell timeouts show up as error results.
#include "toolwire/tools/executor.h"
#include "toolwire/tools/registry.h"

#include "sandbox_fixture.h"

namespace {

using namespace twtest;
namespace tt = toolwire::tools;
using toolwire::ir::ToolCallPart;

std::string result_text(const toolwire::ir::ToolResultPart& r) {
  std::string s;
  for (const auto& c : r.content)
    if (auto* t = std::get_if<toolwire::ir::TextPart>(&c)) s += t->text;
  return s;
}

struct RegistryTest : ::testing::Test {
  Tree tree;
  tt::Registry reg;
  void SetUp() override {
    tt::BuiltinOptions opt;
    opt.workspace = tree.ws.string();
    opt.enabled = {"read", "write", "edit", "list", "glob", "grep", "shell", "fetch"};
    opt.shell_allow = {"sleep", "echo"};
    opt.kill_grace = std::chrono::milliseconds(200);
    auto st = tt::register_builtin_tools(reg, opt);
    ASSERT_TRUE(st.ok()) << st.error().to_string();
  }
};

TEST_F(RegistryTest, AllEightRegisterWithCompiledSchemas) {
  EXPECT_EQ(reg.names(), (std::vector<std::string>{"read", "write", "edit", "list", "glob", "grep",
                                                   "shell", "fetch"}));
  for (const auto& t : reg.tools()) {
    EXPECT_FALSE(t->description().empty()) << t->name();
    EXPECT_EQ(t->schema()["type"], "object") << t->name();
    EXPECT_EQ(t->schema()["additionalProperties"], false) << t->name();
  }
  EXPECT_TRUE(reg.find("write")->exclusive());
  EXPECT_TRUE(reg.find("shell")->exclusive());
  EXPECT_FALSE(reg.find("read")->exclusive());
}

TEST_F(RegistryTest, DispatchReadAndTraversal) {
  auto r = reg.dispatch(ToolCallPart{"c1", "read", R"({"path":"hello.txt","limit":1})"});
  EXPECT_FALSE(r.is_error) << result_text(r);
  EXPECT_EQ(r.call_id, "c1");
  EXPECT_NE(result_text(r).find("line one"), std::string::npos);
  r = reg.dispatch(ToolCallPart{"c2", "read", R"({"path":"../outside/secret.txt"})"});
  EXPECT_TRUE(r.is_error);
  EXPECT_EQ(r.call_id, "c2");
  EXPECT_NE(result_text(r).find("escapes the workspace"), std::string::npos) << result_text(r);
}

TEST_F(RegistryTest, SchemaViolationsNeverReachTheHandler) {
  auto r = reg.dispatch(ToolCallPart{"c3", "read", R"({"path":"hello.txt","offset":0})"});
  EXPECT_TRUE(r.is_error);
  EXPECT_NE(result_text(r).find("/offset"), std::string::npos) << result_text(r);
  r = reg.dispatch(ToolCallPart{"c4", "shell", R"({"argv":"rm -rf /"})"});
  EXPECT_TRUE(r.is_error);
  EXPECT_NE(result_text(r).find("/argv"), std::string::npos) << result_text(r);
  r = reg.dispatch(ToolCallPart{"c5", "write", R"({"path":"x","content":"y","mode":"0777"})"});
  EXPECT_TRUE(r.is_error);
  EXPECT_FALSE(fs::exists(tree.ws / "x"));
}

TEST_F(RegistryTest, ExecutorRunsABatchInOrder) {
  tt::Executor ex(reg, {.max_concurrency = 4});
  std::vector<ToolCallPart> calls = {
      {"a", "write", R"({"path":"n.txt","content":"one\n"})"},
      {"b", "grep", R"({"pattern":"INSIDE"})"},
      {"c", "shell", R"({"argv":["echo","hi"]})"},
      {"d", "shell", R"({"argv":["rm","-rf","."]})"},
      {"e", "list", R"({})"},
  };
  auto res = ex.run(calls);
  ASSERT_EQ(res.size(), 5u);
  for (size_t i = 0; i < res.size(); ++i) EXPECT_EQ(res[i].call_id, calls[i].id);
  EXPECT_FALSE(res[0].is_error) << result_text(res[0]);
  EXPECT_EQ(result_text(res[1]), "sub/inner.txt:1:INSIDE\n");
  EXPECT_EQ(result_text(res[2]), "exit code: 0\n--- stdout ---\nhi\n");
  EXPECT_TRUE(res[3].is_error);
  EXPECT_NE(result_text(res[3]).find("not in the shell allow-list"), std::string::npos);
  EXPECT_TRUE(fs::exists(tree.ws / "hello.txt"));
}

TEST_F(RegistryTest, ExecutorTimeoutEndsTheShellProcess) {
  tt::Executor ex(reg, {.max_concurrency = 2, .default_timeout = std::chrono::milliseconds(300)});
  auto t0 = std::chrono::steady_clock::now();
  auto r = ex.run_one(ToolCallPart{"t", "shell", R"({"argv":["sleep","30"]})"});
  EXPECT_TRUE(r.is_error);
  EXPECT_LT(std::chrono::steady_clock::now() - t0, std::chrono::seconds(5));
}

}  // namespace
