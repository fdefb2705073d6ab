// pythonic — Llama 4 / BFCL-style Python calls:
//   [get_weather(city="Paris", days=3), get_time(tz='UTC')]
//   <|python_start|>[get_weather(city="Paris")]<|python_end|>
// The list must open the output (after blanks) or follow <|python_start|>.
// Values are Python literals (strings with ' or ", numbers, True/False/None,
// lists, tuples, dicts) and become JSON. The list is kept until its `]`; a
// list that is not calls (`[1] See note`) is text.
#include <cctype>

#include "textformats/families.h"
#include "textformats/parser_base.h"
#include "toolwire/core/json_writer.h"

namespace toolwire::textformats {

namespace {

constexpr std::string_view kStart = "<|python_start|>";
constexpr std::string_view kEnd = "<|python_end|>";

bool ident_start(char c) { return std::isalpha(static_cast<unsigned char>(c)) || c == '_'; }
bool ident_char(char c) {
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

class Pythonic final : public ParserBase {
 public:
  explicit Pythonic(const ToolSet* tools) : ParserBase(tools) {}

 private:
  enum class St { start, text, list, after };

  // Does the list at rest() begin like calls: `[ name(`? 1 yes, 0 no, -1 unknown yet.
  int looks_like_calls(bool final) const {
    std::string_view s = rest();
    size_t i = skip_space(s, 1);
    if (i < s.size() && !ident_start(s[i])) return 0;
    size_t b = i;
    while (i < s.size() && ident_char(s[i])) ++i;
    if (i - b > 256) return 0;
    i = skip_space(s, i);
    if (i == s.size()) return final ? 0 : -1;
    return s[i] == '(' ? 1 : 0;
  }

  void body(bool final) override {
    static const MarkerSet open{kStart};
    while (true) {
      switch (st_) {
        case St::start: {
          std::string_view s = rest();
          size_t i = skip_space(s);
          std::string_view t = s.substr(i);
          if (t.empty() && !final) return;
          if (t.starts_with('[')) {
            consume(i);
            st_ = St::list;
            checked_ = false;
            py_ = PyScanner();
            scanned_ = 0;
          } else if (t.starts_with(kStart)) {
            consume(i + kStart.size());
          } else if (!final && is_prefix_of(t, kStart)) {
            return;
          } else {
            st_ = St::text;
          }
          break;
        }
        case St::text:
          if (scan_text(open, final) < 0) return;
          st_ = St::start;
          break;
        case St::list: {
          if (!checked_) {
            int looks = looks_like_calls(final);
            if (looks < 0) return;
            if (looks == 0) {
              text("[");
              consume(1);
              st_ = St::text;
              break;
            }
            checked_ = true;
          }
          scanned_ += py_.scan(rest().substr(scanned_));
          if (py_.state() == PyScanner::State::inside) {
            if (!final) return;
            error("the output ended inside the call list");
            consume(rest().size());
            return;
          }
          std::string_view list = rest().substr(0, scanned_);
          std::vector<PyParser::Call> calls;
          if (py_.state() == PyScanner::State::done && PyParser(list).calls(calls)) {
            for (const auto& c : calls) whole_call(c.name, "", c.args);
            st_ = St::after;
          } else {
            error("a call list that is not Python calls");
            text(list);
            st_ = St::text;
          }
          consume(scanned_);
          break;
        }
        case St::after: {
          int m = expect({kEnd}, final);
          if (m == -1) return;
          st_ = St::start;
          break;
        }
      }
    }
  }

  St st_ = St::start;
  bool checked_ = false;
  PyScanner py_;
  size_t scanned_ = 0;
};

}  // namespace

ParserPtr make_pythonic(const ToolSet* tools) { return std::make_unique<Pythonic>(tools); }

}  // namespace toolwire::textformats
