// Private: the two ways of opening a relative path beneath a root dir fd.
// Both return an fd or -errno; EXDEV means "would leave the root".
#pragma once

#include <string>

namespace toolwire::tools::detail {

// True when openat2(2) with RESOLVE_BENEATH works on this kernel (cached).
bool kernel_has_openat2();

// openat2(root_fd, rel, {flags, mode, RESOLVE_BENEATH | RESOLVE_NO_MAGICLINKS}),
// retried on EAGAIN (a concurrent rename somewhere in the tree).
int open_beneath_openat2(int root_fd, const std::string& rel, int flags, unsigned mode);

// The same contract by hand: walk components with openat(O_NOFOLLOW) from
// root_fd, expand symlinks ourselves (absolute targets and `..` above the root
// give EXDEV), handle `..` with our own stack of directory fds.
int open_beneath_walk(int root_fd, const std::string& rel, int flags, unsigned mode);

}  // namespace toolwire::tools::detail
