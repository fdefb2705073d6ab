// Workspace: model paths → fds beneath one root. See toolwire/tools/sandbox.h.
#include "toolwire/tools/sandbox.h"

#include <fcntl.h>
#include <unistd.h>
#include <cerrno>
#include <climits>
#include <cstdlib>
#include <cstring>

#include "tools/sandbox/resolve.h"

namespace toolwire::tools {

void UniqueFd::reset(int fd) {
  if (fd_ >= 0) ::close(fd_);
  fd_ = fd;
}

namespace {

constexpr size_t kMaxPathBytes = 4096;

std::string quote(std::string_view p) {
  std::string out = "'";
  if (p.size() > 200) {
    out.append(p.substr(0, 200));
    out += "...";
  } else {
    out.append(p);
  }
  out += "'";
  return out;
}

const char* file_kind(mode_t m) {
  if (S_ISFIFO(m)) return "a FIFO";
  if (S_ISCHR(m)) return "a character device";
  if (S_ISBLK(m)) return "a block device";
  if (S_ISSOCK(m)) return "a socket";
  if (S_ISDIR(m)) return "a directory";
  if (S_ISLNK(m)) return "a symlink";
  return "a special file";
}

bool write_all(int fd, std::string_view data) {
  while (!data.empty()) {
    ssize_t n = ::write(fd, data.data(), data.size());
    if (n < 0) {
      if (errno == EINTR) continue;
      return false;
    }
    data.remove_prefix(static_cast<size_t>(n));
  }
  return true;
}

}  // namespace

Error sandbox_error(ErrorCode code, std::string_view model_path, std::string_view what) {
  return make_error(code, quote(model_path) + ": " + std::string(what));
}

namespace {

// A file the model may read or write (`use`): a regular file, with one link
// unless hard links are allowed.
Status check_regular_file(const struct stat& st, std::string_view model_path, std::string_view use,
                          bool allow_hard_links) {
  if (S_ISDIR(st.st_mode))
    return sandbox_error(ErrorCode::invalid_argument, model_path, "is a directory");
  if (!S_ISREG(st.st_mode))
    return sandbox_error(ErrorCode::permission_denied, model_path,
                         std::string("is ") + file_kind(st.st_mode) +
                             "; only regular files can be " + std::string(use));
  if (st.st_nlink > 1 && !allow_hard_links)
    return sandbox_error(ErrorCode::permission_denied, model_path,
                         "has " + std::to_string(st.st_nlink) +
                             " hard links (one may be outside the workspace); refused");
  return Status::Ok();
}

}  // namespace

Error errno_error(int err, std::string_view model_path, std::string_view action) {
  switch (err) {
    case EXDEV:
      return sandbox_error(ErrorCode::permission_denied, model_path,
                           "resolves outside the workspace (via '..' or a symlink); refused");
    case ELOOP:
      return sandbox_error(ErrorCode::invalid_argument, model_path,
                           "too many levels of symbolic links");
    case ENOENT:
      return sandbox_error(ErrorCode::not_found, model_path, "no such file or directory");
    case ENOTDIR:
      return sandbox_error(ErrorCode::invalid_argument, model_path,
                           "a path component is not a directory");
    case EISDIR:
      return sandbox_error(ErrorCode::invalid_argument, model_path, "is a directory");
    case EACCES:
    case EPERM:
      return sandbox_error(ErrorCode::permission_denied, model_path,
                           std::string(action) + ": permission denied");
    case ENXIO:
      return sandbox_error(ErrorCode::permission_denied, model_path, "is a special file; refused");
    case ENAMETOOLONG:
      return sandbox_error(ErrorCode::invalid_argument, model_path, "name too long");
    case EAGAIN:
      return sandbox_error(ErrorCode::unavailable, model_path,
                           "the tree changed during resolution; try again");
    case EFBIG:
    case ENOSPC:
    case EDQUOT:
      return sandbox_error(ErrorCode::resource_exhausted, model_path,
                           std::string(action) + ": " + std::strerror(err));
    default:
      return sandbox_error(ErrorCode::internal, model_path,
                           std::string(action) + ": " + std::strerror(err));
  }
}

Result<Workspace> Workspace::open(const std::string& root, WorkspaceOptions options) {
  char buf[PATH_MAX];
  if (::realpath(root.c_str(), buf) == nullptr)
    return make_error(ErrorCode::invalid_argument,
                      "workspace root " + quote(root) + ": " + std::strerror(errno));
  int fd = ::open(buf, O_RDONLY | O_DIRECTORY | O_CLOEXEC);
  if (fd < 0)
    return make_error(ErrorCode::invalid_argument,
                      "workspace root " + quote(root) + ": " + std::strerror(errno));
  Workspace ws;
  ws.root_ = buf;
  ws.root_fd_.reset(fd);
  ws.options_ = options;
  switch (options.resolver) {
    case Resolver::automatic:
      ws.resolver_ = detail::kernel_has_openat2() ? Resolver::openat2 : Resolver::walk;
      break;
    case Resolver::openat2:
      if (!detail::kernel_has_openat2())
        return make_error(ErrorCode::unimplemented, "openat2(2) is not available on this kernel");
      ws.resolver_ = Resolver::openat2;
      break;
    case Resolver::walk:
      ws.resolver_ = Resolver::walk;
      break;
  }
  return ws;
}

Result<std::string> Workspace::relative(std::string_view model_path) const {
  if (model_path.empty())
    return sandbox_error(ErrorCode::invalid_argument, model_path, "path is empty");
  if (model_path.size() > kMaxPathBytes)
    return sandbox_error(ErrorCode::invalid_argument, model_path, "path is longer than 4096 bytes");
  if (model_path.find('\0') != std::string_view::npos)
    return sandbox_error(ErrorCode::invalid_argument, model_path, "path contains a NUL byte");
  std::string_view p = model_path;
  if (p.front() == '/') {
    std::string_view root = root_;
    bool under = p.substr(0, root.size()) == root &&
                 (p.size() == root.size() || p[root.size()] == '/' || root == "/");
    if (!under)
      return sandbox_error(
          ErrorCode::permission_denied, model_path,
          "absolute path outside the workspace; use a path relative to the workspace root");
    p.remove_prefix(root == "/" ? 1 : root.size());
  }
  // Keep `..` for the resolver (symlink semantics), but refuse lexical climbs
  // above the root early with the clearest message.
  std::string out;
  int depth = 0;
  size_t i = 0;
  while (i <= p.size()) {
    size_t j = p.find('/', i);
    if (j == std::string_view::npos) j = p.size();
    std::string_view c = p.substr(i, j - i);
    i = j + 1;
    if (c.empty() || c == ".") continue;
    depth += c == ".." ? -1 : 1;
    if (depth < 0)
      return sandbox_error(ErrorCode::permission_denied, model_path,
                           "path escapes the workspace root ('..')");
    if (!out.empty()) out += '/';
    out.append(c);
  }
  return out.empty() ? std::string(".") : out;
}

Result<UniqueFd> Workspace::resolve(const std::string& rel, int flags, unsigned mode,
                                    std::string_view model_path) const {
  int fd = resolver_ == Resolver::openat2
               ? detail::open_beneath_openat2(root_fd_.get(), rel, flags, mode)
               : detail::open_beneath_walk(root_fd_.get(), rel, flags, mode);
  if (fd < 0) return errno_error(-fd, model_path, "open");
  return UniqueFd(fd);
}

Result<UniqueFd> Workspace::open_beneath(std::string_view model_path, int flags,
                                         unsigned mode) const {
  auto rel = relative(model_path);
  if (!rel) return rel.error();
  return resolve(*rel, flags, mode, model_path);
}

Result<UniqueFd> Workspace::open_dir(std::string_view model_path) const {
  auto fd = open_beneath(model_path, O_RDONLY | O_DIRECTORY);
  if (!fd && fd.error().message.find("not a directory") != std::string::npos)
    return sandbox_error(ErrorCode::invalid_argument, model_path, "is not a directory");
  return fd;
}

Result<OpenedFile> Workspace::open_read(std::string_view model_path) const {
  auto rel = relative(model_path);
  if (!rel) return rel.error();
  // Look first through an O_PATH fd so FIFOs and devices are never opened.
  auto probe = resolve(*rel, O_PATH, 0, model_path);
  if (!probe) return probe.error();
  struct stat pst {};
  if (fstat(probe->get(), &pst) != 0) return errno_error(errno, model_path, "stat");
  auto check = [&](const struct stat& st) -> Status {
    TW_TRY(check_regular_file(st, model_path, "read", options_.allow_hard_links));
    if (static_cast<std::uint64_t>(st.st_size) > options_.max_read_bytes)
      return sandbox_error(ErrorCode::resource_exhausted, model_path,
                           "is " + std::to_string(st.st_size) + " bytes, over the " +
                               std::to_string(options_.max_read_bytes) + "-byte read cap");
    return Status::Ok();
  };
  TW_TRY(check(pst));
  // O_NONBLOCK: if a FIFO was swapped in since the probe, opening must not hang.
  auto fd = resolve(*rel, O_RDONLY | O_NONBLOCK, 0, model_path);
  if (!fd) return fd.error();
  OpenedFile out;
  if (fstat(fd->get(), &out.st) != 0) return errno_error(errno, model_path, "stat");
  if (out.st.st_dev != pst.st_dev || out.st.st_ino != pst.st_ino)
    return sandbox_error(ErrorCode::permission_denied, model_path,
                         "changed while being opened; refused");
  TW_TRY(check(out.st));
  int fl = fcntl(fd->get(), F_GETFL);
  if (fl >= 0) fcntl(fd->get(), F_SETFL, fl & ~O_NONBLOCK);
  out.fd = std::move(*fd);
  return out;
}

Result<std::string> Workspace::read_file(std::string_view model_path) const {
  auto f = open_read(model_path);
  if (!f) return f.error();
  std::string data;
  const std::uint64_t cap = options_.max_read_bytes;
  data.reserve(static_cast<size_t>(f->st.st_size));
  char buf[65536];
  for (;;) {
    ssize_t n = ::read(f->fd.get(), buf, sizeof buf);
    if (n < 0) {
      if (errno == EINTR) continue;
      return errno_error(errno, model_path, "read");
    }
    if (n == 0) break;
    data.append(buf, static_cast<size_t>(n));
    if (data.size() > cap)  // grew after the size check
      return sandbox_error(ErrorCode::resource_exhausted, model_path,
                           "is over the " + std::to_string(cap) + "-byte read cap");
  }
  return data;
}

Result<UniqueFd> Workspace::make_parents(const std::string& rel_dir,
                                         std::string_view model_path) const {
  auto whole = resolve(rel_dir, O_PATH | O_DIRECTORY, 0, model_path);
  if (whole || whole.error().code != ErrorCode::not_found) return whole;
  UniqueFd cur(::dup(root_fd_.get()));
  std::string prefix;
  size_t i = 0;
  while (i <= rel_dir.size()) {
    size_t j = rel_dir.find('/', i);
    if (j == std::string::npos) j = rel_dir.size();
    std::string name = rel_dir.substr(i, j - i);
    i = j + 1;
    prefix += (prefix.empty() ? "" : "/") + name;
    auto next = resolve(prefix, O_PATH | O_DIRECTORY, 0, model_path);
    if (!next && next.error().code == ErrorCode::not_found && name != "..") {
      if (mkdirat(cur.get(), name.c_str(), 0755) != 0 && errno != EEXIST)
        return errno_error(errno, model_path, "mkdir");
      next = resolve(prefix, O_PATH | O_DIRECTORY, 0, model_path);
    }
    if (!next) return next.error();
    cur = std::move(*next);
  }
  return cur;
}

Status Workspace::write_file(std::string_view model_path, std::string_view data,
                             bool create_parents) const {
  if (data.size() > options_.max_write_bytes)
    return sandbox_error(ErrorCode::resource_exhausted, model_path,
                         "content is " + std::to_string(data.size()) + " bytes, over the " +
                             std::to_string(options_.max_write_bytes) + "-byte write cap");
  auto rel = relative(model_path);
  if (!rel) return rel.error();
  if (*rel == ".") return sandbox_error(ErrorCode::invalid_argument, model_path, "is a directory");

  auto check = [&](const struct stat& st) -> Status {
    TW_TRY(check_regular_file(st, model_path, "written", options_.allow_hard_links));
    return Status::Ok();
  };

  UniqueFd fd;
  auto probe = resolve(*rel, O_PATH, 0, model_path);
  if (probe) {
    struct stat pst {};
    if (fstat(probe->get(), &pst) != 0) return errno_error(errno, model_path, "stat");
    TW_TRY(check(pst));
    // No O_TRUNC: the file is verified on this fd before it is truncated.
    auto wfd = resolve(*rel, O_WRONLY | O_NONBLOCK, 0, model_path);
    if (!wfd) return wfd.error();
    struct stat st {};
    if (fstat(wfd->get(), &st) != 0) return errno_error(errno, model_path, "stat");
    if (st.st_dev != pst.st_dev || st.st_ino != pst.st_ino)
      return sandbox_error(ErrorCode::permission_denied, model_path,
                           "changed while being opened; refused");
    TW_TRY(check(st));
    if (ftruncate(wfd->get(), 0) != 0) return errno_error(errno, model_path, "truncate");
    fd = std::move(*wfd);
  } else if (probe.error().code == ErrorCode::not_found) {
    size_t slash = rel->rfind('/');
    std::string parent = slash == std::string::npos ? "." : rel->substr(0, slash);
    std::string name = slash == std::string::npos ? *rel : rel->substr(slash + 1);
    if (name == "..")
      return sandbox_error(ErrorCode::invalid_argument, model_path, "is a directory");
    auto dir = create_parents ? make_parents(parent, model_path)
                              : resolve(parent, O_PATH | O_DIRECTORY, 0, model_path);
    if (!dir) return dir.error();
    // O_EXCL | O_NOFOLLOW: never follows a (dangling) symlink that appeared here.
    int raw = openat(dir->get(), name.c_str(),
                     O_WRONLY | O_CREAT | O_EXCL | O_NOFOLLOW | O_CLOEXEC | O_NOCTTY, 0644);
    if (raw < 0) {
      if (errno == EEXIST) {
        struct stat lst {};
        if (fstatat(dir->get(), name.c_str(), &lst, AT_SYMLINK_NOFOLLOW) == 0 &&
            S_ISLNK(lst.st_mode))
          return sandbox_error(ErrorCode::permission_denied, model_path,
                               "is a dangling symlink; refusing to create its target");
        return sandbox_error(ErrorCode::unavailable, model_path,
                             "appeared while being created; try again");
      }
      return errno_error(errno, model_path, "create");
    }
    fd.reset(raw);
  } else {
    return probe.error();
  }
  if (!write_all(fd.get(), data)) return errno_error(errno, model_path, "write");
  return Status::Ok();
}

}  // namespace toolwire::tools
