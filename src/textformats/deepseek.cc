// deepseek_r1 and deepseek_v31 — DeepSeek's special tokens.
//
// deepseek_r1 (R1 / V3 format; the prompt opens <think>, so output starts
// as reasoning until </think>):
//   <｜tool▁calls▁begin｜><｜tool▁call▁begin｜>function<｜tool▁sep｜>get_weather
//   ```json
//   {"city": "Paris"}
//   ```<｜tool▁call▁end｜><｜tool▁calls▁end｜>
// deepseek_v31 (V3.1; a leading <think> block is optional):
//   <｜tool▁calls▁begin｜><｜tool▁call▁begin｜>get_weather<｜tool▁sep｜>{"city":
//   "Paris"}<｜tool▁call▁end｜><｜tool▁calls▁end｜>
// Code fences around the arguments are accepted in both. Arguments stream and
// are delimited by the JSON scanner (markers inside strings are text). A
// call's markers end an unclosed reasoning block. deepseek_v31 also reads a
// header whose <｜tool▁sep｜> was lost in detokenisation (NAME{...}).
#include "textformats/deepseek_tokens.h"
#include "textformats/families.h"
#include "textformats/parser_base.h"

namespace toolwire::textformats {

namespace {

using namespace deepseek;
constexpr std::string_view kCutHeader = "the output ended inside a tool call header";

enum class St { text, section, header, name, fence_open, args };

class DeepSeek final : public StateParser<St> {
 public:
  DeepSeek(const ToolSet* tools, bool v31)
      : StateParser(tools, {.calls = {kCallsBegin, kCallBegin}, .at_start = !v31}), v31_(v31) {}

 private:
  bool step(bool final) override {
    static const MarkerSet open{kCallsBegin, kCallBegin};
    static const MarkerSet sep{kSep};
    static const MarkerSet sep_or_args{kSep, "{"};
    static const MarkerSet name_end{"\n", "```", kCallEnd};
    static const MarkerSet call_end{kCallEnd};
    switch (st_) {
      case St::text:
        return text_until(open, {St::section, St::header}, final);
      case St::section: {
        int m = expect({kCallBegin, kCallsEnd}, final);
        if (m == -1) return false;
        boundary();
        st_ = m == 0 ? St::header : St::text;
        return true;
      }
      case St::header: {
        Found f = find_or_cut(v31_ ? sep_or_args : sep, final, kCutHeader);
        if (f.which < 0) return false;
        std::string head = take(f.pos, f.which == 0 ? kSep.size() : 0);
        if (v31_) {
          begin_call(head);
          st_ = St::fence_open;
        } else {
          st_ = St::name;  // `head` is the call type, "function"
        }
        return true;
      }
      case St::name: {
        Found f = find_or_cut(name_end, final, kCutHeader);
        if (f.which < 0) return false;
        begin_call(take(f.pos, f.which == 0 ? 1 : 0));
        st_ = St::fence_open;
        return true;
      }
      case St::fence_open:
        if (expect({"```json", "```"}, final) == -1) return false;
        st_ = St::args;
        return true;
      case St::args: {
        int r = args_to_end(kCallEnd, call_end, final, "```");
        if (r < 0) return false;
        st_ = r == 1 ? St::text : St::section;
        return r < 2;
      }
    }
    return false;
  }

  bool v31_;
};

}  // namespace

ParserPtr make_deepseek_r1(const ToolSet* tools) {
  return std::make_unique<DeepSeek>(tools, false);
}
ParserPtr make_deepseek_v31(const ToolSet* tools) {
  return std::make_unique<DeepSeek>(tools, true);
}

}  // namespace toolwire::textformats
