// kimi_k2 — Kimi K2:
//   <|tool_calls_section_begin|>
//   <|tool_call_begin|>functions.get_weather:0<|tool_call_argument_begin|>{"city":"Paris"}<|tool_call_end|>
//   <|tool_calls_section_end|>
// The id (functions.NAME:N) is kept as the call id; the name is what lies
// between "functions." and ":N". Arguments stream as they arrive, delimited
// by the JSON scanner (markers inside strings are text). A header whose
// <|tool_call_argument_begin|> was lost in detokenisation (ID{...}) is read
// too; a section marker ends an unclosed <think> block.
#include "textformats/families.h"
#include "textformats/parser_base.h"

namespace toolwire::textformats {

namespace {

constexpr std::string_view kSectionBegin = "<|tool_calls_section_begin|>";
constexpr std::string_view kCallBegin = "<|tool_call_begin|>";
constexpr std::string_view kArgBegin = "<|tool_call_argument_begin|>";
constexpr std::string_view kCallEnd = "<|tool_call_end|>";

std::string_view name_of(std::string_view id) {
  if (size_t colon = id.rfind(':'); colon != std::string_view::npos) id = id.substr(0, colon);
  if (id.starts_with("functions.")) id.remove_prefix(10);
  return id;
}

enum class St { text, section, id, args };

class KimiK2 final : public StateParser<St> {
 public:
  explicit KimiK2(const ToolSet* tools)
      : StateParser(tools, {.calls = {kSectionBegin, "<|tool_call_section_begin|>"}}) {}

 private:
  bool step(bool final) override {
    static const MarkerSet open{kSectionBegin, "<|tool_call_section_begin|>"};
    static const MarkerSet arg_begin{kArgBegin, "{"};
    static const MarkerSet call_end{kCallEnd};
    switch (st_) {
      case St::text:
        return text_until(open, {St::section}, final);
      case St::section: {
        int m =
            expect({kCallBegin, "<|tool_calls_section_end|>", "<|tool_call_section_end|>"}, final);
        if (m == -1) return false;
        // m < 0: prose inside the section, or its end missing
        boundary();
        st_ = m == 0 ? St::id : St::text;
        return true;
      }
      case St::id: {
        Found f = find_or_cut(arg_begin, final, "the output ended inside a tool call header");
        if (f.which < 0) return false;
        std::string id = take(f.pos, f.which == 0 ? kArgBegin.size() : 0);
        begin_call(name_of(id), id);
        st_ = St::args;
        return true;
      }
      case St::args: {
        int r = args_to_end(kCallEnd, call_end, final);
        if (r < 0) return false;
        st_ = r == 1 ? St::text : St::section;
        return r < 2;
      }
    }
    return false;
  }
};

}  // namespace

ParserPtr make_kimi_k2(const ToolSet* tools) { return std::make_unique<KimiK2>(tools); }

}  // namespace toolwire::textformats
