// hermes — Hermes 2 Pro / Qwen 2.5 / Qwen3:
//   <think>...</think>
//   prose <tool_call>
//   {"name": "get_weather", "arguments": {"city": "Paris"}}
//   </tool_call>
// The block's JSON object is delimited by the JSON scanner, so a
// </tool_call> inside a string argument does not end it. A call is emitted
// whole when its object closes; a missing </tool_call> (servers strip it as a
// stop string) is no error. `<tool_call>` not followed by `{` is prose that
// mentions the tag. A code fence around the calls (or around a bare
// {"name": ..., "arguments": ...} object) after prose is dropped.
#include "textformats/families.h"
#include "textformats/json_calls.h"
#include "textformats/parser_base.h"

namespace toolwire::textformats {

namespace {

enum class St { text, open, block, json, close };

class Hermes final : public StateParser<St> {
 public:
  explicit Hermes(const ToolSet* tools) : StateParser(tools, {.calls = {tag::tool_call}}) {}

 private:
  // The heavier states are functions of their own: a token of prose (the
  // common step while streaming) runs only the text state's few lines.
  bool step(bool final) override {
    switch (st_) {
      case St::text:
        return text_state(final);
      case St::open:
        return open_state(final);
      case St::block:
        return block_state(final);
      case St::json:
        return json_state(final);
      case St::close:
        if (expect({tag::tool_call_end}, final) == -1) return false;
        st_ = St::text;
        return true;
    }
    return false;
  }

  static const MarkerSet& close_markers() {
    static const MarkerSet close{tag::tool_call_end};
    return close;
  }

  bool text_state(bool final) {
    static const MarkerSet open{tag::tool_call, "```"};
    if (!close_fence({tag::tool_call}, final)) return false;
    int m = scan_text(open, final, false);
    bare_ = false;
    if (m == 1) {  // after a wait, scan_text finds the fence again at once
      m = open_fence({tag::tool_call, "{"}, final);
      if (m == -2) return true;
      bare_ = m == 1;
    }
    if (m < 0) return false;
    if (m == 0) consume(tag::tool_call.size());
    st_ = m == 0 ? St::open : St::json;
    return true;
  }

  [[gnu::noinline]] bool open_state(bool final) {
    size_t i = 0;
    std::string_view t = after_blanks(i);
    if (undecided(t, final)) return false;
    if (t.empty()) {
      error("the output ended inside a <tool_call> block");
      return false;
    }
    if (t.starts_with('{')) {
      consume(i);
      st_ = St::block;
    } else {
      text(tag::tool_call);  // the tag named in prose
      st_ = St::text;
    }
    return true;
  }

  // The usual block: everything up to </tool_call> is the object (one
  // memchr-driven search, one parse). Anything else (a </tool_call> inside a
  // string, broken JSON, no </tool_call>) is read again by the JSON scanner:
  // each byte is looked at twice at most.
  [[gnu::noinline]] bool block_state(bool final) {
    Found f = find_buffered(close_markers(), final);
    if (f.which < 0 && !final) return false;
    std::string_view content = rest().substr(0, f.which < 0 ? rest().size() : f.pos);
    simdjson::dom::element doc;
    st_ = St::json;
    if (f.which < 0 || json_.parse(content.data(), content.size()).get(doc)) {
      rescan();
      return true;
    }
    json_object_call(doc, "<tool_call>");
    consume(content.size() + tag::tool_call_end.size());
    st_ = St::text;
    return true;
  }

  [[gnu::noinline]] bool json_state(bool final) {
    JsonValue v = json_value(final, bare_ ? "the output ended inside a JSON tool call"
                                          : "the output ended inside a <tool_call> block");
    if (v.state == JsonValue::wait) return false;
    bool valid = v.state == JsonValue::valid;
    st_ = St::text;
    if (bare_) {  // a fenced object: a call only when it has a name
      if (valid && has_string_key(v.doc, {"name"})) {
        json_object_call(v.doc, {});
      } else {
        fence_is_text();
        text(rest().substr(0, v.length));
      }
      consume(v.length);
      return true;
    }
    if (!valid) return broken("a <tool_call> block is not valid JSON", close_markers());
    json_object_call(v.doc, "<tool_call>");
    consume(v.length);
    st_ = St::close;
    return true;
  }

  bool bare_ = false;  // a fenced object without <tool_call>
};

}  // namespace

ParserPtr make_hermes(const ToolSet* tools) { return std::make_unique<Hermes>(tools); }

}  // namespace toolwire::textformats
