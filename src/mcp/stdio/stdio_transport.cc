// The stdio transport: posix_spawnp into a new process group, one reader
// thread polling stdout, stderr, a wake pipe and the server's pidfd.
#include "toolwire/mcp/stdio_transport.h"

#include <fcntl.h>
#include <poll.h>
#include <spawn.h>
#include <sys/syscall.h>
#include <sys/wait.h>
#include <unistd.h>

#include <cerrno>
#include <csignal>
#include <cstring>
#include <map>

#include "toolwire/mcp/jsonrpc.h"

#ifndef SYS_pidfd_open
#define SYS_pidfd_open 434
#endif

extern char** environ;

namespace toolwire::mcp {
namespace {

using Ms = std::chrono::milliseconds;
constexpr size_t kStderrTail = 4096;

void close_fd(int& fd) {
  if (fd >= 0) ::close(fd);
  fd = -1;
}

std::string describe(int status) {
  if (WIFEXITED(status)) return "exited with status " + std::to_string(WEXITSTATUS(status));
  if (WIFSIGNALED(status)) return "killed by signal " + std::to_string(WTERMSIG(status));
  return "stopped";
}

// Our environment with `extra` ("K=V") added or replacing same-named entries.
std::vector<std::string> merged_env(const std::vector<std::string>& extra) {
  std::map<std::string, std::string> vars;
  std::vector<std::string> order;
  auto put = [&](std::string_view kv) {
    size_t eq = kv.find('=');
    std::string key(kv.substr(0, eq));
    if (!vars.count(key)) order.push_back(key);
    vars[key] = std::string(kv);
  };
  for (char** e = environ; e && *e; ++e) put(*e);
  for (const auto& kv : extra) put(kv);
  std::vector<std::string> out;
  for (const auto& k : order) out.push_back(vars[k]);
  return out;
}

}  // namespace

Result<std::unique_ptr<StdioTransport>> StdioTransport::start(const StdioServerParams& params,
                                                              StdioCallbacks callbacks) {
  if (params.argv.empty() || params.argv[0].empty())
    return make_error(ErrorCode::invalid_argument, "MCP server command is empty");
  // A write to a server that just died must be an error, not our death.
  struct sigaction old {};
  if (sigaction(SIGPIPE, nullptr, &old) == 0 && old.sa_handler == SIG_DFL) signal(SIGPIPE, SIG_IGN);

  int in[2], out[2], err[2], wake[2];
  if (pipe2(in, O_CLOEXEC) != 0) return make_error(ErrorCode::internal, strerror(errno));
  if (pipe2(out, O_CLOEXEC) != 0) {
    ::close(in[0]), ::close(in[1]);
    return make_error(ErrorCode::internal, strerror(errno));
  }
  if (pipe2(err, O_CLOEXEC) != 0) {
    ::close(in[0]), ::close(in[1]), ::close(out[0]), ::close(out[1]);
    return make_error(ErrorCode::internal, strerror(errno));
  }
  if (pipe2(wake, O_CLOEXEC | O_NONBLOCK) != 0) {
    for (int fd : {in[0], in[1], out[0], out[1], err[0], err[1]}) ::close(fd);
    return make_error(ErrorCode::internal, strerror(errno));
  }

  posix_spawn_file_actions_t fa;
  posix_spawn_file_actions_init(&fa);
  posix_spawn_file_actions_adddup2(&fa, in[0], 0);
  posix_spawn_file_actions_adddup2(&fa, out[1], 1);
  posix_spawn_file_actions_adddup2(&fa, err[1], 2);
  if (!params.cwd.empty()) posix_spawn_file_actions_addchdir_np(&fa, params.cwd.c_str());
  posix_spawnattr_t attr;
  posix_spawnattr_init(&attr);
  sigset_t none, defaults;
  sigemptyset(&none);
  sigemptyset(&defaults);
  for (int s : {SIGPIPE, SIGTERM, SIGINT, SIGHUP, SIGCHLD}) sigaddset(&defaults, s);
  posix_spawnattr_setsigmask(&attr, &none);
  posix_spawnattr_setsigdefault(&attr, &defaults);
  // Its own group: Ctrl-C at our terminal is ours to handle, and a shutdown
  // reaches what the server started (npx → node).
  posix_spawnattr_setpgroup(&attr, 0);
  posix_spawnattr_setflags(&attr,
                           POSIX_SPAWN_SETPGROUP | POSIX_SPAWN_SETSIGMASK | POSIX_SPAWN_SETSIGDEF);

  std::vector<std::string> env = merged_env(params.env);
  std::vector<char*> argv, envp;
  for (const auto& a : params.argv) argv.push_back(const_cast<char*>(a.c_str()));
  argv.push_back(nullptr);
  for (const auto& e : env) envp.push_back(const_cast<char*>(e.c_str()));
  envp.push_back(nullptr);
  pid_t pid = -1;
  int rc = posix_spawnp(&pid, params.argv[0].c_str(), &fa, &attr, argv.data(), envp.data());
  posix_spawn_file_actions_destroy(&fa);
  posix_spawnattr_destroy(&attr);
  ::close(in[0]);
  ::close(out[1]);
  ::close(err[1]);
  if (rc != 0) {
    for (int fd : {in[1], out[0], err[0], wake[0], wake[1]}) ::close(fd);
    return make_error(ErrorCode::failed_precondition,
                      "cannot start MCP server '" + params.argv[0] + "': " + strerror(rc));
  }
  std::unique_ptr<StdioTransport> t(new StdioTransport());
  t->params_ = params;
  t->cb_ = std::move(callbacks);
  t->pid_ = pid;
  t->stdin_fd_ = in[1];
  t->stdout_fd_ = out[0];
  t->stderr_fd_ = err[0];
  t->wake_r_ = wake[0];
  t->wake_w_ = wake[1];
  t->pidfd_ = static_cast<int>(syscall(SYS_pidfd_open, pid, 0));
  fcntl(t->stdout_fd_, F_SETFL, O_NONBLOCK);
  fcntl(t->stderr_fd_, F_SETFL, O_NONBLOCK);
  t->alive_ = true;
  t->reader_ = std::thread([p = t.get()] { p->reader_loop(); });
  return t;
}

StdioTransport::~StdioTransport() {
  shutdown();
  close_fd(stdout_fd_);
  close_fd(stderr_fd_);
  close_fd(wake_r_);
  close_fd(wake_w_);
  close_fd(pidfd_);
}

Status StdioTransport::send(std::string_view frame) {
  std::lock_guard<std::mutex> lock(mu_);
  if (stdin_fd_ < 0 || !alive_)
    return make_error(ErrorCode::unavailable, "MCP server is not running");
  std::string buf;
  buf.reserve(frame.size() + 1);
  buf.append(frame);
  buf.push_back('\n');
  size_t off = 0;
  while (off < buf.size()) {
    ssize_t n = ::write(stdin_fd_, buf.data() + off, buf.size() - off);
    if (n < 0 && errno == EINTR) continue;
    if (n < 0)
      return make_error(ErrorCode::unavailable,
                        std::string("MCP server stdin: ") + strerror(errno));
    off += static_cast<size_t>(n);
  }
  return {};
}

void StdioTransport::wake() {
  char c = 1;
  [[maybe_unused]] ssize_t n = ::write(wake_w_, &c, 1);
}

std::string StdioTransport::stderr_tail() const {
  std::lock_guard<std::mutex> lock(mu_);
  return stderr_tail_;
}

std::string StdioTransport::exit_reason() const {
  std::lock_guard<std::mutex> lock(mu_);
  return exit_reason_;
}

// Waits up to `wait` for the server to exit and reaps it; "" if still running.
std::string StdioTransport::reap(Ms wait) {
  auto until = Clock::now() + wait;
  for (;;) {
    {
      std::lock_guard<std::mutex> lock(mu_);
      if (reaped_) return exit_reason_;
      int status = 0;
      pid_t r = waitpid(pid_, &status, WNOHANG);
      if (r == pid_ || (r < 0 && errno == ECHILD)) {
        reaped_ = true;
        exit_reason_ = r == pid_ ? describe(status) : "exited";
        return exit_reason_;
      }
    }
    auto now = Clock::now();
    if (now >= until) return {};
    long ms = std::chrono::duration_cast<Ms>(until - now).count() + 1;
    if (pidfd_ >= 0) {
      pollfd p{pidfd_, POLLIN, 0};
      poll(&p, 1, static_cast<int>(ms));
    } else {
      // No pidfd (old kernel): look again in small steps.
      poll(nullptr, 0, static_cast<int>(std::min(ms, 10L)));
    }
  }
}

void StdioTransport::reader_loop() {
  LineReader lines(params_.max_message_bytes);
  std::string err_line;
  auto on_line = [this](std::string_view l) {
    if (cb_.on_line) cb_.on_line(l);
  };
  auto on_oversized = [this] {
    if (cb_.on_oversized) cb_.on_oversized();
  };
  auto take_stderr = [&](const char* p, size_t n) {
    {
      std::lock_guard<std::mutex> lock(mu_);
      stderr_tail_.append(p, n);
      if (stderr_tail_.size() > kStderrTail)
        stderr_tail_.erase(0, stderr_tail_.size() - kStderrTail);
    }
    for (size_t i = 0; i < n; ++i) {
      if (p[i] != '\n') {
        if (err_line.size() < 8192) err_line.push_back(p[i]);
        continue;
      }
      if (cb_.on_stderr) cb_.on_stderr(err_line);
      err_line.clear();
    }
  };
  char buf[65536];
  bool err_open = true;
  for (;;) {
    auto now = Clock::now();
    auto next = cb_.next_deadline ? cb_.next_deadline() : Clock::time_point::max();
    int timeout = -1;
    if (next != Clock::time_point::max())
      timeout = next <= now ? 0
                            : static_cast<int>(std::min<long long>(
                                  std::chrono::duration_cast<Ms>(next - now).count() + 1, 60000));
    pollfd fds[3] = {
        {stdout_fd_, POLLIN, 0}, {wake_r_, POLLIN, 0}, {err_open ? stderr_fd_ : -1, POLLIN, 0}};
    int pr = poll(fds, 3, timeout);
    if (pr < 0 && errno != EINTR) break;
    if (fds[1].revents & POLLIN)
      while (::read(wake_r_, buf, sizeof buf) > 0) {
      }
    if (err_open && (fds[2].revents & (POLLIN | POLLHUP | POLLERR))) {
      for (;;) {
        ssize_t n = ::read(stderr_fd_, buf, sizeof buf);
        if (n > 0)
          take_stderr(buf, static_cast<size_t>(n));
        else if (n < 0 && errno == EINTR)
          continue;
        else {
          if (n == 0 || errno != EAGAIN) err_open = false;
          break;
        }
      }
    }
    bool eof = false;
    if (fds[0].revents & (POLLIN | POLLHUP | POLLERR)) {
      for (;;) {
        ssize_t n = ::read(stdout_fd_, buf, sizeof buf);
        if (n > 0) {
          lines.feed(std::string_view(buf, static_cast<size_t>(n)), on_line, on_oversized);
        } else if (n < 0 && errno == EINTR) {
          continue;
        } else {
          eof = n == 0 || errno != EAGAIN;
          break;
        }
      }
    }
    if (cb_.on_tick) cb_.on_tick();
    if (eof) break;
  }
  alive_ = false;
  // Its last words on stderr explain a crash; give them a moment to arrive.
  auto until = Clock::now() + Ms(200);
  while (err_open && Clock::now() < until) {
    pollfd p{stderr_fd_, POLLIN, 0};
    if (poll(&p, 1, 50) <= 0) continue;
    ssize_t n = ::read(stderr_fd_, buf, sizeof buf);
    if (n > 0)
      take_stderr(buf, static_cast<size_t>(n));
    else if (n == 0 || errno != EAGAIN)
      err_open = false;
  }
  if (!err_line.empty() && cb_.on_stderr) cb_.on_stderr(err_line);
  std::string reason = reap(stopping_ ? Ms(0) : Ms(500));
  if (reason.empty()) reason = "closed its stdout";
  {
    std::lock_guard<std::mutex> lock(mu_);
    if (exit_reason_.empty()) exit_reason_ = reason;
  }
  if (cb_.on_exit) cb_.on_exit(reason);
}

void StdioTransport::kill_now() {
  std::lock_guard<std::mutex> lock(mu_);
  if (!reaped_ && pid_ > 0) killpg(pid_, SIGKILL);
}

void StdioTransport::shutdown() {
  if (stopping_.exchange(true)) {
    if (reader_.joinable() && reader_.get_id() != std::this_thread::get_id()) reader_.join();
    return;
  }
  {
    std::lock_guard<std::mutex> lock(mu_);
    close_fd(stdin_fd_);
  }
  if (reap(params_.grace).empty()) {
    {
      std::lock_guard<std::mutex> lock(mu_);
      if (!reaped_) killpg(pid_, SIGTERM);
    }
    if (reap(params_.grace).empty()) {
      {
        std::lock_guard<std::mutex> lock(mu_);
        if (!reaped_) killpg(pid_, SIGKILL);
      }
      reap(Ms(60000));
    }
  }
  // The server is gone; a grandchild may still hold stdout open, so the
  // reader is told to stop rather than waited on for EOF.
  wake();
  if (reader_.joinable()) {
    if (alive_) {
      // Give the reader a bounded moment to drain what the server wrote last.
      auto until = Clock::now() + Ms(200);
      while (alive_ && Clock::now() < until) poll(nullptr, 0, 5);
      if (alive_) {
        std::lock_guard<std::mutex> lock(mu_);
        // Closing our end would race the poll; a dup2 of /dev/null onto it is atomic.
        int null_fd = ::open("/dev/null", O_RDONLY | O_CLOEXEC);
        if (null_fd >= 0) {
          dup2(null_fd, stdout_fd_);
          ::close(null_fd);
        }
      }
      wake();
    }
    if (reader_.get_id() != std::this_thread::get_id())
      reader_.join();
    else
      reader_.detach();
  }
}

Result<std::vector<std::string>> split_command(std::string_view line) {
  std::vector<std::string> words;
  std::string cur;
  bool in_word = false;
  char quote = 0;
  for (size_t i = 0; i < line.size(); ++i) {
    char c = line[i];
    if (quote == '\'') {
      if (c == '\'')
        quote = 0;
      else
        cur.push_back(c);
      continue;
    }
    if (c == '\\' && i + 1 < line.size()) {
      cur.push_back(line[++i]);
      in_word = true;
      continue;
    }
    if (quote == '"') {
      if (c == '"')
        quote = 0;
      else
        cur.push_back(c);
      continue;
    }
    if (c == '\'' || c == '"') {
      quote = c;
      in_word = true;
    } else if (c == ' ' || c == '\t' || c == '\n') {
      if (in_word) words.push_back(std::move(cur));
      cur.clear();
      in_word = false;
    } else {
      cur.push_back(c);
      in_word = true;
    }
  }
  if (quote) return make_error(ErrorCode::invalid_argument, "unterminated quote in command");
  if (in_word) words.push_back(std::move(cur));
  if (words.empty()) return make_error(ErrorCode::invalid_argument, "empty command");
  return words;
}

}  // namespace toolwire::mcp
