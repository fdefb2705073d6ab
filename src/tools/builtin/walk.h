// Private: a directory walker over fds (never follows symlinks, skips .git)
// and the glob matcher used by `glob` and grep's include filter.
#pragma once

#include <dirent.h>
#include <functional>
#include <string>
#include <string_view>
#include <vector>

namespace toolwire::tools::builtin {

struct WalkEntry {
  std::string rel;     // path relative to the walk's start, "a/b.txt"
  const char* name;    // last component
  unsigned char type;  // DT_REG, DT_DIR, DT_LNK, ...
  int parent_fd;       // directory fd holding `name` (valid during the callback)
};

class IgnoreStack;

// Depth-first in sorted name order. `visit` returns false to stop. Entries
// past `max_entries` are not visited and set *truncated.
// `max_depth` 0 lists one level only. With `ignore`, what its rules ignore
// (and `.git`) is neither visited nor counted; each directory's ignore files
// are read as the walk enters it.
void walk_tree(int dir_fd, size_t max_entries, const std::function<bool(const WalkEntry&)>& visit,
               bool* truncated, int max_depth = 64, IgnoreStack* ignore = nullptr);

// Glob over '/'-separated paths: `**` (whole component) matches zero or more
// components, `*` and `?` stay inside one component, `[a-z]` / `[!a]`
// classes, `{a,b}` alternatives.
bool glob_match(std::string_view pattern, std::string_view path);
// One path component against one pattern component (neither holds '/'): `*`,
// `?`, `\x` escapes, `[...]` classes. Shared with the ignore-file rules.
bool glob_component_match(std::string_view pattern, std::string_view name);

// The non-empty components of a '/'-separated path ("a//b/" → a, b).
std::vector<std::string_view> path_components(std::string_view path);

}  // namespace toolwire::tools::builtin
