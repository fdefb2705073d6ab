// gitignore rules and the stack of them a walk obeys; see ignore.h.
#include "tools/builtin/ignore.h"

#include <fcntl.h>
#include <sys/stat.h>
#include <unistd.h>

#include <cerrno>
#include <cstdint>

#include "tools/builtin/walk.h"
#include "toolwire/tools/sandbox.h"

namespace toolwire::tools::builtin {
namespace {

constexpr size_t kMaxIgnoreFileBytes = 1 << 20;  // larger files are not read

// Pattern components against path components; `**` matches any number of
// components, but at least one when it ends the pattern ("a/**" is what is
// inside a, not a itself). Memoised: a few `**` never cost more than
// parts x components steps.
bool match_parts(const std::vector<std::string>& pp, const std::vector<std::string_view>& sc) {
  std::vector<unsigned char> memo((pp.size() + 1) * (sc.size() + 1), 0);  // 0 unknown, 1 no, 2 yes
  auto go = [&](auto& self, size_t i, size_t j) -> bool {
    unsigned char& m = memo[i * (sc.size() + 1) + j];
    if (m) return m == 2;
    bool r;
    if (i == pp.size())
      r = j == sc.size();
    else if (pp[i] == "**" && i + 1 == pp.size())
      r = j < sc.size();
    else if (pp[i] == "**")
      r = self(self, i + 1, j) || (j < sc.size() && self(self, i, j + 1));
    else
      r = j < sc.size() && glob_component_match(pp[i], sc[j]) && self(self, i + 1, j + 1);
    m = r ? 2 : 1;
    return r;
  };
  return go(go, 0, 0);
}

}  // namespace

IgnoreRules IgnoreRules::parse(std::string_view text, std::string base) {
  IgnoreRules rules;
  rules.base_ = std::move(base);
  while (!text.empty()) {
    size_t nl = text.find('\n');
    std::string_view line = text.substr(0, nl);
    text.remove_prefix(nl == std::string_view::npos ? text.size() : nl + 1);
    if (!line.empty() && line.back() == '\r') line.remove_suffix(1);
    if (line.empty() || line.front() == '#') continue;
    Pattern p;
    if (line.front() == '!') {
      p.negate = true;
      line.remove_prefix(1);
    }
    // Trailing spaces are dropped unless escaped ("a\ ").
    while (!line.empty() && line.back() == ' ' &&
           !(line.size() >= 2 && line[line.size() - 2] == '\\'))
      line.remove_suffix(1);
    if (!line.empty() && line.back() == '/') {
      p.dir_only = true;
      while (!line.empty() && line.back() == '/') line.remove_suffix(1);
    }
    if (line.empty()) continue;
    // A '/' at the start or in the middle anchors the pattern to `base`;
    // otherwise it matches at any depth below it.
    bool anchored = line.find('/') != std::string_view::npos;
    if (!anchored) p.parts.emplace_back("**");
    for (std::string_view part : path_components(line)) p.parts.emplace_back(part);
    if (p.parts.empty()) continue;
    rules.patterns_.push_back(std::move(p));
  }
  return rules;
}

IgnoreRules::Verdict IgnoreRules::match(std::string_view path, bool is_dir) const {
  if (!base_.empty()) {
    if (path.size() <= base_.size() || !path.starts_with(base_) || path[base_.size()] != '/')
      return Verdict::none;
    path.remove_prefix(base_.size() + 1);
  }
  auto components = path_components(path);
  for (auto it = patterns_.rbegin(); it != patterns_.rend(); ++it) {
    if (it->dir_only && !is_dir) continue;
    if (match_parts(it->parts, components)) return it->negate ? Verdict::include : Verdict::ignore;
  }
  return Verdict::none;
}

IgnoreStack::IgnoreStack(const Workspace& ws, std::string_view start)
    : start_(start == "." ? std::string_view() : start),
      allow_hard_links_(ws.options().allow_hard_links) {
  UniqueFd git(openat(ws.root_fd(), ".git", O_RDONLY | O_DIRECTORY | O_NOFOLLOW | O_CLOEXEC));
  if (git.valid()) {
    UniqueFd info(openat(git.get(), "info", O_RDONLY | O_DIRECTORY | O_NOFOLLOW | O_CLOEXEC));
    if (info.valid()) load(info.get(), "exclude", "");
  }
  if (start_.empty()) return;  // the walk reads the root's own files
  // The directories above the start, from the root down; the walk reads the
  // start's own files when it enters it.
  std::string dir;  // "" for the root
  auto parts = path_components(start_);
  for (size_t i = 0; i < parts.size(); ++i) {
    auto fd = ws.open_dir(dir.empty() ? "." : dir);
    if (!fd) break;
    load(fd->get(), ".gitignore", dir);
    load(fd->get(), ".ignore", dir);
    dir += (dir.empty() ? "" : "/") + std::string(parts[i]);
  }
}

void IgnoreStack::enter(int dir_fd, std::string_view rel) {
  std::string base = from_root(rel);
  load(dir_fd, ".gitignore", base);
  load(dir_fd, ".ignore", base);
}

bool IgnoreStack::ignored(std::string_view rel, std::string_view name, bool is_dir) const {
  if (name == ".git") return true;
  std::string path = from_root(rel);
  for (auto it = rules_.rbegin(); it != rules_.rend(); ++it) {
    auto v = it->match(path, is_dir);
    if (v != IgnoreRules::Verdict::none) return v == IgnoreRules::Verdict::ignore;
  }
  return false;
}

std::string IgnoreStack::from_root(std::string_view rel) const {
  if (start_.empty()) return std::string(rel);
  if (rel.empty()) return start_;
  return start_ + "/" + std::string(rel);
}

// Same policy as `read`: a regular file, singly linked unless hard links are
// allowed, never through a symlink; anything else is not read.
void IgnoreStack::load(int dir_fd, const char* name, const std::string& base) {
  UniqueFd fd(openat(dir_fd, name, O_RDONLY | O_NOFOLLOW | O_NONBLOCK | O_CLOEXEC | O_NOCTTY));
  struct stat st {};
  if (!fd.valid() || fstat(fd.get(), &st) != 0 || !S_ISREG(st.st_mode)) return;
  if (st.st_nlink > 1 && !allow_hard_links_) return;
  if (static_cast<std::uint64_t>(st.st_size) > kMaxIgnoreFileBytes) return;
  std::string text;
  char buf[16384];
  while (text.size() <= kMaxIgnoreFileBytes) {
    ssize_t n = ::read(fd.get(), buf, sizeof buf);
    if (n < 0 && errno == EINTR) continue;
    if (n <= 0) break;
    text.append(buf, static_cast<size_t>(n));
  }
  IgnoreRules rules = IgnoreRules::parse(text, base);
  if (!rules.empty()) rules_.push_back(std::move(rules));
}

}  // namespace toolwire::tools::builtin
