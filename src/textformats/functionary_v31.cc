// functionary_v31 — Functionary v3.1 (Llama 3.1 based):
//   prose <function=get_weather>{"city": "Paris"}</function>
//   <|python_tag|>print(1 + 1)        → a call of `python` with {"code": ...}
// Arguments stream; the python code is everything after the tag.
#include "textformats/families.h"
#include "textformats/parser_base.h"

namespace toolwire::textformats {

namespace {

constexpr std::string_view kEnd = "</function>";

class FunctionaryV31 final : public ParserBase {
 public:
  using ParserBase::ParserBase;

 private:
  enum class St { text, name, args, close, python };

  void body(bool final) override {
    static const MarkerSet open{"<function=", "<|python_tag|>"};
    static const MarkerSet gt{">"};
    static const MarkerSet end{kEnd};
    static const MarkerSet eom{"<|eom_id|>", "<|eot_id|>"};
    while (true) {
      switch (st_) {
        case St::text: {
          int m = scan_text(open, final);
          if (m < 0) return;
          st_ = m == 0 ? St::name : St::python;
          break;
        }
        case St::name: {
          Found f = find_or_cut(gt, final, "the output ended inside a <function=...> tag");
          if (f.which < 0) return;
          begin_call(take(f.pos, 1));
          st_ = St::args;
          break;
        }
        case St::args: {
          Args a = stream_args_until(kEnd, final);
          if (a == Args::wait) return;
          st_ = a == Args::done ? St::close : St::text;
          if (a == Args::failed) return skip_until(end);
          break;
        }
        case St::close: {
          if (end_call_at(kEnd, final) == -1) return;
          st_ = St::text;
          break;
        }
        case St::python: {
          Found f = find_buffered(eom, final);
          if (f.which < 0 && !final) return;
          size_t len = f.which < 0 ? rest().size() : f.pos;
          code_call("python", trim(rest().substr(0, len)));
          consume(f.which < 0 ? len : len + eom.marker(f.which).size());
          st_ = St::text;
          break;
        }
      }
    }
  }

  St st_ = St::text;
};

}  // namespace

ParserPtr make_functionary_v31(const ToolSet* tools) {
  return std::make_unique<FunctionaryV31>(tools);
}

}  // namespace toolwire::textformats
