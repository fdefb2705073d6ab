#include "dialects/common/json_fault.h"

#include <simdjson.h>

#include <vector>

namespace toolwire::dialects::json {
namespace {

// Length of the valid UTF-8 sequence at p (RFC 3629: no overlongs, no
// surrogates, nothing past U+10FFFF), or 0.
size_t utf8_sequence(const unsigned char* p, size_t left) {
  const unsigned char c = p[0];
  if (c < 0x80) return 1;
  auto cont = [&](size_t i, unsigned char lo = 0x80, unsigned char hi = 0xBF) {
    return i < left && p[i] >= lo && p[i] <= hi;
  };
  if (c >= 0xC2 && c <= 0xDF) return cont(1) ? 2 : 0;
  if (c >= 0xE0 && c <= 0xEF) {
    const unsigned char lo = c == 0xE0 ? 0xA0 : 0x80, hi = c == 0xED ? 0x9F : 0xBF;
    return cont(1, lo, hi) && cont(2) ? 3 : 0;
  }
  if (c >= 0xF0 && c <= 0xF4) {
    const unsigned char lo = c == 0xF0 ? 0x90 : 0x80, hi = c == 0xF4 ? 0x8F : 0xBF;
    return cont(1, lo, hi) && cont(2) && cont(3) ? 4 : 0;
  }
  return 0;
}

int hex_value(char c) {
  if (c >= '0' && c <= '9') return c - '0';
  if (c >= 'a' && c <= 'f') return c - 'a' + 10;
  if (c >= 'A' && c <= 'F') return c - 'A' + 10;
  return -1;
}

bool is_digit(char c) { return c >= '0' && c <= '9'; }

class Scanner {
 public:
  Scanner(std::string_view text, size_t max_depth) : s_(text), max_depth_(max_depth) {}

  std::optional<JsonFault> run() {
    ws();
    for (;;) {
      // A value.
      if (!value()) return fault_;
      // What may follow it: a comma, the closing bracket, or the end.
      for (;;) {
        ws();
        if (stack_.empty()) {
          if (pos_ == s_.size()) return std::nullopt;
          return fail(pos_, "unexpected content after the JSON value");
        }
        const char close = stack_.back() == '{' ? '}' : ']';
        if (pos_ == s_.size()) return fail(pos_, "unexpected end of input");
        if (s_[pos_] == close) {
          stack_.pop_back();
          ++pos_;
          continue;
        }
        if (s_[pos_] != ',') {
          return fail(pos_, close == '}' ? "expected ',' or '}' after an object member"
                                         : "expected ',' or ']' after an array element");
        }
        ++pos_;
        ws();
        if (stack_.back() == '{' && !member_key()) return fault_;
        break;
      }
    }
  }

 private:
  std::optional<JsonFault> fail(size_t at, std::string reason) {
    fault_ = JsonFault{at, std::move(reason)};
    return fault_;
  }

  void ws() {
    while (pos_ < s_.size() &&
           (s_[pos_] == ' ' || s_[pos_] == '\t' || s_[pos_] == '\n' || s_[pos_] == '\r'))
      ++pos_;
  }

  // A key and its colon; leaves pos_ at the member's value.
  bool member_key() {
    if (pos_ == s_.size()) return (fail(pos_, "unexpected end of input"), false);
    if (s_[pos_] != '"') return (fail(pos_, "expected a string key"), false);
    if (!string()) return false;
    ws();
    if (pos_ == s_.size()) return (fail(pos_, "unexpected end of input"), false);
    if (s_[pos_] != ':') return (fail(pos_, "expected ':' after an object key"), false);
    ++pos_;
    ws();
    return true;
  }

  // One value; an opened non-empty container leaves pos_ at its first element
  // (whose value the caller's loop reads next) — so containers of any depth
  // need no recursion.
  bool value() {
    for (;;) {
      if (pos_ == s_.size()) return (fail(pos_, "unexpected end of input"), false);
      const char c = s_[pos_];
      if (c == '{' || c == '[') {
        const size_t open = pos_++;
        ws();
        if (pos_ < s_.size() && s_[pos_] == (c == '{' ? '}' : ']')) {  // empty: no new level
          ++pos_;
          return true;
        }
        stack_.push_back(c);
        if (stack_.size() >= max_depth_)
          return (fail(open, "nested more than " + std::to_string(max_depth_ - 1) + " levels deep"),
                  false);
        if (c == '{' && !member_key()) return false;
        continue;  // the first element
      }
      if (c == '"') return string();
      if (c == '-' || is_digit(c)) return number();
      if (c == 't') return literal("true");
      if (c == 'f') return literal("false");
      if (c == 'n') return literal("null");
      return (fail(pos_, "expected a JSON value"), false);
    }
  }

  bool literal(std::string_view word) {
    for (size_t i = 0; i < word.size(); ++i, ++pos_) {
      if (pos_ == s_.size()) return (fail(pos_, "unexpected end of input"), false);
      if (s_[pos_] != word[i])
        return (fail(pos_, "invalid literal (expected " + std::string(word) + ")"), false);
    }
    return true;
  }

