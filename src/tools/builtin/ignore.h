// Private: the ignore files grep and glob honour by default, as ripgrep does:
// `.gitignore` and `.ignore` in every directory walked, `.git/info/exclude`
// at the workspace root. Files are read through directory fds (never
// following a symlink), so the rules obey the sandbox like every other read.
#pragma once

#include <cstddef>
#include <string>
#include <string_view>
#include <vector>

namespace toolwire::tools {
class Workspace;
}

namespace toolwire::tools::builtin {

// One ignore file's patterns (gitignore syntax): `#` comments, `!` negation,
// a leading or inner `/` anchors the pattern to the file's directory, a
// trailing `/` matches directories only, `*` `?` `[a-z]` `[!a]` stay inside
// one path component, `**` as a whole component matches any number of them,
// `\` escapes the next character. Within a file the last matching pattern
// decides.
class IgnoreRules {
 public:
  enum class Verdict { none, ignore, include };

  // `base` is the directory holding the file, relative to the workspace
  // root ("" for the root itself).
  static IgnoreRules parse(std::string_view text, std::string base);

  // `path` is relative to the workspace root.
  Verdict match(std::string_view path, bool is_dir) const;
  bool empty() const { return patterns_.empty(); }

 private:
  struct Pattern {
    std::vector<std::string> parts;  // '/'-separated components; "**" as its own part
    bool negate = false;
    bool dir_only = false;
  };
  std::string base_;
  std::vector<Pattern> patterns_;
};

// The rules in force at one point of a walk: `.git/info/exclude`, then each
// directory's `.gitignore` and `.ignore` from the root down. Later rules win
// (a deeper file over a shallower one, `.ignore` over `.gitignore`), as in
// ripgrep. A walk starting in a subdirectory also obeys the files of the
// directories above it, up to the workspace root.
class IgnoreStack {
 public:
  // Loads `.git/info/exclude` and the files of every directory from the root
  // down to `start`'s parent; `start` is the walk's first directory, relative
  // to the root ("" or "." for the root).
  IgnoreStack(const Workspace& ws, std::string_view start);

  // Called by the walk on entering a directory (`rel` relative to the walk's
  // start): reads its `.gitignore` and `.ignore`.
  void enter(int dir_fd, std::string_view rel);
  size_t depth() const { return rules_.size(); }
  void pop_to(size_t depth) { rules_.resize(depth); }

  // Whether `rel` (relative to the walk's start) is ignored. `.git` never
  // shows up while ignore files are honoured.
  bool ignored(std::string_view rel, std::string_view name, bool is_dir) const;

 private:
  std::string from_root(std::string_view rel) const;
  void load(int dir_fd, const char* name, const std::string& base);

  std::string start_;  // relative to the root, "" for the root
  bool allow_hard_links_ = false;
  std::vector<IgnoreRules> rules_;
};

}  // namespace toolwire::tools::builtin
