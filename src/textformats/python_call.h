// Python call syntax shared by `pythonic` and `llama3_builtin`: a scanner
// that finds the `]` closing a list fed in pieces, and a parser turning a
// complete `[f(a=1, b="x"), ...]` into calls with JSON arguments (Python
// literals: ' or " strings, numbers, True/False/None, lists, tuples, dicts).
#pragma once

#include <cctype>
#include <string>
#include <string_view>
#include <vector>

#include "textformats/markers.h"
#include "toolwire/core/json_writer.h"

namespace toolwire::textformats {

inline bool ident_start(char c) { return std::isalpha(static_cast<unsigned char>(c)) || c == '_'; }
inline bool ident_char(char c) {
  return std::isalnum(static_cast<unsigned char>(c)) || c == '_' || c == '.';
}

// Finds the `]` closing a Python list, fed in pieces (strings and nesting).
class PyScanner {
 public:
  enum class State { inside, done, invalid };
  size_t scan(std::string_view s) {
    for (size_t i = 0; i < s.size(); ++i) {
      char c = s[i];
      if (quote_) {
        if (escape_)
          escape_ = false;
        else if (c == '\\')
          escape_ = true;
        else if (c == quote_)
          quote_ = 0;
        continue;
      }
      if (c == '"' || c == '\'') {
        quote_ = c;
      } else if (c == '[' || c == '(' || c == '{') {
        ++depth_;
      } else if (c == ']' || c == ')' || c == '}') {
        if (--depth_ == 0) {
          state_ = c == ']' ? State::done : State::invalid;
          return i + 1;
        }
      }
    }
    return s.size();
  }
  State state() const { return state_; }

 private:
  State state_ = State::inside;
  int depth_ = 0;
  char quote_ = 0;
  bool escape_ = false;
};

// Python literal → JSON, recursive descent over a complete list.
class PyParser {
 public:
  explicit PyParser(std::string_view s) : s_(s) {}

  struct Call {
    std::string name;
    std::string args;
  };

  bool calls(std::vector<Call>& out) {
    ws();
    if (!eat('[')) return false;
    ws();
    if (eat(']')) return false;  // [] is no call list
    while (true) {
      Call c;
      if (!call(c)) return false;
      out.push_back(std::move(c));
      ws();
      if (eat(']')) break;
      if (!eat(',')) return false;
      ws();
    }
    ws();
    return i_ == s_.size();
  }

 private:
  bool call(Call& c) {
    size_t b = i_;
    if (i_ >= s_.size() || !ident_start(s_[i_])) return false;
    while (i_ < s_.size() && ident_char(s_[i_])) ++i_;
    c.name.assign(s_.substr(b, i_ - b));
    ws();
    if (!eat('(')) return false;
    c.args = "{";
    ws();
    bool first = true;
    while (!eat(')')) {
      if (!first) {
        if (!eat(',')) return false;
        ws();
        if (eat(')')) break;
      }
      size_t k = i_;
      if (i_ >= s_.size() || !ident_start(s_[i_])) return false;  // positional: not expressible
      while (i_ < s_.size() && (std::isalnum(static_cast<unsigned char>(s_[i_])) || s_[i_] == '_'))
        ++i_;
      std::string_view key = s_.substr(k, i_ - k);
      ws();
      if (!eat('=')) return false;
      ws();
      if (!first) c.args += ',';
      JsonWriter::append_escaped(c.args, key);
      c.args += ':';
      if (!value(c.args)) return false;
      ws();
      first = false;
    }
    c.args += '}';
    return true;
  }

  bool value(std::string& out) {
    if (++depth_ > 64) return false;
    bool ok = value_inner(out);
    --depth_;
    return ok;
  }

  bool value_inner(std::string& out) {
    if (i_ >= s_.size()) return false;
    char c = s_[i_];
    if (c == '"' || c == '\'') return string(out);
    if (c == '[' || c == '(') return sequence(out, c == '[' ? ']' : ')');
    if (c == '{') return dict(out);
    for (auto [py, js] : {std::pair<std::string_view, std::string_view>{"True", "true"},
                          {"False", "false"},
                          {"None", "null"},
                          {"true", "true"},
                          {"false", "false"},
                          {"null", "null"}}) {
      if (s_.substr(i_).starts_with(py) &&
          (i_ + py.size() == s_.size() || !ident_char(s_[i_ + py.size()]))) {
        i_ += py.size();
        out += js;
        return true;
      }
    }
    return number(out);
  }

