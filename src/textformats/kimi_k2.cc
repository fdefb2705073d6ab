// kimi_k2 — Kimi K2:
//   <|tool_calls_section_begin|>
//   <|tool_call_begin|>functions.get_weather:0<|tool_call_argument_begin|>{"city":"Paris"}<|tool_call_end|>
//   <|tool_calls_section_end|>
// The id (functions.NAME:N) is kept as the call id; the name is what lies
// between "functions." and ":N". Arguments stream as they arrive.
#include "textformats/families.h"
#include "textformats/parser_base.h"

namespace toolwire::textformats {

namespace {

constexpr std::string_view kCallBegin = "<|tool_call_begin|>";
constexpr std::string_view kArgBegin = "<|tool_call_argument_begin|>";
constexpr std::string_view kCallEnd = "<|tool_call_end|>";

std::string_view name_of(std::string_view id) {
  if (size_t colon = id.rfind(':'); colon != std::string_view::npos) id = id.substr(0, colon);
  if (id.starts_with("functions.")) id.remove_prefix(10);
  return id;
}

class KimiK2 final : public ParserBase {
 public:
  explicit KimiK2(const ToolSet* tools) : ParserBase(tools) {}

 private:
  enum class St { text, section, id, args, after_args, skip };

  void body(bool final) override {
    static const MarkerSet open{"<|tool_calls_section_begin|>", "<|tool_call_section_begin|>"};
    static const MarkerSet arg_begin{kArgBegin};
    static const MarkerSet call_end{kCallEnd};
    while (true) {
      switch (st_) {
        case St::text:
          if (scan_text(open, final) < 0) return;
          st_ = St::section;
          break;
        case St::section: {
          int m = expect({kCallBegin, "<|tool_calls_section_end|>", "<|tool_call_section_end|>"},
                         final);
          if (m == -1) return;
          if (m == 0) {
            st_ = St::id;
          } else if (m > 0) {
            st_ = St::text;
          } else {
            st_ = St::text;  // prose inside the section, or its end missing
          }
          break;
        }
        case St::id: {
          Found f = find_buffered(arg_begin, final);
          if (f.which < 0) {
            if (final) {
              error("the output ended inside a tool call header");
              consume(rest().size());
            }
            return;
          }
          std::string id(trim(rest().substr(0, f.pos)));
          consume(f.pos + kArgBegin.size());
          begin_call(name_of(id), id);
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
            st_ = St::after_args;
          } else if (trim(call_arguments()).empty() && !final && is_prefix_of(rest(), kCallEnd)) {
            return;  // no arguments, and maybe the end marker: wait for it
          } else if (trim(call_arguments()).empty() && rest().starts_with(kCallEnd)) {
            consume(kCallEnd.size());  // no arguments at all
            end_call();
            st_ = St::section;
          } else {
            fail_call("the arguments are not JSON");
            st_ = St::skip;
          }
          break;
        }
        case St::after_args: {
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

  St st_ = St::text;
};

}  // namespace

ParserPtr make_kimi_k2(const ToolSet* tools) { return std::make_unique<KimiK2>(tools); }

}  // namespace toolwire::textformats
