// llama3_builtin — Llama 3.1 built-in tools, written after <|python_tag|>:
//   <|python_tag|>brave_search.call(query="weather in Paris")<|eom_id|>
//   <|python_tag|>wolfram_alpha.call(query="solve x^2 = 4")<|eom_id|>
//   <|python_tag|>import math\nprint(math.pi)<|eom_id|>      → code_interpreter {"code": ...}
//   <|python_tag|>{"name": "get_weather", "parameters": {...}}  (a custom tool, as llama3_json)
// The call ends at <|eom_id|> / <|eot_id|> or the end of output (servers
// strip the stop token) and is emitted whole. Prose before the tag is text. A
// JSON call is delimited by the JSON scanner (an end token inside one of its
// strings is text).
#include "textformats/families.h"
#include "textformats/parser_base.h"
#include "textformats/python_call.h"
#include "toolwire/core/json_writer.h"

namespace toolwire::textformats {

namespace {

enum class St { text, body, json };

class Llama3Builtin final : public StateParser<St> {
 public:
  explicit Llama3Builtin(const ToolSet* tools) : StateParser(tools, {.calls = {tag::python_tag}}) {}

 private:
  bool step(bool final) override {
    static const MarkerSet open{tag::python_tag, "<|eom_id|>", "<|eot_id|>"};
    static const MarkerSet end{"<|eom_id|>", "<|eot_id|>", tag::python_tag};
    switch (st_) {
      case St::text:  // a stray end token is dropped
        if (!text_until(open, {St::body, St::text}, final)) return false;
        boundary();
        return true;
      case St::body: {
        size_t i = 0;
        std::string_view t = after_blanks(i);
        if (undecided(t, final)) return false;
        if (t.starts_with('{')) {
          consume(i);
          st_ = St::json;
          return true;
        }
        Found f = find_buffered(end, final);
        if (f.which < 0 && !final) return false;
        size_t len = f.which < 0 ? rest().size() : f.pos;
        call(trim(rest().substr(0, len)), f.which >= 0);
        // A second <|python_tag|> starts the next call; an end token is dropped.
        consume(f.which < 0 ? len : len + (f.which == 2 ? 0 : end.marker(f.which).size()));
        st_ = St::text;
        return f.which >= 0;
      }
      case St::json: {
        JsonValue v = json_value(final, "the output ended inside a JSON tool call");
        if (v.state == JsonValue::wait) return false;
        st_ = St::text;
        if (v.state != JsonValue::valid)
          return broken("a <|python_tag|> JSON call is not valid JSON", end, false);
        json_object_call(v.doc, {});
        consume(v.length);
        return true;
      }
    }
    return false;
  }

  // Is `s` `name.call(`...? The length of `name` or 0.
  static size_t builtin_name(std::string_view s) {
    size_t i = 0;
    if (s.empty() || !ident_start(s[0])) return 0;
    while (i < s.size() && (std::isalnum(static_cast<unsigned char>(s[i])) || s[i] == '_')) ++i;
    return s.substr(i).starts_with(".call(") ? i : 0;
  }

  void call(std::string_view body, bool closed) {
    if (body.empty()) {
      if (!closed) error("the output ended after <|python_tag|>");
      return;
    }
    if (size_t n = builtin_name(body)) {
      std::string list = "[";
      list.append(body);
      list += ']';
      std::vector<PyParser::Call> calls;
      if (PyParser(list).calls(calls) && calls.size() == 1)
        return whole_call(body.substr(0, n), "", calls[0].args);
      error(closed ? "a built-in call that is not name.call(key=value, ...)"
                   : "the output ended inside a built-in call");
      return;
    }
    code_call("code_interpreter", body);
  }
};

}  // namespace

ParserPtr make_llama3_builtin(const ToolSet* tools) {
  return std::make_unique<Llama3Builtin>(tools);
}

}  // namespace toolwire::textformats
