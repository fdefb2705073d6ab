// Table-driven sandbox attack suite. Every row sets up a trap around the
// workspace, calls one built-in tool with a model-style argument and checks
// the outcome; for every row the outside file is never shown and the outside
// directory is unchanged. The table runs under both resolvers (openat2 and
// the openat(O_NOFOLLOW) walk). docs/security.md lists these rows.
#include <fcntl.h>
#include <sys/socket.h>
#include <sys/stat.h>
#include <sys/sysmacros.h>
#include <sys/un.h>
#include <unistd.h>
#include <future>

#include "sandbox_fixture.h"

namespace {

using namespace twtest;
using toolwire::tools::Resolver;

enum class Expect { ok, denied, invalid, not_found, too_big };

struct Attack {
  const char* name;
  const char* tool;
  std::function<nlohmann::json(const Tree&)> args;
  std::function<bool(const Tree&)> setup;  // false: cannot set up here (skip)
  Expect expect;
  const char* message;  // substring of the output
};

bool nothing(const Tree&) { return true; }
nlohmann::json path(const std::string& p) { return {{"path", p}}; }
bool sym(const Tree& t, const char* target, const char* name) {
  return symlink(target, (t.ws / name).c_str()) == 0;
}

const std::vector<Attack>& attacks() {
  static const std::vector<Attack> rows = {
      // --- traversal -------------------------------------------------------
      {"traversal_dotdot", "read", [](const Tree&) { return path("../outside/secret.txt"); },
       nothing, Expect::denied, "escapes the workspace"},
      {"traversal_deep_etc_passwd", "read",
       [](const Tree&) { return path("../../../../../../../../etc/passwd"); }, nothing,
       Expect::denied, "escapes the workspace"},
      {"traversal_after_descent", "read",
       [](const Tree&) { return path("sub/../../outside/secret.txt"); }, nothing, Expect::denied,
       "escapes the workspace"},
      {"traversal_dot_slash_mix", "read",
       [](const Tree&) { return path("./sub/./../.././outside/secret.txt"); }, nothing,
       Expect::denied, "escapes the workspace"},
      {"traversal_percent_encoded", "read",
       [](const Tree&) { return path("..%2f..%2foutside%2fsecret.txt"); }, nothing,
       Expect::not_found, "no such file"},
      {"traversal_double_encoded", "read",
       [](const Tree&) { return path("%252e%252e%252foutside%252fsecret.txt"); }, nothing,
       Expect::not_found, "no such file"},
      {"traversal_backslashes", "read", [](const Tree&) { return path("..\\outside\\secret.txt"); },
       nothing, Expect::not_found, "no such file"},
      {"traversal_four_dots", "read",
       [](const Tree&) { return path("....//....//outside/secret.txt"); }, nothing,
       Expect::not_found, "no such file"},
      {"traversal_fullwidth_dots", "read",
       [](const Tree&) { return path("\xEF\xBC\x8E\xEF\xBC\x8E/outside/secret.txt"); }, nothing,
       Expect::not_found, "no such file"},
      {"traversal_overlong_utf8_dots", "read",
       [](const Tree&) { return path("\xC0\xAE\xC0\xAE/outside/secret.txt"); }, nothing,
       Expect::not_found, "no such file"},
      {"nul_byte_truncation", "read",
       [](const Tree&) { return path(std::string("hello.txt\0/../../etc/passwd", 27)); }, nothing,
       Expect::invalid, "NUL byte"},
      {"empty_path", "read", [](const Tree&) { return path(""); }, nothing, Expect::invalid,
       "path is empty"},
      {"write_traversal", "write",
       [](const Tree&) {
         return nlohmann::json{{"path", "../outside/new.txt"}, {"content", "x"}};
       },
       nothing, Expect::denied, "escapes the workspace"},
      {"list_parent", "list", [](const Tree&) { return path(".."); }, nothing, Expect::denied,
       "escapes"},
      {"glob_pattern_dotdot", "glob",
       [](const Tree&) {
         return nlohmann::json{{"pattern", "../outside/*"}};
       },
       nothing, Expect::invalid, "may not contain '..'"},
      {"glob_base_parent", "glob",
       [](const Tree&) {
         return nlohmann::json{{"pattern", "*"}, {"path", "../outside"}};
       },
       nothing, Expect::denied, "escapes"},
      {"grep_base_parent", "grep",
       [](const Tree&) {
         return nlohmann::json{{"pattern", "SECRET"}, {"path", "../outside"}};
       },
       nothing, Expect::denied, "escapes"},
      // --- absolute paths --------------------------------------------------
      {"absolute_etc_passwd", "read", [](const Tree&) { return path("/etc/passwd"); }, nothing,
       Expect::denied, "absolute path outside"},
      {"absolute_outside_sibling", "read",
       [](const Tree& t) { return path((t.outside / "secret.txt").string()); }, nothing,
       Expect::denied, "absolute path outside"},
      {"absolute_root_prefix_trick", "read",
       [](const Tree& t) { return path(t.ws.string() + "evil/secret.txt"); },
       [](const Tree& t) {
         spit(t.ws.string() + "evil/secret.txt", kSecret);
         return true;
       },
       Expect::denied, "absolute path outside"},
      {"absolute_inside_then_dotdot", "read",
       [](const Tree& t) { return path(t.ws.string() + "/../outside/secret.txt"); }, nothing,
       Expect::denied, "escapes the workspace"},
      {"absolute_inside_allowed", "read",
       [](const Tree& t) { return path((t.ws / "hello.txt").string()); }, nothing, Expect::ok,
       "line one"},
      {"absolute_dev_zero", "read", [](const Tree&) { return path("/dev/zero"); }, nothing,
       Expect::denied, "absolute path outside"},
      // --- symlinks ----------------------------------------------------------
      {"symlink_file_relative_out", "read", [](const Tree&) { return path("link"); },
       [](const Tree& t) { return sym(t, "../outside/secret.txt", "link"); }, Expect::denied,
       "resolves outside"},
      {"symlink_file_absolute_out", "read", [](const Tree&) { return path("link"); },
       [](const Tree& t) { return sym(t, (t.outside / "secret.txt").c_str(), "link"); },
       Expect::denied, "resolves outside"},
      {"symlink_dir_out", "read", [](const Tree&) { return path("dirlink/secret.txt"); },
       [](const Tree& t) { return sym(t, "../outside", "dirlink"); }, Expect::denied,
       "resolves outside"},
      {"symlink_dir_out_list", "list", [](const Tree&) { return path("dirlink"); },
       [](const Tree& t) { return sym(t, "../outside", "dirlink"); }, Expect::denied,
       "resolves outside"},
      {"symlink_to_parent", "read", [](const Tree&) { return path("up/outside/secret.txt"); },
       [](const Tree& t) { return sym(t, "..", "up"); }, Expect::denied, "resolves outside"},
      {"symlink_to_root_slash", "read", [](const Tree&) { return path("r/etc/passwd"); },
       [](const Tree& t) { return sym(t, "/", "r"); }, Expect::denied, "resolves outside"},
      {"symlink_chain_out", "read", [](const Tree&) { return path("a"); },
       [](const Tree& t) {
         return sym(t, "b", "a") && sym(t, "sub/../../outside/secret.txt", "b");
       },
       Expect::denied, "resolves outside"},
      {"symlink_in_subdir_out", "read", [](const Tree&) { return path("sub/esc"); },
       [](const Tree& t) {
         return symlink("../../outside/secret.txt", (t.ws / "sub/esc").c_str()) == 0;
       },
       Expect::denied, "resolves outside"},
      {"symlink_proc_magic", "read", [](const Tree&) { return path("p/root/etc/passwd"); },
       [](const Tree& t) { return sym(t, "/proc/self", "p"); }, Expect::denied, "resolves outside"},
      {"symlink_dangling_out_read", "read", [](const Tree&) { return path("dangle"); },
       [](const Tree& t) { return sym(t, "../outside/created.txt", "dangle"); }, Expect::denied,
       "resolves outside"},
      {"symlink_dangling_out_write", "write",
       [](const Tree&) {
         return nlohmann::json{{"path", "dangle"}, {"content", "pwned"}};
       },
       [](const Tree& t) { return sym(t, "../outside/created.txt", "dangle"); }, Expect::denied,
       "resolves outside"},
      {"symlink_dangling_abs_write", "write",
       [](const Tree&) {
         return nlohmann::json{{"path", "dangle"}, {"content", "pwned"}};
       },
       [](const Tree& t) { return sym(t, (t.outside / "created.txt").c_str(), "dangle"); },
       Expect::denied, "resolves outside"},
      {"symlink_dangling_inside_write", "write",
       [](const Tree&) {
         return nlohmann::json{{"path", "dangle"}, {"content", "x"}};
       },
       [](const Tree& t) { return sym(t, "missing.txt", "dangle"); }, Expect::denied,
       "dangling symlink"},
      {"symlink_dir_out_write", "write",
       [](const Tree&) {
         return nlohmann::json{{"path", "dirlink/new.txt"}, {"content", "pwned"}};
       },
       [](const Tree& t) { return sym(t, "../outside", "dirlink"); }, Expect::denied,
       "resolves outside"},
      {"symlink_dir_out_mkdir_parents", "write",
       [](const Tree&) {
         return nlohmann::json{{"path", "dirlink/deep/new.txt"}, {"content", "pwned"}};
       },
       [](const Tree& t) { return sym(t, "../outside", "dirlink"); }, Expect::denied,
       "resolves outside"},
      {"symlink_file_out_edit", "edit",
       [](const Tree&) {
         return nlohmann::json{{"path", "link"}, {"old_string", "TOP"}, {"new_string", "X"}};
       },
       [](const Tree& t) { return sym(t, "../outside/secret.txt", "link"); }, Expect::denied,
       "resolves outside"},
      {"symlink_loop", "read", [](const Tree&) { return path("loop1"); },
       [](const Tree& t) { return sym(t, "loop2", "loop1") && sym(t, "loop1", "loop2"); },
       Expect::invalid, "too many levels"},
      {"symlink_self_loop", "read", [](const Tree&) { return path("self"); },
       [](const Tree& t) { return sym(t, "self", "self"); }, Expect::invalid, "too many levels"},
      {"symlink_inside_allowed", "read", [](const Tree&) { return path("good"); },
       [](const Tree& t) { return sym(t, "sub/inner.txt", "good"); }, Expect::ok, "INSIDE"},
      {"symlink_glob_not_followed", "glob",
       [](const Tree&) {
         return nlohmann::json{{"pattern", "**/secret.txt"}};
       },
       [](const Tree& t) { return sym(t, "../outside", "dirlink"); }, Expect::ok, "no matches"},
      {"symlink_grep_not_followed", "grep",
       [](const Tree&) {
         return nlohmann::json{{"pattern", "TOP SECRET"}};
       },
       [](const Tree& t) {
         return sym(t, "../outside", "dirlink") && sym(t, "../outside/secret.txt", "flink");
       },
       Expect::ok, "no matches"},
      // --- hard links --------------------------------------------------------
      {"hardlink_read", "read", [](const Tree&) { return path("hard.txt"); },
       [](const Tree& t) {
         return link((t.outside / "secret.txt").c_str(), (t.ws / "hard.txt").c_str()) == 0;
       },
       Expect::denied, "hard links"},
      {"hardlink_write", "write",
       [](const Tree&) {
         return nlohmann::json{{"path", "hard.txt"}, {"content", "pwned"}};
       },
       [](const Tree& t) {
         return link((t.outside / "secret.txt").c_str(), (t.ws / "hard.txt").c_str()) == 0;
       },
       Expect::denied, "hard links"},
      {"hardlink_edit", "edit",
       [](const Tree&) {
         return nlohmann::json{{"path", "hard.txt"}, {"old_string", "TOP"}, {"new_string", "X"}};
       },
       [](const Tree& t) {
         return link((t.outside / "secret.txt").c_str(), (t.ws / "hard.txt").c_str()) == 0;
       },
       Expect::denied, "hard links"},
      {"hardlink_grep_skipped", "grep",
       [](const Tree&) {
         return nlohmann::json{{"pattern", "TOP SECRET"}};
       },
       [](const Tree& t) {
         return link((t.outside / "secret.txt").c_str(), (t.ws / "hard.txt").c_str()) == 0;
       },
       Expect::ok, "no matches"},
      // --- special files -----------------------------------------------------
      {"fifo_read", "read", [](const Tree&) { return path("fifo"); },
       [](const Tree& t) { return mkfifo((t.ws / "fifo").c_str(), 0600) == 0; }, Expect::denied,
       "FIFO"},
      {"fifo_write", "write",
       [](const Tree&) {
         return nlohmann::json{{"path", "fifo"}, {"content", "x"}};
       },
       [](const Tree& t) { return mkfifo((t.ws / "fifo").c_str(), 0600) == 0; }, Expect::denied,
       "FIFO"},
      {"fifo_grep_skipped", "grep",
       [](const Tree&) {
         return nlohmann::json{{"pattern", "x"}, {"include", "fifo"}};
       },
       [](const Tree& t) { return mkfifo((t.ws / "fifo").c_str(), 0600) == 0; }, Expect::ok,
       "no matches"},
      {"symlink_to_dev_zero", "read", [](const Tree&) { return path("z"); },
       [](const Tree& t) { return sym(t, "/dev/zero", "z"); }, Expect::denied, "resolves outside"},
      {"char_device_in_workspace", "read", [](const Tree&) { return path("zero"); },
       [](const Tree& t) {
         return mknod((t.ws / "zero").c_str(), S_IFCHR | 0600, makedev(1, 5)) == 0;
       },
       Expect::denied, "character device"},
      {"unix_socket_read", "read", [](const Tree&) { return path("sock"); },
       [](const Tree& t) {
         int fd = socket(AF_UNIX, SOCK_STREAM, 0);
         sockaddr_un a{};
         a.sun_family = AF_UNIX;
         std::string p = (t.ws / "sock").string();
         if (p.size() >= sizeof a.sun_path) return false;
         std::memcpy(a.sun_path, p.c_str(), p.size() + 1);
         bool ok = bind(fd, reinterpret_cast<sockaddr*>(&a), sizeof a) == 0;
         close(fd);
         return ok;
       },
       Expect::denied, "socket"},
      {"directory_as_file", "read", [](const Tree&) { return path("sub"); }, nothing,
       Expect::invalid, "is a directory"},
      {"file_as_directory", "write",
       [](const Tree&) {
         return nlohmann::json{{"path", "hello.txt/x"}, {"content", "x"}};
       },
       nothing, Expect::invalid, "not a directory"},
      // --- size caps ---------------------------------------------------------
      {"huge_sparse_file", "read", [](const Tree&) { return path("huge.bin"); },
       nothing /* made in the test body */, Expect::too_big, "read cap"},
      {"write_over_cap", "write",
       [](const Tree&) {
         return nlohmann::json{{"path", "big.txt"}, {"content", std::string((1 << 20) + 1, 'a')}};
       },
       nothing, Expect::too_big, "write cap"},
  };
  return rows;
}

struct Param {
  const Attack* attack;
  Resolver resolver;
};

class SandboxAttack : public ::testing::TestWithParam<Param> {};

TEST_P(SandboxAttack, Refused) {
  const Attack& a = *GetParam().attack;
  Tree tree;
  if (std::string(a.name) == "huge_sparse_file") {
    // 10 GiB without using disk: the size check must refuse before reading.
    int fd = open((tree.ws / "huge.bin").c_str(), O_CREAT | O_WRONLY, 0644);
    ASSERT_GE(fd, 0);
    ASSERT_EQ(ftruncate(fd, 10LL << 30), 0);
    close(fd);
  }
  if (!a.setup(tree))
    GTEST_SKIP() << "cannot set up " << a.name << " here: " << std::strerror(errno);
  auto before = tree.outside_snapshot();

  toolwire::tools::BuiltinOptions opt;
  opt.workspace = tree.ws.string();
  opt.sandbox.resolver = GetParam().resolver;
  opt.sandbox.max_write_bytes = 1 << 20;
  opt.grep_engine = toolwire::tools::BuiltinOptions::GrepEngine::internal;
  auto tools = make_tools(opt);

  // Run off-thread so a tool that blocks (a FIFO open) fails the test instead of hanging it.
  auto fut = std::async(std::launch::async, [&] { return tools.call(a.tool, a.args(tree)); });
  ASSERT_EQ(fut.wait_for(std::chrono::seconds(20)), std::future_status::ready) << a.name << " hung";
  auto out = fut.get();
  std::string t = text(out);
  SCOPED_TRACE(std::string(a.name) + " -> " + t);

  EXPECT_EQ(t.find("TOP SECRET"), std::string::npos);
  EXPECT_EQ(tree.outside_snapshot(), before) << "the outside directory changed";
  EXPECT_NE(t.find(a.message), std::string::npos) << "expected message: " << a.message;
  EXPECT_EQ(out.is_error, a.expect != Expect::ok);
}

std::vector<Param> params() {
  std::vector<Param> out;
  for (Resolver r : {Resolver::openat2, Resolver::walk})
    for (const auto& a : attacks()) out.push_back({&a, r});
  return out;
}

INSTANTIATE_TEST_SUITE_P(All, SandboxAttack, ::testing::ValuesIn(params()),
                         [](const ::testing::TestParamInfo<Param>& i) {
                           return std::string(i.param.resolver == Resolver::openat2 ? "openat2_"
                                                                                    : "walk_") +
                                  i.param.attack->name;
                         });

// The same rows the grep tool ran with the internal engine, once more through
// ripgrep (which serves `no_ignore` searches of a directory).
TEST(SandboxAttackRipgrep, SymlinksHardLinksAndFifosAreNotSearched) {
  Tree tree;
  ASSERT_EQ(symlink("../outside", (tree.ws / "dirlink").c_str()), 0);
  ASSERT_EQ(symlink("../outside/secret.txt", (tree.ws / "flink").c_str()), 0);
  ASSERT_EQ(link((tree.outside / "secret.txt").c_str(), (tree.ws / "hard.txt").c_str()), 0);
  ASSERT_EQ(mkfifo((tree.ws / "fifo").c_str(), 0600), 0);
  toolwire::tools::BuiltinOptions opt;
  opt.workspace = tree.ws.string();
  opt.grep_engine = toolwire::tools::BuiltinOptions::GrepEngine::ripgrep;
  auto specs = toolwire::tools::builtin_tool_specs(opt);
  if (!specs) GTEST_SKIP() << "ripgrep not installed: " << specs.error().to_string();
  auto tools = make_tools(opt);
  auto fut = std::async(std::launch::async, [&] {
    return tools.call("grep", {{"pattern", "SECRET|INSIDE"}, {"no_ignore", true}});
  });
  ASSERT_EQ(fut.wait_for(std::chrono::seconds(20)), std::future_status::ready);
  std::string t = text(fut.get());
  EXPECT_EQ(t.find("TOP SECRET"), std::string::npos) << t;
  EXPECT_NE(t.find("sub/inner.txt:1:INSIDE"), std::string::npos) << t;
}

TEST(SandboxWorkspace, AutomaticResolverUsesOpenat2WhenTheKernelHasIt) {
  Tree tree;
  auto ws = toolwire::tools::Workspace::open(tree.ws.string());
  ASSERT_TRUE(ws.ok());
  auto forced = toolwire::tools::Workspace::open(tree.ws.string(), {.resolver = Resolver::openat2});
  if (forced)
    EXPECT_EQ(ws->resolver_in_use(), Resolver::openat2);
  else
    EXPECT_EQ(ws->resolver_in_use(), Resolver::walk);
}

TEST(SandboxWorkspace, RelativeNormalisesAndRefuses) {
  Tree tree;
  auto ws = toolwire::tools::Workspace::open(tree.ws.string());
  ASSERT_TRUE(ws.ok());
  EXPECT_EQ(*ws->relative("./a//b/"), "a/b");
  EXPECT_EQ(*ws->relative("a/../b"), "a/../b");  // kept for the resolver (symlink semantics)
  EXPECT_EQ(*ws->relative(tree.ws.string()), ".");
  EXPECT_EQ(*ws->relative(tree.ws.string() + "/x"), "x");
  EXPECT_EQ(ws->relative("a/../../b").error().code, toolwire::ErrorCode::permission_denied);
  EXPECT_EQ(ws->relative("/etc").error().code, toolwire::ErrorCode::permission_denied);
  EXPECT_EQ(ws->relative(std::string(5000, 'a')).error().code,
            toolwire::ErrorCode::invalid_argument);
  // The error names the path as the model wrote it.
  EXPECT_NE(ws->relative("../x").error().message.find("'../x'"), std::string::npos);
}

}  // namespace
