// Families whose calls are a JSON list after a marker:
//   mistral_nemo  [TOOL_CALLS][{"name": "f", "arguments": {...}, "id": "abcdefghi"}]
//   granite       <|tool_call|>[{"name": "f", "arguments": {...}}]
//   command_r7b   <|START_THINKING|>...<|END_THINKING|>
//                 <|START_ACTION|>[{"tool_call_id": "0", "tool_name": "f",
//                 "parameters": {...}}]<|END_ACTION|>
//                 <|START_RESPONSE|>text<|END_RESPONSE|>
// The list is kept until it closes, then each element is one call; a bad
// element is reported alone and the others still count. A single object
// instead of a list is accepted.
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

class JsonList final : public ParserBase {
 public:
  JsonList(const ToolSet* tools, const ListFormat& f)
      : ParserBase(tools, f.reasoning), f_(f), open_(f.markers) {}

 private:
  enum class St { text, list, close };

  void body(bool final) override {
    while (true) {
      switch (st_) {
        case St::text: {
          int m = scan_text(open_, final);
          if (m < 0) return;
          if (m == 0) st_ = St::list;
          break;
        }
        case St::list: {
          size_t len = 0;
          Scan sc = scan_buffered(len);
          if (sc == Scan::more) {
            if (final)
              cut_off(trim(rest()).empty() ? "" : "the output ended inside the tool call list");
            return;
          }
          if (sc == Scan::invalid) {
            error("the text after " + std::string(open_.marker(0)) + " is not a JSON list");
            st_ = St::text;  // the rest is prose
            break;
          }
          json_list_calls(rest().substr(0, len), f_.keys);
          consume(len);
          st_ = f_.close.empty() ? St::text : St::close;
          break;
        }
        case St::close: {
          int m = expect({f_.close}, final);
          if (m == -1) return;
          st_ = St::text;
          break;
        }
      }
    }
  }

  const ListFormat& f_;
  MarkerSet open_;
  St st_ = St::text;
};

const ListFormat kMistralNemo{{"[TOOL_CALLS]"}, {}, {}, {}};
const ListFormat kGranite{{"<|tool_call|>"}, {}, {}, {}};
const ListFormat kCommandR7b{{"<|START_ACTION|>", "<|START_RESPONSE|>", "<|END_RESPONSE|>"},
                             "<|END_ACTION|>",
                             {.name = {"tool_name", "name"},
                              .arguments = {"parameters", "arguments"},
                              .id = {"tool_call_id", "id"}},
                             {.open = "<|START_THINKING|>", .close = "<|END_THINKING|>"}};

}  // namespace

ParserPtr make_mistral_nemo(const ToolSet* tools) {
  return std::make_unique<JsonList>(tools, kMistralNemo);
}
ParserPtr make_granite(const ToolSet* tools) { return std::make_unique<JsonList>(tools, kGranite); }
ParserPtr make_command_r7b(const ToolSet* tools) {
  return std::make_unique<JsonList>(tools, kCommandR7b);
}

}  // namespace toolwire::textformats
