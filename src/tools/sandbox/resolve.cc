// Resolution beneath a root fd; see resolve.h. Neither function ever opens a
// path relative to the process cwd or follows a symlink the kernel picked
// for us without the BENEATH check.
#include "tools/sandbox/resolve.h"

#include <fcntl.h>
#include <linux/openat2.h>
#include <sys/stat.h>
#include <sys/syscall.h>
#include <unistd.h>
#include <cerrno>
#include <deque>
#include <string_view>
#include <vector>

#include "toolwire/tools/sandbox.h"

#ifndef SYS_openat2
#define SYS_openat2 437
#endif

namespace toolwire::tools::detail {
namespace {

constexpr int kMaxSymlinks = 40;  // the kernel's own limit
constexpr int kRetries = 8;

std::deque<std::string> split(std::string_view p) {
  std::deque<std::string> out;
  size_t i = 0;
  while (i <= p.size()) {
    size_t j = p.find('/', i);
    if (j == std::string_view::npos) j = p.size();
    if (j > i) {
      std::string_view c = p.substr(i, j - i);
      if (c != ".") out.emplace_back(c);
    }
    i = j + 1;
  }
  return out;
}

int raw_openat2(int dirfd, const char* path, int flags, unsigned mode) {
  open_how how{};
  // openat2 rejects flags that do not apply (EINVAL); O_PATH takes only a few.
  int extra = (flags & O_PATH) ? O_CLOEXEC : (O_CLOEXEC | O_NOCTTY);
  how.flags = static_cast<unsigned long long>(flags | extra);
  how.mode = (flags & (O_CREAT | O_TMPFILE)) ? mode : 0;
  how.resolve = RESOLVE_BENEATH | RESOLVE_NO_MAGICLINKS;
  long fd = syscall(SYS_openat2, dirfd, path, &how, sizeof how);
  return fd < 0 ? -errno : static_cast<int>(fd);
}

}  // namespace

bool kernel_has_openat2() {
  static const bool has = [] {
    int fd = raw_openat2(AT_FDCWD, ".", O_PATH | O_DIRECTORY, 0);
    if (fd >= 0) {
      close(fd);
      return true;
    }
    return fd != -ENOSYS && fd != -EPERM;  // EPERM: seccomp filters that deny it
  }();
  return has;
}

int open_beneath_openat2(int root_fd, const std::string& rel, int flags, unsigned mode) {
  const char* p = rel.empty() ? "." : rel.c_str();
  for (int i = 0;; ++i) {
    int fd = raw_openat2(root_fd, p, flags, mode);
    if (fd != -EAGAIN || i == kRetries) return fd;
  }
}

int open_beneath_walk(int root_fd, const std::string& rel, int flags, unsigned mode) {
  flags |= O_CLOEXEC | O_NOCTTY;
  std::vector<UniqueFd> stack;  // directories below the root we descended into
  auto cur = [&] { return stack.empty() ? root_fd : stack.back().get(); };
  std::deque<std::string> todo = split(rel);
  int links = 0;

  if (todo.empty()) {
    int fd = openat(root_fd, ".", flags, mode);
    return fd < 0 ? -errno : fd;
  }
  while (!todo.empty()) {
    std::string name = std::move(todo.front());
    todo.pop_front();
    const bool last = todo.empty();
    if (name == "..") {
      if (stack.empty()) return -EXDEV;
      stack.pop_back();
      if (last) {
        int fd = openat(cur(), ".", flags, mode);
        return fd < 0 ? -errno : fd;
      }
      continue;
    }
    for (int attempt = 0;; ++attempt) {
      if (attempt > kRetries) return -EAGAIN;
      struct stat st {};
      bool exists = fstatat(cur(), name.c_str(), &st, AT_SYMLINK_NOFOLLOW) == 0;
      if (!exists && !(errno == ENOENT && last && (flags & O_CREAT))) return -errno;
      if (exists && S_ISLNK(st.st_mode)) {
        // Expand the link ourselves so its target is resolved by these rules.
        if (++links > kMaxSymlinks) return -ELOOP;
        std::vector<char> buf(static_cast<size_t>(st.st_size > 0 ? st.st_size : 255) + 2);
        ssize_t n = readlinkat(cur(), name.c_str(), buf.data(), buf.size());
        if (n < 0) {
          if (errno == EINVAL) continue;  // no longer a link: look again
          return -errno;
        }
        if (static_cast<size_t>(n) >= buf.size()) continue;  // grew meanwhile: look again
        std::string_view target(buf.data(), static_cast<size_t>(n));
        if (target.empty()) return -ENOENT;
        if (target.front() == '/') return -EXDEV;  // like RESOLVE_BENEATH
        std::deque<std::string> parts = split(target);
        todo.insert(todo.begin(), parts.begin(), parts.end());
        if (todo.empty()) {  // a link to "." as the last component
          int fd = openat(cur(), ".", flags, mode);
          return fd < 0 ? -errno : fd;
        }
        break;
      }
      if (!last) {
        if (!S_ISDIR(st.st_mode)) return -ENOTDIR;
        int fd = openat(cur(), name.c_str(), O_PATH | O_DIRECTORY | O_NOFOLLOW | O_CLOEXEC);
        if (fd < 0) {
          // Swapped for a symlink (or removed) after our fstatat: look again.
          if (errno == ENOTDIR || errno == ELOOP || errno == ENOENT) continue;
          return -errno;
        }
        stack.emplace_back(fd);
        break;
      }
      int fd = openat(cur(), name.c_str(), flags | O_NOFOLLOW, mode);
      if (fd < 0) {
        if (errno == ELOOP) continue;  // became a symlink: expand it
        return -errno;
      }
      if (flags & O_PATH) {
        struct stat fst {};
        if (fstat(fd, &fst) == 0 && S_ISLNK(fst.st_mode)) {
          close(fd);
          continue;
        }
      }
      return fd;
    }
  }
  // Only reached when the last step expanded a symlink into nothing left to do.
  int fd = openat(cur(), ".", flags, mode);
  return fd < 0 ? -errno : fd;
}

}  // namespace toolwire::tools::detail
