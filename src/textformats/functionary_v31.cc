// functionary_v31 — Functionary v3.1 (Llama 3.1 based):
//   prose <function=get_weather>{"city": "Paris"}</function>
//   <|python_tag|>print(1 + 1)        → a call of `python` with {"code": ...}
// Arguments stream; the python code is everything after the tag.
#include "textformats/families.h"
#include "textformats/parser_base.h"
#include "toolwire/core/json_writer.h"

namespace toolwire::textformats {

namespace {

constexpr std::string_view kEnd = "</function>";

class FunctionaryV31 final : public ParserBase {
 public:
  explicit FunctionaryV31(const ToolSet* tools) : ParserBase(tools) {}

 private:
  enum class St { text, name, args, close, python, skip };

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
          Found f = find_buffered(gt, final);
          if (f.which < 0) {
            if (final) {
              error("the output ended inside a <function=...> tag");
              consume(rest().size());
            }
            return;
          }
          std::string name(trim(rest().substr(0, f.pos)));
          consume(f.pos + 1);
          begin_call(name);
          reset_scan();
          st_ = St::args;
          break;
        }
        case St::args: {
          Scan sc = stream_args(final);
          if (sc == Scan::more) {
            if (final) end_or_cut_call();
            return;
          }
          if (sc == Scan::done) {
            st_ = St::close;
          } else if (trim(call_arguments()).empty() && !final && is_prefix_of(rest(), kEnd)) {
            return;  // no arguments, and maybe the end marker: wait for it
          } else if (trim(call_arguments()).empty() && rest().starts_with(kEnd)) {
            consume(kEnd.size());
            end_call();
            st_ = St::text;
          } else {
            fail_call("the arguments are not JSON");
            st_ = St::skip;
          }
          break;
        }
        case St::close: {
          int m = expect({kEnd}, final);
          if (m == -1) return;
          end_call();
          st_ = St::text;
          break;
        }
        case St::python: {
          Found f = find_buffered(eom, final);
          if (f.which < 0 && !final) return;
          size_t len = f.which < 0 ? rest().size() : f.pos;
          std::string args = "{\"code\":";
          JsonWriter::append_escaped(args, trim(rest().substr(0, len)));
          args += '}';
          whole_call("python", "", args);
          consume(f.which < 0 ? len : len + eom.marker(f.which).size());
          st_ = St::text;
          break;
        }
        case St::skip: {
          Found f = find_buffered(end, final);
          if (f.which < 0) {
            if (final) consume(rest().size());
            return;
          }
          consume(f.pos + kEnd.size());
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
