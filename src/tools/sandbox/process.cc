// run_process: posix_spawn with argv into a new process group, then a poll
// loop over stdout, stderr and a pidfd. When the leader exits, whatever is
// left of its group is SIGKILLed before the leader is reaped, so the pgid
// cannot be reused and no background child outlives the tool call.
#include "tools/sandbox/process.h"

#include <fcntl.h>
#include <poll.h>
#include <spawn.h>
#include <sys/stat.h>
#include <sys/syscall.h>
#include <sys/wait.h>
#include <unistd.h>
#include <cerrno>
#include <csignal>
#include <cstring>

#include "toolwire/tools/sandbox.h"

#ifndef SYS_pidfd_open
#define SYS_pidfd_open 434
#endif

namespace toolwire::tools::detail {
namespace {

using Ms = std::chrono::milliseconds;

// Collects one pipe up to a cap; what is beyond the cap is dropped.
struct Sink {
  int fd = -1;
  std::string* buf = nullptr;
  size_t cap = 0;
  bool* truncated = nullptr;

  // Returns false at EOF or error.
  bool drain() {
    char tmp[16384];
    for (;;) {
      ssize_t n = ::read(fd, tmp, sizeof tmp);
      if (n < 0 && errno == EINTR) continue;
      if (n < 0 && errno == EAGAIN) return true;
      if (n <= 0) return false;
      size_t room = cap > buf->size() ? cap - buf->size() : 0;
      size_t take = std::min(room, static_cast<size_t>(n));
      buf->append(tmp, take);
      if (take < static_cast<size_t>(n)) *truncated = true;
      if (*truncated) return true;
    }
  }
};

bool leader_exited(pid_t pid) {
  siginfo_t si{};
  // WNOWAIT: observe without reaping, so the pid/pgid stays reserved.
  if (waitid(P_PID, static_cast<id_t>(pid), &si, WEXITED | WNOHANG | WNOWAIT) != 0)
    return errno == ECHILD;
  return si.si_pid == pid;
}

}  // namespace

std::string find_program(const std::string& name, const std::string& search_path) {
  if (name.empty() || name.find('/') != std::string::npos) return {};
  size_t i = 0;
  while (i <= search_path.size()) {
    size_t j = search_path.find(':', i);
    if (j == std::string::npos) j = search_path.size();
    std::string dir = search_path.substr(i, j - i);
    i = j + 1;
    if (dir.empty() || dir.front() != '/') continue;  // never relative to cwd
    std::string cand = dir + "/" + name;
    struct stat st {};
    if (stat(cand.c_str(), &st) == 0 && S_ISREG(st.st_mode) && access(cand.c_str(), X_OK) == 0)
      return cand;
  }
  return {};
}

Result<ProcessResult> run_process(const ProcessSpec& spec) {
  if (spec.argv.empty()) return make_error(ErrorCode::invalid_argument, "empty argv");
  int outp[2], errp[2];
  if (pipe2(outp, O_CLOEXEC) != 0)
    return make_error(ErrorCode::internal, std::string("pipe: ") + strerror(errno));
  if (pipe2(errp, O_CLOEXEC) != 0) {
    close(outp[0]);
    close(outp[1]);
    return make_error(ErrorCode::internal, std::string("pipe: ") + strerror(errno));
  }
  UniqueFd out_r(outp[0]), out_w(outp[1]), err_r(errp[0]), err_w(errp[1]);

  posix_spawn_file_actions_t fa;
  posix_spawn_file_actions_init(&fa);
  if (spec.stdin_fd >= 0)
    posix_spawn_file_actions_adddup2(&fa, spec.stdin_fd, 0);
  else
    posix_spawn_file_actions_addopen(&fa, 0, "/dev/null", O_RDONLY, 0);
  posix_spawn_file_actions_adddup2(&fa, out_w.get(), 1);
  posix_spawn_file_actions_adddup2(&fa, err_w.get(), 2);
  if (spec.cwd_fd >= 0) posix_spawn_file_actions_addfchdir_np(&fa, spec.cwd_fd);
  posix_spawn_file_actions_addclosefrom_np(&fa,
                                           3);  // no inherited fds (API sockets, the workspace fd)

  posix_spawnattr_t attr;
  posix_spawnattr_init(&attr);
  sigset_t none, defaults;
  sigemptyset(&none);
  sigemptyset(&defaults);
  for (int s : {SIGPIPE, SIGTERM, SIGINT, SIGHUP, SIGQUIT, SIGCHLD}) sigaddset(&defaults, s);
  posix_spawnattr_setsigmask(&attr, &none);
  posix_spawnattr_setsigdefault(&attr, &defaults);
  posix_spawnattr_setpgroup(&attr, 0);  // its own process group, pgid = pid
  posix_spawnattr_setflags(&attr,
                           POSIX_SPAWN_SETPGROUP | POSIX_SPAWN_SETSIGMASK | POSIX_SPAWN_SETSIGDEF);

  std::vector<char*> argv, envp;
  for (const auto& a : spec.argv) argv.push_back(const_cast<char*>(a.c_str()));
  argv.push_back(nullptr);
  for (const auto& e : spec.env) envp.push_back(const_cast<char*>(e.c_str()));
  envp.push_back(nullptr);

  const auto start = Clock::now();
  pid_t pid = -1;
  int rc = posix_spawn(&pid, spec.program.c_str(), &fa, &attr, argv.data(), envp.data());
  posix_spawn_file_actions_destroy(&fa);
  posix_spawnattr_destroy(&attr);
  if (rc != 0)
    return make_error(ErrorCode::failed_precondition,
                      "cannot start '" + spec.argv[0] + "': " + strerror(rc));
  out_w.reset();
  err_w.reset();
  fcntl(out_r.get(), F_SETFL, O_NONBLOCK);
  fcntl(err_r.get(), F_SETFL, O_NONBLOCK);
  UniqueFd pidfd(static_cast<int>(syscall(SYS_pidfd_open, pid, 0)));

  ProcessResult res;
  Sink sinks[2] = {{out_r.get(), &res.out, spec.max_stdout, &res.out_truncated},
                   {err_r.get(), &res.err, spec.max_stderr, &res.err_truncated}};
  bool open[2] = {true, true};
  const auto deadline = start + spec.timeout;
  Clock::time_point kill_at = Clock::time_point::max();
  bool term_sent = false, exited = false;
  Clock::time_point drain_until = Clock::time_point::max();

  auto stop_group = [&] {
    if (term_sent) return;
    term_sent = true;
    killpg(pid, SIGTERM);
    kill_at = Clock::now() + spec.kill_grace;
  };

  for (;;) {
    auto now = Clock::now();
    if (!exited && !term_sent) {
      if (now >= deadline) {
        res.timed_out = true;
        stop_group();
      } else if (spec.cancel && spec.cancel->cancelled()) {
        res.cancelled = true;
        stop_group();
      } else if (res.out_truncated || res.err_truncated)
        stop_group();
    }
    if (!exited && now >= kill_at) {
      killpg(pid, SIGKILL);
      res.sent_sigkill = true;
      kill_at = Clock::time_point::max();
    }
    if (!exited && leader_exited(pid)) {
      exited = true;
      killpg(pid, SIGKILL);  // leftovers of the group; the zombie leader keeps the pgid reserved
      // Pipes may be held by a child that left the group; do not wait on them for long.
      drain_until = now + Ms(200);
    }
    if (exited && ((!open[0] && !open[1]) || now >= drain_until)) break;

    pollfd fds[3];
    int n = 0, idx[3] = {-1, -1, -1};
    for (int i = 0; i < 2; ++i)
      if (open[i]) {
        fds[n] = {sinks[i].fd, POLLIN, 0};
        idx[n++] = i;
      }
    if (pidfd.valid() && !exited) fds[n++] = {pidfd.get(), POLLIN, 0};
    auto wake = std::min({deadline, kill_at, drain_until});
    if (term_sent && kill_at == Clock::time_point::max()) wake = std::min(wake, now + Ms(50));
    long wait_ms = wake <= now ? 0 : std::chrono::duration_cast<Ms>(wake - now).count() + 1;
    if (!pidfd.valid() || spec.cancel)
      wait_ms = std::min(wait_ms, 20L);  // poll the leader / cancel flag
    if (wait_ms > 1000) wait_ms = 1000;
    int pr = poll(fds, static_cast<nfds_t>(n), static_cast<int>(wait_ms));
    if (pr < 0 && errno != EINTR) break;
    for (int k = 0; k < n; ++k) {
      if (idx[k] < 0 || !(fds[k].revents & (POLLIN | POLLHUP | POLLERR))) continue;
      int i = idx[k];
      if (!sinks[i].drain()) open[i] = false;
    }
    // Once capped, keep reading (and dropping) so the writer never blocks on a full pipe.
  }

  int status = 0;
  while (waitpid(pid, &status, 0) < 0 && errno == EINTR) {
  }
  if (WIFEXITED(status)) res.exit_code = WEXITSTATUS(status);
  if (WIFSIGNALED(status)) res.term_signal = WTERMSIG(status);
  res.elapsed = std::chrono::duration_cast<Ms>(Clock::now() - start);
  return res;
}

}  // namespace toolwire::tools::detail
