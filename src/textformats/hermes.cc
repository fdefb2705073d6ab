// hermes — Hermes 2 Pro / Qwen 2.5 / Qwen3:
//   <think>...</think>
//   prose <tool_call>
//   {"name": "get_weather", "arguments": {"city": "Paris"}}
//   </tool_call>
// A call is emitted whole when its </tool_call> arrives. A block whose
// closing tag is missing at the end of output (servers strip it as a stop
// string) counts when its JSON is complete; otherwise it was cut off.
#include "textformats/families.h"
#include "textformats/parser_base.h"

namespace toolwire::textformats {

namespace {

class Hermes final : public ParserBase {
 public:
  using ParserBase::ParserBase;

 private:
  void body(bool final) override {
    static const MarkerSet open{"<tool_call>"};
    static const MarkerSet close{"</tool_call>"};
    while (true) {
      if (!inside_) {
        if (scan_text(open, final) < 0) return;
        inside_ = true;
      }
      Found f = find_buffered(close, final);
      if (f.which < 0 && !final) return;
      std::string_view content = rest().substr(0, f.which < 0 ? rest().size() : f.pos);
      call(content, f.which >= 0);
      consume(f.which < 0 ? rest().size() : f.pos + close.marker(0).size());
      inside_ = false;
      if (f.which < 0) return;
    }
  }

  void call(std::string_view content, bool closed) {
    simdjson::dom::element doc;
    if (json_.parse(content.data(), content.size()).get(doc)) {
      error(closed ? "a <tool_call> block is not valid JSON"
                   : "the output ended inside a <tool_call> block");
      return;
    }
    json_object_call(doc, "<tool_call>");
  }

  bool inside_ = false;
};

}  // namespace

ParserPtr make_hermes(const ToolSet* tools) { return std::make_unique<Hermes>(tools); }

}  // namespace toolwire::textformats
