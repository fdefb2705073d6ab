// Families whose calls are a JSON list after a marker:
//   mistral_nemo  [TOOL_CALLS][{"name": "f", "arguments": {...}, "id": "abcdefghi"}]
//   granite       <|tool_call|>[{"name": "f", "arguments": {...}}]
//                 (Granite 3.3 thinking: <think>...</think><response>...</response>)
//   command_r7b   <|START_THINKING|>...<|END_THINKING|>
//                 <|START_ACTION|>[{"tool_call_id": "0", "tool_name": "f",
//                 "parameters": {...}}]<|END_ACTION|>
//                 <|START_RESPONSE|>text<|END_RESPONSE|>
// The list is kept until it closes (the JSON scanner delimits it: markers
// inside strings are text), then each element is one call; a bad element is
// reported alone and the others still count. A single object instead of a
// list is accepted; a marker followed by neither is prose naming it.
#include <array>

#include "textformats/families.h"
#include "textformats/json_calls.h"
#include "textformats/parser_base.h"

namespace toolwire::textformats {

namespace {

struct ListFormat {
  std::array<std::string_view, 3> markers;  // [0] opens a list; the others are dropped
  std::string_view close;                   // optional closing marker, may be empty
  CallKeys keys;
  ReasoningMarkers reasoning;
};

enum class St { text, open, list, close };

class JsonList final : public StateParser<St> {
 public:
  JsonList(const ToolSet* tools, const ListFormat& f)
      : StateParser(tools, f.reasoning), f_(f), open_(f.markers) {}

 private:
  bool step(bool final) override {
    switch (st_) {
      case St::text:
        if (!text_until(open_, {St::open, St::text}, final)) return false;
        if (st_ == St::text) boundary();  // a dropped marker
        return true;
      case St::open: {
        size_t i = 0;
        std::string_view t = after_blanks(i);
        if (undecided(t, final)) return false;
        if (t.empty()) return false;
        if (!t.starts_with('[') && !t.starts_with('{')) {
          text(open_.marker(0));  // the marker named in prose
          st_ = St::text;
          return true;
        }
        consume(i);
        st_ = St::list;
        return true;
      }
      case St::list:
        if (!list_calls(open_.marker(0), f_.keys, final)) return false;
        st_ = f_.close.empty() ? St::text : St::close;
        return true;
      case St::close:
        if (expect({f_.close}, final) == -1) return false;
        st_ = St::text;
        return true;
    }
    return false;
  }

  const ListFormat& f_;
  MarkerSet open_;
};

const ListFormat kMistralNemo{{tag::tool_calls}, {}, {}, {.calls = {tag::tool_calls}}};
const ListFormat kGranite{
    {"<|tool_call|>", "<response>", "</response>"}, {}, {}, {.calls = {"<|tool_call|>"}}};
const ListFormat kCommandR7b{{"<|START_ACTION|>", "<|START_RESPONSE|>", "<|END_RESPONSE|>"},
                             "<|END_ACTION|>",
                             {.name = {"tool_name", "name"},
                              .arguments = {"parameters", "arguments"},
                              .id = {"tool_call_id", "id"}},
                             {.open = {"<|START_THINKING|>"},
                              .close = {"<|END_THINKING|>"},
                              .calls = {"<|START_ACTION|>", "<|START_RESPONSE|>"}}};

}  // namespace

ParserPtr make_mistral_nemo(const ToolSet* tools) {
  return std::make_unique<JsonList>(tools, kMistralNemo);
}
ParserPtr make_granite(const ToolSet* tools) { return std::make_unique<JsonList>(tools, kGranite); }
ParserPtr make_command_r7b(const ToolSet* tools) {
  return std::make_unique<JsonList>(tools, kCommandR7b);
}

}  // namespace toolwire::textformats
