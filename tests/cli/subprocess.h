// A child process with pipes on stdin, stdout and stderr, for tests that talk
// to the `toolwire` binary while it runs. Every wait is bounded (poll with a
// deadline); nothing sleeps.
#pragma once

#include <fcntl.h>
#include <poll.h>
#include <signal.h>
#include <spawn.h>
#include <sys/wait.h>
#include <unistd.h>

#include <cerrno>
#include <chrono>
#include <functional>
#include <string>
#include <string_view>
#include <vector>

extern char** environ;

namespace toolwire::testing {

class Subprocess {
 public:
  using Clock = std::chrono::steady_clock;

  explicit Subprocess(const std::vector<std::string>& argv) {
    int in[2], out[2], err[2];
    if (pipe2(in, O_CLOEXEC) != 0 || pipe2(out, O_CLOEXEC) != 0 || pipe2(err, O_CLOEXEC) != 0)
      return;
    posix_spawn_file_actions_t fa;
    posix_spawn_file_actions_init(&fa);
    posix_spawn_file_actions_adddup2(&fa, in[0], 0);
    posix_spawn_file_actions_adddup2(&fa, out[1], 1);
    posix_spawn_file_actions_adddup2(&fa, err[1], 2);
    std::vector<char*> args;
    for (const auto& a : argv) args.push_back(const_cast<char*>(a.c_str()));
    args.push_back(nullptr);
    if (posix_spawn(&pid_, args[0], &fa, nullptr, args.data(), environ) != 0) pid_ = -1;
    posix_spawn_file_actions_destroy(&fa);
    ::close(in[0]);
    ::close(out[1]);
    ::close(err[1]);
    in_ = in[1];
    out_ = out[0];
    err_ = err[0];
    signal(SIGPIPE, SIG_IGN);  // a child that exits early must fail the test, not kill it
  }
  ~Subprocess() {
    close_stdin();
    if (pid_ > 0 && !exited_) {
      ::kill(pid_, SIGKILL);
      int st;
      waitpid(pid_, &st, 0);
    }
    for (int fd : {out_, err_})
      if (fd >= 0) ::close(fd);
  }
  Subprocess(const Subprocess&) = delete;
  Subprocess& operator=(const Subprocess&) = delete;

  bool started() const { return pid_ > 0; }
  pid_t pid() const { return pid_; }

  bool write_stdin(std::string_view data) {
    while (!data.empty()) {
      ssize_t n = ::write(in_, data.data(), data.size());
      if (n < 0 && errno == EINTR) continue;
      if (n <= 0) return false;
      data.remove_prefix(static_cast<size_t>(n));
    }
    return true;
  }
  void close_stdin() {
    if (in_ >= 0) ::close(in_);
    in_ = -1;
  }

  const std::string& out() const { return out_buf_; }
  const std::string& err() const { return err_buf_; }

  // Reads stdout and stderr until `done(stdout so far)` holds, both reach end
  // of file, or `timeout` passes. Returns whether `done` held.
  bool read_until(const std::function<bool(const std::string&)>& done,
                  std::chrono::milliseconds timeout) {
    auto deadline = Clock::now() + timeout;
    while (!done(out_buf_)) {
      if (out_ < 0 && err_ < 0) return false;
      auto left =
          std::chrono::duration_cast<std::chrono::milliseconds>(deadline - Clock::now()).count();
      if (left <= 0) return false;
      pollfd fds[2] = {{out_, POLLIN, 0}, {err_, POLLIN, 0}};
      int r = ::poll(fds, 2, static_cast<int>(left));
      if (r < 0 && errno == EINTR) continue;
      if (r <= 0) return false;
      drain(fds[0], out_, out_buf_);
      drain(fds[1], err_, err_buf_);
    }
    return true;
  }

  // Closes stdin (unless told not to), reads both pipes to end of file and
  // reaps the child; its exit status, 128 + the signal if one killed it, or -1
  // when `timeout` passed first.
  int wait(std::chrono::milliseconds timeout, bool close_input = true) {
    if (close_input) close_stdin();
    read_until([](const std::string&) { return false; }, timeout);
    if (out_ >= 0 || err_ >= 0) return -1;  // still open: the deadline passed
    int st = 0;
    if (waitpid(pid_, &st, 0) != pid_) return -1;
    exited_ = true;
    return WIFEXITED(st) ? WEXITSTATUS(st) : 128 + WTERMSIG(st);
  }

 private:
  static void drain(const pollfd& p, int& fd, std::string& buf) {
    if (fd < 0 || !(p.revents & (POLLIN | POLLHUP | POLLERR))) return;
    char chunk[65536];
    ssize_t n = ::read(fd, chunk, sizeof chunk);
    if (n > 0) {
      buf.append(chunk, static_cast<size_t>(n));
    } else if (n == 0 || errno != EINTR) {
      ::close(fd);
      fd = -1;
    }
  }

  pid_t pid_ = -1;
  bool exited_ = false;
  int in_ = -1, out_ = -1, err_ = -1;
  std::string out_buf_, err_buf_;
};

}  // namespace toolwire::testing
