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
#include "textformats/families.h"
#include "textformats/parser_base.h"

namespace toolwire::textformats {

namespace {

constexpr std::string_view kCallsBegin = "<｜tool▁calls▁begin｜>";
constexpr std::string_view kCallsEnd = "<｜tool▁calls▁end｜>";
constexpr std::string_view kCallBegin = "<｜tool▁call▁begin｜>";
constexpr std::string_view kSep = "<｜tool▁sep｜>";
constexpr std::string_view kCallEnd = "<｜tool▁call▁end｜>";

class DeepSeek final : public ParserBase {
 public:
  DeepSeek(const ToolSet* tools, bool v31)
      : ParserBase(tools, ReasoningMarkers{.at_start = !v31}), v31_(v31) {}

 private:
  enum class St { text, section, header, name, fence_open, args, fence_close, close, skip };

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
          Found f = find_buffered(sep, final);
          if (f.which < 0) {
            if (final) {
              error("the output ended inside a tool call header");
              consume(rest().size());
            }
            return;
          }
          std::string head(trim(rest().substr(0, f.pos)));
          consume(f.pos + kSep.size());
          if (v31_) {
            begin_call(head);
            st_ = St::fence_open;
          } else {
            st_ = St::name;  // `head` is the call type, "function"
          }
          break;
        }
        case St::name: {
          Found f = find_buffered(name_end, final);
          if (f.which < 0) {
            if (final) {
              error("the output ended inside a tool call header");
              consume(rest().size());
            }
            return;
          }
          std::string name(trim(rest().substr(0, f.pos)));
          consume(f.which == 0 ? f.pos + 1 : f.pos);
          begin_call(name);
          st_ = St::fence_open;
          break;
        }
        case St::fence_open: {
          int m = expect({"```json", "```"}, final);
          if (m == -1) return;
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
            st_ = St::fence_close;
          } else if (trim(call_arguments()).empty() && !final && is_prefix_of(rest(), kCallEnd)) {
            return;  // no arguments, and maybe the end marker: wait for it
          } else if (trim(call_arguments()).empty() && rest().starts_with(kCallEnd)) {
            consume(kCallEnd.size());
            end_call();
            st_ = St::section;
          } else {
            fail_call("the arguments are not JSON");
            st_ = St::skip;
          }
          break;
        }
        case St::fence_close: {
          int m = expect({"```"}, final);
          if (m == -1) return;
          st_ = St::close;
          break;
        }
        case St::close: {
          int m = expect({kCallEnd}, final);
          if (m == -1) return;
          end_call();
          st_ = m == 0 ? St::section : St::text;
          break;
        }
        case St::skip: {
          Found f = find_buffered(call_end, final);
          if (f.which < 0) {
            if (final) consume(rest().size());
            return;
          }
          consume(f.pos + kCallEnd.size());
          st_ = St::section;
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
