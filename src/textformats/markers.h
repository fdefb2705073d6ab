// Marker search with hold-back: the one way every family finds its markup.
//
// find() returns the earliest full occurrence of any marker in `hay`; when
// there is none it returns where a marker could still begin (a suffix of
// `hay` that is a prefix of a marker), so the caller emits only what is
// before that. At the end of output (`final`) partial prefixes do not count.
// Candidate positions are found by their first byte (memchr when the markers
// share one; for up to four distinct ones, one pass comparing 64 bytes at a
// time with each, SSE2, or memchr for each in windows that double as the scan
// goes where there is no SSE2), so text without marker bytes is skipped at
// memory speed.
#pragma once

#include <array>
#include <cstddef>
#include <cstdint>
#include <initializer_list>
#include <span>
#include <string_view>
#include <vector>

namespace toolwire::textformats {

class MarkerSet {
 public:
  MarkerSet(std::initializer_list<std::string_view> markers)
      : MarkerSet(std::span<const std::string_view>(markers.begin(), markers.size())) {}
  // Empty entries are left out.
  explicit MarkerSet(std::span<const std::string_view> markers);

  struct Hit {
    size_t pos;  // start of the marker, or of a possible one (hay.size(): none)
    int which;   // index of the marker found, -1 when none (pos is a hold-back point)
  };
  Hit find(std::string_view hay, bool final) const;
  std::string_view marker(int i) const { return markers_[static_cast<size_t>(i)]; }

 private:
  // What starts at hay[i]: a marker, a possible longer one that began at
  // `hold` (pos = hold), or nothing (pos = hay.size(); hold may be set).
  Hit at(std::string_view hay, size_t i, bool final, size_t& hold) const;
  // find() for two (K = 2) to four (K = 4) distinct first bytes.
  template <size_t K>
  Hit find_few(std::string_view hay, bool final) const;

  std::vector<std::string_view> markers_;  // at most 8
  std::array<uint8_t, 256> by_first_{};    // the markers (bits) each byte starts
  std::array<unsigned char, 4> firsts_{};  // the distinct first bytes, when few
  size_t nfirsts_ = 0;                     // their number; 0: more than four
};

// Markup that more than one family writes.
namespace tag {
inline constexpr std::string_view tool_call = "<tool_call>";
inline constexpr std::string_view tool_call_end = "</tool_call>";
inline constexpr std::string_view function = "<function=";
inline constexpr std::string_view function_end = "</function>";
inline constexpr std::string_view python_tag = "<|python_tag|>";
inline constexpr std::string_view tool_calls = "[TOOL_CALLS]";
}  // namespace tag

// True when `s` is blank (spaces, tabs, line breaks).
inline bool is_space(char c) { return c == ' ' || c == '\n' || c == '\r' || c == '\t'; }
inline size_t skip_space(std::string_view s, size_t i = 0) {
  while (i < s.size() && is_space(s[i])) ++i;
  return i;
}
inline std::string_view trim(std::string_view s) {
  size_t b = skip_space(s);
  size_t e = s.size();
  while (e > b && is_space(s[e - 1])) --e;
  return s.substr(b, e - b);
}

// `s` is a proper prefix of `m` (more input could complete it).
inline bool is_prefix_of(std::string_view s, std::string_view m) {
  return s.size() < m.size() && m.substr(0, s.size()) == s;
}

// More input could still change what `t` begins with: it is empty, or a
// proper prefix of one of `words` (never at the end of output).
inline bool undecided(std::string_view t, bool final,
                      std::initializer_list<std::string_view> words = {}) {
  if (final) return false;
  if (t.empty()) return true;
  for (std::string_view w : words)
    if (is_prefix_of(t, w)) return true;
  return false;
}

}  // namespace toolwire::textformats
