// A spawned MCP server inherits no descriptor of ours beyond stdin, stdout and
// stderr. Asio opens sockets without FD_CLOEXEC; a server that inherited a
// client's connection would keep it open after the gateway closed it.
#include <fcntl.h>
#include <gtest/gtest.h>
#include <sys/socket.h>
#include <unistd.h>

#include <chrono>
#include <condition_variable>
#include <mutex>
#include <string>
#include <vector>

#include "toolwire/mcp/stdio_transport.h"

namespace toolwire::mcp {
namespace {

TEST(McpStdioSpawn, ServerInheritsOnlyStdio) {
  // A descriptor without FD_CLOEXEC, as asio's sockets are.
  int leaky = ::socket(AF_INET, SOCK_STREAM, 0);
  ASSERT_GE(leaky, 3);
  ASSERT_EQ(::fcntl(leaky, F_GETFD) & FD_CLOEXEC, 0);

  std::mutex mu;
  std::condition_variable cv;
  std::vector<std::string> lines;
  bool ended = false;
  StdioCallbacks cb;
  cb.on_line = [&](std::string_view l) {
    std::lock_guard lk(mu);
    lines.emplace_back(l);
  };
  cb.on_exit = [&](std::string) {
    std::lock_guard lk(mu);
    ended = true;
    cv.notify_all();
  };
  StdioServerParams p;
  // ls lists the shell's open descriptors (`; true` keeps the shell from
  // exec-ing ls, whose own directory descriptor would show).
  p.argv = {"/bin/sh", "-c", "ls -1 /proc/$$/fd; true"};
  auto t = StdioTransport::start(p, cb);
  ASSERT_TRUE(t.ok()) << t.error().message;
  {
    std::unique_lock lk(mu);
    ASSERT_TRUE(cv.wait_for(lk, std::chrono::seconds(20), [&] { return ended; }));
  }
  (*t)->shutdown();
  ::close(leaky);
  std::lock_guard lk(mu);
  EXPECT_EQ(lines, (std::vector<std::string>{"0", "1", "2"}));
}

}  // namespace
}  // namespace toolwire::mcp
