// Directory walk over fds and glob matching; see walk.h.
#include "tools/builtin/walk.h"

#include <fcntl.h>
#include <sys/stat.h>
#include <unistd.h>
#include <algorithm>
#include <utility>
#include <vector>

#include "tools/builtin/ignore.h"
#include "toolwire/tools/sandbox.h"

namespace toolwire::tools::builtin {
namespace {

constexpr int kMaxDepth = 64;
constexpr size_t kMaxBraceExpansions = 64;

struct Walker {
  size_t max_entries;
  int max_depth;
  const std::function<bool(const WalkEntry&)>& visit;
  bool* truncated;
  IgnoreStack* ignore;
  size_t seen = 0;

  // Returns false when the walk must stop.
  bool dir(int fd, const std::string& prefix, int depth) {
    int dup_fd = ::dup(fd);
    if (dup_fd < 0) return true;
    DIR* d = fdopendir(dup_fd);
    if (!d) {
      ::close(dup_fd);
      return true;
    }
    std::vector<std::pair<std::string, unsigned char>> names;
    while (dirent* e = readdir(d)) {
      std::string_view n = e->d_name;
      if (n == "." || n == "..") continue;
      unsigned char t = e->d_type;
      if (t == DT_UNKNOWN) {
        struct stat st {};
        if (fstatat(fd, e->d_name, &st, AT_SYMLINK_NOFOLLOW) == 0)
          t = S_ISDIR(st.st_mode)   ? DT_DIR
              : S_ISREG(st.st_mode) ? DT_REG
              : S_ISLNK(st.st_mode) ? DT_LNK
                                    : DT_FIFO;
      }
      names.emplace_back(std::string(n), t);
    }
    closedir(d);
    std::sort(names.begin(), names.end());
    if (!ignore) return entries(fd, prefix, depth, names);
    size_t rules = ignore->depth();
    ignore->enter(fd, prefix);
    bool go_on = entries(fd, prefix, depth, names);
    ignore->pop_to(rules);
    return go_on;
  }

