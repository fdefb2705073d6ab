// Check-then-use races: a thread keeps swapping a symlink between a target
// inside the workspace and one outside while tools read and write through
// it. Resolution happens once, beneath the root fd, and I/O goes through the
// resulting fd, so whatever the timing nothing outside is read or written.
#include <fcntl.h>
#include <sys/stat.h>
#include <unistd.h>
#include <atomic>
#include <cstdio>
#include <thread>

#include "sandbox_fixture.h"

namespace {

using namespace twtest;
using toolwire::tools::Resolver;

// Atomically points ws/<name> at `a` or `b`, alternating, until stopped.
class Flipper {
 public:
  Flipper(const Tree& t, std::string name, std::string a, std::string b)
      : dir_(t.ws), name_(std::move(name)), a_(std::move(a)), b_(std::move(b)) {
    set(a_);
    th_ = std::thread([this] {
      for (unsigned i = 0; !stop_.load(); ++i) {
        set(i % 2 ? a_ : b_);
        flips_.fetch_add(1);
      }
    });
  }
  ~Flipper() {
    stop_ = true;
    th_.join();
  }
  unsigned flips() const { return flips_.load(); }

 private:
  void set(const std::string& target) {
    std::string tmp = (dir_ / (name_ + ".tmp")).string();
    unlink(tmp.c_str());
    if (symlink(target.c_str(), tmp.c_str()) == 0) std::rename(tmp.c_str(), (dir_ / name_).c_str());
  }
  fs::path dir_;
  std::string name_, a_, b_;
  std::atomic<bool> stop_{false};
  std::atomic<unsigned> flips_{0};
  std::thread th_;
};

class SandboxRace : public ::testing::TestWithParam<Resolver> {
 protected:
  Tools tools_for(const Tree& tree) {
    toolwire::tools::BuiltinOptions opt;
    opt.workspace = tree.ws.string();
    opt.sandbox.resolver = GetParam();
    opt.grep_engine = toolwire::tools::BuiltinOptions::GrepEngine::internal;
    return make_tools(opt);
  }
};

TEST_P(SandboxRace, DirectorySymlinkSwappedDuringReads) {
  Tree tree;
  auto tools = tools_for(tree);
  auto before = tree.outside_snapshot();
  int inside = 0, refused = 0;
  {
    Flipper flip(tree, "flip", "sub", "../outside");  // flip/inner.txt: INSIDE or outside's copy
    // At least 3000 reads, then on until both outcomes were seen and the link
    // flipped over 100 times (so the race was exercised: on a loaded machine
    // the flipper thread may get few time slices), at most 15 s.
    auto until = std::chrono::steady_clock::now() + std::chrono::seconds(15);
    auto exercised = [&] { return inside > 0 && refused > 0 && flip.flips() > 100u; };
    for (int i = 0; i < 3000 || (!exercised() && std::chrono::steady_clock::now() < until); ++i) {
      auto out = tools.call("read", {{"path", "flip/inner.txt"}});
      std::string t = text(out);
      ASSERT_EQ(t.find("TOP SECRET"), std::string::npos) << "iteration " << i << ": " << t;
      if (!out.is_error) {
        ASSERT_NE(t.find("INSIDE"), std::string::npos) << t;
        ++inside;
      } else {
        ++refused;
      }
    }
    EXPECT_GT(flip.flips(), 100u);
  }
  // Both outcomes must have happened, or the race was not exercised.
  EXPECT_GT(inside, 0);
  EXPECT_GT(refused, 0);
  EXPECT_EQ(tree.outside_snapshot(), before);
}

TEST_P(SandboxRace, FileSymlinkSwappedDuringReadsAndWrites) {
  Tree tree;
  auto tools = tools_for(tree);
  auto before = tree.outside_snapshot();
  {
    Flipper flip(tree, "f", "sub/inner.txt", "../outside/secret.txt");
    for (int i = 0; i < 2000; ++i) {
      auto r = tools.call("read", {{"path", "f"}});
      ASSERT_EQ(text(r).find("TOP SECRET"), std::string::npos) << text(r);
      auto w = tools.call("write", {{"path", "f"}, {"content", "INSIDE\n"}});
      (void)w;  // either written inside or refused; the snapshot decides
      auto e = tools.call("edit",
                          {{"path", "f"}, {"old_string", "TOP SECRET"}, {"new_string", "pwned"}});
      ASSERT_EQ(text(e).find("replaced"), std::string::npos) << text(e);
    }
  }
  EXPECT_EQ(tree.outside_snapshot(), before);
}

TEST_P(SandboxRace, DirectorySymlinkSwappedDuringCreates) {
  Tree tree;
  auto tools = tools_for(tree);
  {
    Flipper flip(tree, "flip", "sub", "../outside");
    for (int i = 0; i < 1500; ++i)
      (void)tools.call("write",
                       {{"path", "flip/new" + std::to_string(i % 7) + "/x.txt"}, {"content", "y"}});
  }
  for (auto& e : fs::recursive_directory_iterator(tree.outside))
    EXPECT_TRUE(e.path().filename() == "secret.txt" || e.path().filename() == "inner.txt")
        << "created outside: " << e.path();
}

TEST_P(SandboxRace, SymlinkSwappedDuringGrepAndGlob) {
  Tree tree;
  auto tools = tools_for(tree);
  Flipper flip(tree, "flip", "sub", "../outside");
  for (int i = 0; i < 300; ++i) {
    auto g = tools.call("grep", {{"pattern", "SECRET|INSIDE"}});
    ASSERT_EQ(text(g).find("TOP SECRET"), std::string::npos) << text(g);
    auto gl = tools.call("glob", {{"pattern", "**/secret.txt"}});
    ASSERT_EQ(text(gl).find("secret.txt"), std::string::npos) << text(gl);
  }
}

// The primitive itself, without the tools' second checks: every fd that
// open_beneath returns while the link flips must be the inside file.
TEST_P(SandboxRace, OpenBeneathNeverReturnsAnOutsideFd) {
  Tree tree;
  auto ws = toolwire::tools::Workspace::open(tree.ws.string(), {.resolver = GetParam()});
  ASSERT_TRUE(ws.ok());
  struct stat outside {};
  ASSERT_EQ(stat((tree.outside / "inner.txt").c_str(), &outside), 0);
  int inside = 0, refused = 0;
  Flipper flip(tree, "flip", "sub", "../outside");
  auto until = std::chrono::steady_clock::now() + std::chrono::seconds(15);
  for (int i = 0;
       i < 50000 || ((inside == 0 || refused == 0) && std::chrono::steady_clock::now() < until);
       ++i) {
    auto fd = ws->open_beneath("flip/inner.txt", O_RDONLY);
    if (!fd) {
      ++refused;
      continue;
    }
    struct stat st {};
    ASSERT_EQ(fstat(fd->get(), &st), 0);
    ASSERT_FALSE(st.st_dev == outside.st_dev && st.st_ino == outside.st_ino)
        << "opened the outside file, try " << i;
    ++inside;
  }
  EXPECT_GT(inside, 0);
  EXPECT_GT(refused, 0);
}

INSTANTIATE_TEST_SUITE_P(Resolvers, SandboxRace,
                         ::testing::Values(Resolver::openat2, Resolver::walk), [](const auto& i) {
                           return i.param == Resolver::openat2 ? "openat2" : "walk";
                         });

}  // namespace
