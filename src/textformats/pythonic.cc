// pythonic — Llama 4 / BFCL-style Python calls:
//   [get_weather(city="Paris", days=3), get_time(tz='UTC')]
//   <|python_start|>[get_weather(city="Paris")]<|python_end|>
// The list must open the output (after blanks) or follow <|python_start|>.
// Values are Python literals (strings with ' or ", numbers, True/False/None,
// lists, tuples, dicts) and become JSON. The list is kept until its `]`; a
// list that is not calls (`[1] See note`) is text.
#include "textformats/families.h"
#include "textformats/parser_base.h"
#include "textformats/python_call.h"
#include "toolwire/core/json_writer.h"

namespace toolwire::textformats {

namespace {

constexpr std::string_view kStart = "<|python_start|>";
constexpr std::string_view kEnd = "<|python_end|>";

enum class St { start, text, list, after };

class Pythonic final : public StateParser<St> {
 public:
  using StateParser::StateParser;

 private:
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

  bool step(bool final) override {
    static const MarkerSet open{kStart};
    switch (st_) {
      case St::start: {
        size_t i = 0;
        std::string_view t = after_blanks(i);
        if (undecided(t, final, {kStart})) return false;
        if (t.starts_with('[')) {
          consume(i);
          st_ = St::list;
          checked_ = false;
          py_ = PyScanner();
          scanned_ = 0;
        } else if (t.starts_with(kStart)) {
          consume(i + kStart.size());
        } else {
          st_ = St::text;
        }
        return true;
      }
      case St::text:
        return text_until(open, {St::start}, final);
      case St::list: {
        if (!checked_) {
          int looks = looks_like_calls(final);
          if (looks < 0) return false;
          if (looks == 0) {
            text("[");
            consume(1);
            st_ = St::text;
            return true;
          }
          checked_ = true;
        }
        scanned_ += py_.scan(rest().substr(scanned_));
        if (py_.state() == PyScanner::State::inside) {
          if (final) cut_off("the output ended inside the call list");
          return false;
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
        return true;
      }
      case St::after:
        if (expect({kEnd}, final) == -1) return false;
        st_ = St::start;
        return true;
    }
    return false;
  }

  bool checked_ = false;
  PyScanner py_;
  size_t scanned_ = 0;
};

}  // namespace

ParserPtr make_pythonic(const ToolSet* tools) { return std::make_unique<Pythonic>(tools); }

}  // namespace toolwire::textformats
