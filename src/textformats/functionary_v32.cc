// functionary_v32 — Functionary v3.2 (MeetKai; Llama 3 based). Every part of
// the answer opens with `>>>RECIPIENT\n`; the prompt ends with `>>>`, so the
// output starts at the first recipient (a leading `>>>` is accepted too):
//   all\nLet me check.>>>get_weather\n{"city": "Paris"}>>>get_time\n{"tz": "UTC"}
//   python\nprint(1 + 1)                       → a call of `python` with {"code": ...}
// `all` is text for the user; any other recipient is a call whose JSON
// arguments stream. A first line that is no recipient (prose, or a name
// followed by anything but a JSON object) is text: the model ignored the
// format.
#include <cctype>

#include "textformats/families.h"
#include "textformats/parser_base.h"

namespace toolwire::textformats {

namespace {

constexpr std::string_view kOpen = ">>>";

bool word_char(char c) {
  return std::isalnum(static_cast<unsigned char>(c)) || c == '_' || c == '-' || c == '.';
}

enum class St { start, header, text, args, python };

class FunctionaryV32 final : public StateParser<St> {
 public:
  using StateParser::StateParser;

 private:
  bool step(bool final) override {
    static const MarkerSet open{kOpen, "<|eot_id|>", "<|eom_id|>"};
    static const MarkerSet python_end{kOpen, "<|eot_id|>", "<|eom_id|>"};
    static const MarkerSet skip_end{kOpen};
    switch (st_) {
      case St::start: {
        size_t i = 0;
        std::string_view t = after_blanks(i);
        if (undecided(t, final, {kOpen})) return false;
        consume(i + (t.starts_with(kOpen) ? kOpen.size() : 0));
        st_ = St::header;
        return true;
      }
      case St::header:
        return header(final) >= 0;
      case St::text:
        return text_until(open, {St::header, St::text}, final);
      case St::args: {
        // The arguments open with `{` (header()), so they are never empty.
        Args a = stream_args_until({}, final);
        if (a == Args::wait) return false;
        st_ = St::text;
        if (a == Args::failed) skip_until(skip_end, false);
        return a != Args::failed;
      }
      case St::python: {
        Found f = find_buffered(python_end, final);
        if (f.which < 0 && !final) return false;
        size_t len = f.which < 0 ? rest().size() : f.pos;
        code_call("python", trim(rest().substr(0, len)));
        consume(len);
        st_ = St::text;  // the marker after the code is read there
        return true;
      }
    }
    return false;
  }

  // After `>>>` (or at the start): `NAME\n`. 0 when a state was chosen, -1 to
  // wait for more input.
  int header(bool final) {
    std::string_view s = rest();
    size_t i = 0;
    while (i < s.size() && i <= kMaxName && word_char(s[i])) ++i;
    if (i == s.size() && !final) return -1;
    if (i == 0 || i > kMaxName || i == s.size() || s[i] != '\n') {
      if (!at_start_) text(kOpen);  // `>>>` that opened no part: prose
      return prose();
    }
    std::string_view name = s.substr(0, i);
    if (name == "all") {
      consume(i + 1);
      return chosen(St::text);
    }
    size_t j = skip_space(s, i + 1);
    if (j == s.size() && !final) return -1;
    if (name == "python" && (j == s.size() || s[j] != '{')) {
      consume(i + 1);
      boundary();
      return chosen(St::python);
    }
    if (j == s.size() || s[j] != '{') {
      if (!at_start_) text(kOpen);
      return prose();
    }
    begin_call(name);
    consume(j);
    return chosen(St::args);
  }

  int prose() { return chosen(St::text); }
  int chosen(St st) {
    st_ = st;
    at_start_ = false;
    return 0;
  }

  bool at_start_ = true;
};

}  // namespace

ParserPtr make_functionary_v32(const ToolSet* tools) {
  return std::make_unique<FunctionaryV32>(tools);
}

}  // namespace toolwire::textformats