  bool number(std::string& out) {
    size_t b = i_;
    if (i_ < s_.size() && (s_[i_] == '-' || s_[i_] == '+')) ++i_;
    size_t digits = i_;
    while (i_ < s_.size() && std::isdigit(static_cast<unsigned char>(s_[i_]))) ++i_;
    if (i_ == digits) return false;
    std::string_view int_part = s_.substr(digits, i_ - digits);
    if (int_part.size() > 1 && int_part[0] == '0') return false;
    if (i_ < s_.size() && s_[i_] == '.') {
      ++i_;
      size_t f = i_;
      while (i_ < s_.size() && std::isdigit(static_cast<unsigned char>(s_[i_]))) ++i_;
      if (i_ == f) return false;
    }
    if (i_ < s_.size() && (s_[i_] == 'e' || s_[i_] == 'E')) {
      ++i_;
      if (i_ < s_.size() && (s_[i_] == '-' || s_[i_] == '+')) ++i_;
      size_t e = i_;
      while (i_ < s_.size() && std::isdigit(static_cast<unsigned char>(s_[i_]))) ++i_;
      if (i_ == e) return false;
    }
    std::string_view n = s_.substr(b, i_ - b);
    if (n.starts_with('+')) n.remove_prefix(1);
    out += n;
    return true;
  }

  bool string(std::string& out) {
    char q = s_[i_++];
    std::string v;
    while (i_ < s_.size() && s_[i_] != q) {
      char c = s_[i_++];
      if (c != '\\') {
        v += c;
        continue;
      }
      if (i_ >= s_.size()) return false;
      char e = s_[i_++];
      switch (e) {
        case 'n':
          v += '\n';
          break;
        case 't':
          v += '\t';
          break;
        case 'r':
          v += '\r';
          break;
        case '0':
          v += '\0';
          break;
        case 'u': {
          if (i_ + 4 > s_.size()) return false;
          unsigned cp = 0;
          for (int k = 0; k < 4; ++k) {
            char h = s_[i_++];
            if (!std::isxdigit(static_cast<unsigned char>(h))) return false;
            cp = cp * 16 + static_cast<unsigned>(std::isdigit(static_cast<unsigned char>(h))
                                                     ? h - '0'
                                                     : (std::tolower(h) - 'a' + 10));
          }
          if (cp >= 0xD800 && cp <= 0xDFFF) return false;
          if (cp < 0x80) {
            v += static_cast<char>(cp);
          } else if (cp < 0x800) {
            v += static_cast<char>(0xC0 | (cp >> 6));
            v += static_cast<char>(0x80 | (cp & 0x3F));
          } else {
            v += static_cast<char>(0xE0 | (cp >> 12));
            v += static_cast<char>(0x80 | ((cp >> 6) & 0x3F));
            v += static_cast<char>(0x80 | (cp & 0x3F));
          }
          break;
        }
        default:
          v += e;  // \\ \' \" and unknown escapes keep the character
      }
    }
    if (i_ >= s_.size()) return false;
    ++i_;
    JsonWriter::append_escaped(out, v);
    return true;
  }

  bool sequence(std::string& out, char close) {
    ++i_;
    out += '[';
    ws();
    bool first = true;
    while (!eat(close)) {
      if (!first) {
        if (!eat(',')) return false;
        ws();
        if (eat(close)) break;
        out += ',';
      }
      if (!value(out)) return false;
      ws();
      first = false;
    }
    out += ']';
    return true;
  }

  bool dict(std::string& out) {
    ++i_;
    out += '{';
    ws();
    bool first = true;
    while (!eat('}')) {
      if (!first) {
        if (!eat(',')) return false;
        ws();
        if (eat('}')) break;
        out += ',';
      }
      if (i_ >= s_.size() || (s_[i_] != '"' && s_[i_] != '\'')) return false;
      if (!string(out)) return false;
      ws();
      if (!eat(':')) return false;
      ws();
      out += ':';
      if (!value(out)) return false;
      ws();
      first = false;
    }
    out += '}';
    return true;
  }

  void ws() {
    while (i_ < s_.size() && is_space(s_[i_])) ++i_;
  }
  bool eat(char c) {
    if (i_ < s_.size() && s_[i_] == c) {
      ++i_;
      return true;
    }
    return false;
  }

  std::string_view s_;
  size_t i_ = 0;
  int depth_ = 0;
};

}  // namespace toolwire::textformats