  bool string() {
    const size_t open = pos_++;
    while (pos_ < s_.size()) {
      const auto c = static_cast<unsigned char>(s_[pos_]);
      if (c == '"') {
        ++pos_;
        return true;
      }
      if (c < 0x20) return (fail(pos_, "unescaped control character in a string"), false);
      if (c == '\\') {
        if (!escape()) return false;
        continue;
      }
      const size_t n =
          utf8_sequence(reinterpret_cast<const unsigned char*>(s_.data()) + pos_, s_.size() - pos_);
      if (n == 0) return (fail(pos_, "invalid UTF-8 in a string"), false);
      pos_ += n;
    }
    return (
        fail(pos_, "unexpected end of input in the string opened at byte " + std::to_string(open)),
        false);
  }

  // \uXXXX's value, reading from pos_ (at the backslash); -1 after a fault.
  int unicode_escape() {
    int v = 0;
    for (size_t i = 2; i < 6; ++i) {
      if (pos_ + i >= s_.size()) return (fail(s_.size(), "unexpected end of input"), -1);
      const int h = hex_value(s_[pos_ + i]);
      if (h < 0) return (fail(pos_ + i, "expected 4 hex digits after \\u"), -1);
      v = v * 16 + h;
    }
    return v;
  }

  bool escape() {
    const size_t at = pos_;
    if (pos_ + 1 >= s_.size()) return (fail(s_.size(), "unexpected end of input"), false);
    const char e = s_[pos_ + 1];
    if (e == '"' || e == '\\' || e == '/' || e == 'b' || e == 'f' || e == 'n' || e == 'r' ||
        e == 't') {
      pos_ += 2;
      return true;
    }
    if (e != 'u') return (fail(pos_ + 1, "invalid escape character"), false);
    const int v = unicode_escape();
    if (v < 0) return false;
    pos_ += 6;
    if (v >= 0xDC00 && v <= 0xDFFF)
      return (fail(at, "UTF-16 low surrogate without a high one"), false);
    if (v < 0xD800 || v > 0xDBFF) return true;
    if (pos_ + 1 >= s_.size() || s_[pos_] != '\\' || s_[pos_ + 1] != 'u')
      return (fail(at, "UTF-16 high surrogate not followed by a low one"), false);
    const int low = unicode_escape();
    if (low < 0) return false;
    if (low < 0xDC00 || low > 0xDFFF)
      return (fail(at, "UTF-16 high surrogate not followed by a low one"), false);
    pos_ += 6;
    return true;
  }

  bool digits(std::string_view after) {
    if (pos_ == s_.size()) return (fail(pos_, "unexpected end of input"), false);
    if (!is_digit(s_[pos_]))
      return (fail(pos_, "expected a digit after " + std::string(after)), false);
    while (pos_ < s_.size() && is_digit(s_[pos_])) ++pos_;
    return true;
  }

  bool number() {
    const size_t start = pos_;
    if (s_[pos_] == '-') ++pos_;
    if (pos_ < s_.size() && s_[pos_] == '0') {
      ++pos_;
      if (pos_ < s_.size() && is_digit(s_[pos_]))
        return (fail(pos_, "leading zero in a number"), false);
    } else if (!digits("'-'")) {
      return false;
    }
    const size_t int_digits = pos_ - start - (s_[start] == '-');
    bool exponent = false;
    if (pos_ < s_.size() && s_[pos_] == '.') {
      ++pos_;
      if (!digits("'.'")) return false;
    }
    if (pos_ < s_.size() && (s_[pos_] == 'e' || s_[pos_] == 'E')) {
      exponent = true;
      ++pos_;
      if (pos_ < s_.size() && (s_[pos_] == '+' || s_[pos_] == '-')) ++pos_;
      if (!digits("the exponent")) return false;
    }
    // Well formed; whether simdjson can represent it (integers beyond 64
    // bits, doubles that overflow) is simdjson's own number parser's call —
    // asked only of numbers that could be out of range.
    if (!exponent && int_digits <= 18) return true;
    thread_local simdjson::dom::parser token_parser;
    const std::string_view token = s_.substr(start, pos_ - start);
    if (token_parser.parse(token.data(), token.size(), true).error())
      return (fail(start, "number out of range"), false);
    return true;
  }

  std::string_view s_;
  size_t max_depth_;
  size_t pos_ = 0;
  std::vector<char> stack_;  // '{' or '[' per open non-empty container
  std::optional<JsonFault> fault_;
};

}  // namespace

std::optional<JsonFault> find_json_fault(std::string_view text, size_t max_depth) {
  return Scanner(text, max_depth).run();
}

std::optional<size_t> find_invalid_utf8(std::string_view text) {
  const auto* p = reinterpret_cast<const unsigned char*>(text.data());
  for (size_t i = 0; i < text.size();) {
    const size_t n = utf8_sequence(p + i, text.size() - i);
    if (n == 0) return i;
    i += n;
  }
  return std::nullopt;
}

LineColumn line_column(std::string_view text, size_t offset) {
  LineColumn lc;
  if (offset > text.size()) offset = text.size();
  for (size_t i = 0; i < offset; ++i) {
    const auto c = static_cast<unsigned char>(text[i]);
    if (c == '\n') {
      ++lc.line;
      lc.column = 1;
    } else if ((c & 0xC0) != 0x80) {  // not a continuation byte
      ++lc.column;
    }
  }
  return lc;
}

}  // namespace toolwire::dialects::json
