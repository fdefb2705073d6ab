// sse_respace.h — header-only test helper: an SSE stream with a space after
// every ':' and ',' outside JSON strings on its data lines. For valid JSON
// that means the same, and no stream decoder fast path accepts it, so each
// event takes the full path (tests/translate/stream_fast_path_test.cc and
// tests/fuzz/fuzz_stream_fast_path.cc compare the two).
#pragma once

#include <string>
#include <string_view>

namespace toolwire::testing {

// Where a scan of JSON text is: inside a string or not. Feed it each byte in
// order; `outside` is true while the byte just fed is outside any string
// (the quotes themselves count as inside).
class JsonStringState {
 public:
  // Takes `c`; returns true if `c` is outside every string.
  bool outside(char c) {
    if (in_string_) {
      if (escaped_)
        escaped_ = false;
      else if (c == '\\')
        escaped_ = true;
      else if (c == '"')
        in_string_ = false;
      return false;
    }
    if (c == '"') {
      in_string_ = true;
      return false;
    }
    return true;
  }

 private:
  bool in_string_ = false;
  bool escaped_ = false;
};

inline std::string respace(std::string_view sse) {
  std::string out;
  size_t pos = 0;
  while (pos < sse.size()) {
    size_t eol = sse.find('\n', pos);
    if (eol == std::string_view::npos) eol = sse.size();
    const std::string_view line = sse.substr(pos, eol - pos);
    if (line.starts_with("data:")) {
      JsonStringState state;
      for (size_t i = 0; i < line.size(); ++i) {
        const char c = line[i];
        out.push_back(c);
        if (i < 5) continue;  // the field name's own ':'
        if (state.outside(c) && (c == ':' || c == ',')) out.push_back(' ');
      }
    } else {
      out.append(line);
    }
    if (eol < sse.size()) out.push_back('\n');
    pos = eol + 1;
  }
  return out;
}

// Raw JSON without the spaces outside its strings: what a value respace()
// touched compares equal to its original after this (the decoders keep a
// member they do not know, such as a stream's envelope extras, as its source
// text, spaces included).
inline std::string unspace_json(std::string_view json) {
  std::string out;
  out.reserve(json.size());
  JsonStringState state;
  for (char c : json)
    if (!state.outside(c) || c != ' ') out.push_back(c);
  return out;
}

}  // namespace toolwire::testing