  bool entries(int fd, const std::string& prefix, int depth,
               const std::vector<std::pair<std::string, unsigned char>>& names) {
    for (auto& [name, type] : names) {
      std::string rel = prefix.empty() ? name : prefix + "/" + name;
      if (ignore && ignore->ignored(rel, name, type == DT_DIR)) continue;
      if (++seen > max_entries) {
        *truncated = true;
        return false;
      }
      if (!visit(WalkEntry{rel, name.c_str(), type, fd})) return false;
      if (type != DT_DIR || name == ".git") continue;
      if (depth >= max_depth) {
        if (max_depth >= kMaxDepth) *truncated = true;
        continue;
      }
      // O_NOFOLLOW: a directory swapped for a symlink since readdir is skipped.
      UniqueFd sub(openat(fd, name.c_str(), O_RDONLY | O_DIRECTORY | O_NOFOLLOW | O_CLOEXEC));
      if (!sub.valid()) continue;
      if (!dir(sub.get(), rel, depth + 1)) return false;
    }
    return true;
  }
};

// Matches the pattern element at p[pi] (a character, `?`, `\x` or a `[...]`
// class) against `c`; sets `next` past the element.
bool match_one(std::string_view p, size_t pi, unsigned char c, size_t& next) {
  char pc = p[pi];
  if (pc == '\\' && pi + 1 < p.size()) {
    next = pi + 2;
    return static_cast<unsigned char>(p[pi + 1]) == c;
  }
  if (pc == '?') {
    next = pi + 1;
    return true;
  }
  if (pc == '[') {
    size_t j = pi + 1;
    bool neg = j < p.size() && (p[j] == '!' || p[j] == '^');
    if (neg) ++j;
    bool hit = false;
    size_t k = j;
    for (; k < p.size() && (k == j || p[k] != ']'); ++k) {
      auto take = [&](size_t& at) {
        if (p[at] == '\\' && at + 1 < p.size()) ++at;
        return static_cast<unsigned char>(p[at]);
      };
      unsigned char lo = take(k), hi = lo;
      if (k + 2 < p.size() && p[k + 1] == '-' && p[k + 2] != ']') {
        k += 2;
        hi = take(k);
      }
      if (c >= lo && c <= hi) hit = true;
    }
    if (k < p.size()) {
      next = k + 1;
      return hit != neg;
    }
    // An unclosed '[' is a literal.
  }
  next = pi + 1;
  return static_cast<unsigned char>(pc) == c;
}

// One path component against one pattern component (neither holds '/').
bool match_component(std::string_view p, std::string_view s) {
  constexpr size_t npos = std::string_view::npos;
  size_t pi = 0, si = 0, star_p = npos, star_s = 0;
  while (si < s.size()) {
    if (pi < p.size() && p[pi] == '*') {
      while (pi < p.size() && p[pi] == '*') ++pi;
      star_p = pi;
      star_s = si;
      continue;
    }
    size_t next = 0;
    if (pi < p.size() && match_one(p, pi, static_cast<unsigned char>(s[si]), next)) {
      pi = next;
      ++si;
      continue;
    }
    if (star_p == npos) return false;
    pi = star_p;
    si = ++star_s;
  }
  while (pi < p.size() && p[pi] == '*') ++pi;
  return pi == p.size();
}

bool match_expanded(std::string_view pattern, std::string_view path) {
  auto pc = path_components(pattern);
  auto sc = path_components(path);
  // memo[i][j]: pattern components from i match path components from j (0 unknown, 1 no, 2 yes)
  std::vector<unsigned char> memo((pc.size() + 1) * (sc.size() + 1), 0);
  std::function<bool(size_t, size_t)> go = [&](size_t i, size_t j) -> bool {
    unsigned char& m = memo[i * (sc.size() + 1) + j];
    if (m) return m == 2;
    bool r;
    if (i == pc.size())
      r = j == sc.size();
    else if (pc[i] == "**")
      r = go(i + 1, j) || (j < sc.size() && go(i, j + 1));
    else
      r = j < sc.size() && match_component(pc[i], sc[j]) && go(i + 1, j + 1);
    m = r ? 2 : 1;
    return r;
  };
  return go(0, 0);
}

void expand_braces(const std::string& p, std::vector<std::string>& out) {
  if (out.size() >= kMaxBraceExpansions) return;
  size_t open = p.find('{');
  if (open == std::string::npos) {
    out.push_back(p);
    return;
  }
  int depth = 0;
  size_t close = std::string::npos;
  std::vector<size_t> commas;
  for (size_t i = open; i < p.size(); ++i) {
    if (p[i] == '{')
      ++depth;
    else if (p[i] == '}' && --depth == 0) {
      close = i;
      break;
    } else if (p[i] == ',' && depth == 1)
      commas.push_back(i);
  }
  if (close == std::string::npos) {
    out.push_back(p);
    return;
  }
  size_t start = open + 1;
  commas.push_back(close);
  for (size_t c : commas) {
    expand_braces(p.substr(0, open) + p.substr(start, c - start) + p.substr(close + 1), out);
    start = c + 1;
  }
}

}  // namespace

void walk_tree(int dir_fd, size_t max_entries, const std::function<bool(const WalkEntry&)>& visit,
               bool* truncated, int max_depth, IgnoreStack* ignore) {
  Walker w{max_entries, std::min(max_depth, kMaxDepth), visit, truncated, ignore};
  w.dir(dir_fd, "", 0);
}

std::vector<std::string_view> path_components(std::string_view path) {
  std::vector<std::string_view> out;
  size_t i = 0;
  while (i <= path.size()) {
    size_t j = path.find('/', i);
    if (j == std::string_view::npos) j = path.size();
    if (j > i) out.push_back(path.substr(i, j - i));
    i = j + 1;
  }
  return out;
}

bool glob_match(std::string_view pattern, std::string_view path) {
  std::vector<std::string> alts;
  expand_braces(std::string(pattern), alts);
  for (const auto& a : alts)
    if (match_expanded(a, path)) return true;
  return false;
}

bool glob_component_match(std::string_view pattern, std::string_view name) {
  return match_component(pattern, name);
}

}  // namespace toolwire::tools::builtin
