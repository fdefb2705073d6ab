// toolwire/tools/sandbox.h — a workspace directory that model-supplied paths
// cannot leave.
//
// Every path a model gives is resolved *beneath* one root directory fd:
// `..` escapes, absolute paths outside the root, symlinks that point out of
// the root (also ones swapped in between a check and a use), hard-linked
// files (st_nlink > 1), devices, FIFOs and sockets are refused with a
// permission_denied / invalid_argument error that names the path the model
// gave. Resolution uses openat2(RESOLVE_BENEATH | RESOLVE_NO_MAGICLINKS) when
// the kernel has it, else a component walk with openat(O_NOFOLLOW) from the
// root fd; file I/O then goes through the returned fds, never by path again.
//
//   auto ws = toolwire::tools::Workspace::open("/srv/project");
//   if (!ws) return ws.error();
//   Result<std::string> text = ws->read_file("src/main.cc");   // ok
//   ws->read_file("../../etc/passwd");   // permission_denied: "path escapes the workspace"
//
// See docs/security.md for every attack the tests try and its outcome.
#pragma once

#include <sys/stat.h>
#include <cstdint>
#include <string>
#include <string_view>
#include <utility>

#include "toolwire/core/result.h"

namespace toolwire::tools {

// Owns one file descriptor; closes it on destruction.
class UniqueFd {
 public:
  UniqueFd() = default;
  explicit UniqueFd(int fd) : fd_(fd) {}
  UniqueFd(UniqueFd&& o) noexcept : fd_(std::exchange(o.fd_, -1)) {}
  UniqueFd& operator=(UniqueFd&& o) noexcept {
    if (this != &o) {
      reset();
      fd_ = std::exchange(o.fd_, -1);
    }
    return *this;
  }
  UniqueFd(const UniqueFd&) = delete;
  UniqueFd& operator=(const UniqueFd&) = delete;
  ~UniqueFd() { reset(); }

  int get() const { return fd_; }
  bool valid() const { return fd_ >= 0; }
  int release() { return std::exchange(fd_, -1); }
  void reset(int fd = -1);

 private:
  int fd_ = -1;
};

// How paths are resolved beneath the root. `automatic` uses openat2 when the
// kernel supports it and falls back to the component walk otherwise; the
// other two force one mechanism (tests run the attack suite under both).
enum class Resolver { automatic, openat2, walk };

struct WorkspaceOptions {
  Resolver resolver = Resolver::automatic;
  std::uint64_t max_read_bytes = 16u << 20;   // files larger than this are refused
  std::uint64_t max_write_bytes = 16u << 20;  // content larger than this is refused
  bool allow_hard_links = false;              // refuse regular files with st_nlink > 1
};

// A regular file opened inside the workspace, with its stat at open time.
struct OpenedFile {
  UniqueFd fd;
  struct stat st {};
};

class Workspace {
 public:
  // Opens `root` (which must be an existing directory) as the workspace.
  static Result<Workspace> open(const std::string& root, WorkspaceOptions options = {});

  const std::string& root() const { return root_; }  // canonical absolute path
  int root_fd() const { return root_fd_.get(); }
  const WorkspaceOptions& options() const { return options_; }
  Resolver resolver_in_use() const { return resolver_; }

  // Turns a model-given path into a clean relative path ("." for the root):
  // absolute paths must lie under root(); `..` that climbs above the root,
  // NUL bytes and empty paths are refused. Does not touch the filesystem.
  Result<std::string> relative(std::string_view model_path) const;

  // Resolves `model_path` beneath the root and opens it with `flags`
  // (O_CLOEXEC | O_NOCTTY are always added). Symlinks inside the root are
  // followed; anything that leaves it fails with permission_denied.
  Result<UniqueFd> open_beneath(std::string_view model_path, int flags, unsigned mode = 0) const;

  // A directory inside the workspace, opened O_RDONLY | O_DIRECTORY.
  Result<UniqueFd> open_dir(std::string_view model_path) const;

  // A regular file for reading: refuses special files, hard-linked files and
  // files larger than max_read_bytes (resource_exhausted).
  Result<OpenedFile> open_read(std::string_view model_path) const;
  Result<std::string> read_file(std::string_view model_path) const;

  // Writes `data` to a regular file, creating it (and missing parent
  // directories when `create_parents`) if absent. An existing target must be
  // a regular, singly-linked file; it is verified on the fd before truncation.
  Status write_file(std::string_view model_path, std::string_view data,
                    bool create_parents = true) const;

 private:
  Workspace() = default;
  Result<UniqueFd> resolve(const std::string& rel, int flags, unsigned mode,
                           std::string_view model_path) const;
  Result<UniqueFd> make_parents(const std::string& rel_dir, std::string_view model_path) const;

  std::string root_;
  UniqueFd root_fd_;
  WorkspaceOptions options_;
  Resolver resolver_ = Resolver::walk;
};

// Error helpers shared by the built-in tools: the message always names the
// path as the model wrote it.
Error sandbox_error(ErrorCode code, std::string_view model_path, std::string_view what);
Error errno_error(int err, std::string_view model_path, std::string_view action);

}  // namespace toolwire::tools
