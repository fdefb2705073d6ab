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
// Code fences around the arguments are accepted in both. Arguments stream.
#include "textformats/deepseek_tokens.h"
#include "textformats/families.h"
#include "textformats/parser_base.h"

namespace toolwire::textformats {

namespace {

using namespace deepseek;
constexpr std::string_view kCutHeader = "the output ended inside a tool call header";

class DeepSeek final : public ParserBase {
 public:
  DeepSeek(const ToolSet* tools, bool v31)
      : ParserBase(tools, ReasoningMarkers{.at_start = !v31}), v31_(v31) {}

 private:
  enum class St { text, section, header, name, fence_open, args, fence_close, close };

  void body(bool final) override {
    static const MarkerSet open{kCallsBegin, kCallBegin};
    static const MarkerSet sep{kSep};
    static const MarkerSet name_end{"\n", "```", kCallEnd};
    static const MarkerSet call_end{kCallEnd};
    while (true) {
      switch (st_) {
        case St::text: {
          int m = scan_text(open, final);
          if (m < 0) return;
          st_ = m == 0 ? St::section : St::header;
          break;
        }
        case St::section: {
          int m = expect({kCallBegin, kCallsEnd}, final);
          if (m == -1) return;
          st_ = m == 0 ? St::header : St::text;
          break;
        }
        case St::header: {
          Found f = find_or_cut(sep, final, kCutHeader);
          if (f.which < 0) return;
          std::string head = take(f.pos, kSep.size());
          if (v31_) {
            begin_call(head);
            st_ = St::fence_open;
          } else {
            st_ = St::name;  // `head` is the call type, "function"
          }
          break;
        }
        case St::name: {
          Found f = find_or_cut(name_end, final, kCutHeader);
          if (f.which < 0) return;
          begin_call(take(f.pos, f.which == 0 ? 1 : 0));
          st_ = St::fence_open;
          break;
        }
        case St::fence_open: {
          int m = expect({"```json", "```"}, final);
          if (m == -1) return;
          st_ = St::args;
          break;
        }
        case St::args: {
          Args a = stream_args_until(kCallEnd, final);
          if (a == Args::wait) return;
          st_ = a == Args::done ? St::fence_close : St::section;
          if (a == Args::failed) return skip_until(call_end);
          break;
        }
        case St::fence_close: {
          int m = expect({"```"}, final);
          if (m == -1) return;
          st_ = St::close;
          break;
        }
        case St::close: {
          int m = end_call_at(kCallEnd, final);
          if (m == -1) return;
          st_ = m == 0 ? St::section : St::text;
          break;
        }
      }
    }
  }

  bool v31_;
  St st_ = St::text;
};

}  // namespace

ParserPtr make_deepseek_r1(const ToolSet* tools) {
  return std::make_unique<DeepSeek>(tools, false);
}
ParserPtr make_deepseek_v31(const ToolSet* tools) {
  return std::make_unique<DeepSeek>(tools, true);
}

}  // namespace toolwire::textformats
