// functionary_v31 — Functionary v3.1 (Llama 3.1 based):
//   prose <function=get_weather>{"city": "Paris"}</function>
//   <|python_tag|>print(1 + 1)        → a call of `python` with {"code": ...}
// Arguments stream (the JSON scanner delimits them: a </function> inside a
// string is text); the python code is everything after the tag. A
// <function=NAME> not followed by `{` or </function> is prose.
#include "textformats/families.h"
#include "textformats/parser_base.h"

namespace toolwire::textformats {

namespace {

enum class St { text, name, args, python };

class FunctionaryV31 final : public StateParser<St> {
 public:
  using StateParser::StateParser;

 private:
  bool step(bool final) override {
    static const MarkerSet open{tag::function, tag::python_tag};
    static const MarkerSet end{tag::function_end};
    static const MarkerSet eom{"<|eom_id|>", "<|eot_id|>"};
    switch (st_) {
      case St::text:
        return text_until(open, {St::name, St::python}, final);
      case St::name: {  // NAME>, then the arguments or the end
        Header h = header({">"}, final);
        if (h.which == -1) return false;
        size_t i = h.which == 0 ? skip_space(rest(), h.end + 1) : 0;
        std::string_view t = rest().substr(i);
        if (h.which == 0 && undecided(t, final, {tag::function_end})) return false;
        if (h.which == 0 && t.empty()) {
          cut_off("the output ended inside a <function=...> tag");
          return false;
        }
        std::string_view all = trim(rest());
        if (h.which < 0 && final && !all.empty() && name_length(all) == all.size()) {
          cut_off("the output ended inside a <function=...> tag");
          return false;
        }
        if (h.which < 0 || h.name.empty() ||
            !(t.starts_with('{') || t.starts_with(tag::function_end))) {
          text(tag::function);  // the tag named in prose
          st_ = St::text;
          return true;
        }
        begin_call(h.name);
        consume(i);
        st_ = St::args;
        return true;
      }
      case St::args: {
        int r = args_to_end(tag::function_end, end, final);
        if (r < 0) return false;
        st_ = St::text;
        return r < 2;
      }
      case St::python: {
        Found f = find_buffered(eom, final);
        if (f.which < 0 && !final) return false;
        size_t len = f.which < 0 ? rest().size() : f.pos;
        code_call("python", trim(rest().substr(0, len)));
        consume(f.which < 0 ? len : len + eom.marker(f.which).size());
        st_ = St::text;
        return true;
      }
    }
    return false;
  }
};

}  // namespace

ParserPtr make_functionary_v31(const ToolSet* tools) {
  return std::make_unique<FunctionaryV31>(tools);
}

}  // namespace toolwire::textformats
