// Finds where one JSON object or array ends, fed in pieces.
//
// It tracks nesting and strings only (one look at each byte; string bodies
// are skipped with memchr); whether the value is valid JSON is checked once
// it has ended, by a real parser. A byte that cannot appear outside a string
// in JSON (a marker's `<`, prose) makes the scan `invalid`, so a broken call
// does not swallow the rest of the output.
#pragma once

#include <cstddef>
#include <string_view>

namespace toolwire::textformats {

class JsonScanner {
 public:
  enum class State { before, inside, done, invalid };
  // Scans `s` (the bytes after those already scanned). Returns how many bytes
  // belong to the value: all of `s` while inside; on done, up to and
  // including the closing bracket; on invalid, up to the offending byte.
  // Leading blanks count as consumed.
  size_t scan(std::string_view s);
  State state() const { return state_; }
  bool started() const { return state_ != State::before; }
  void reset() { *this = JsonScanner(); }

 private:
  State state_ = State::before;
  int depth_ = 0;
  bool in_string_ = false;
  bool escape_ = false;
};

}  // namespace toolwire::textformats
