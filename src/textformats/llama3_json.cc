// llama3_json — Llama 3.1 / 3.2 / 3.3 JSON tool calling:
//   {"name": "get_weather", "parameters": {"city": "Paris"}}
//   <|python_tag|>{"name": ..., "parameters": ...}; {"name": ..., "parameters": ...}
// A call is a JSON object with a "name" and "parameters" (or "arguments"),
// at the start of the output, after <|python_tag|>, or where an object opens
// with a "name" or "type" key in prose. Several calls may follow each other,
// separated by blanks or ";". An object that turns out not to be a call is
// text. <|eom_id|> / <|eot_id|> are dropped. A code fence around calls after
// prose ("Let me look.\n```json\n{...}\n```") is dropped.
#include "textformats/families.h"
#include "textformats/json_calls.h"
#include "textformats/parser_base.h"

namespace toolwire::textformats {

namespace {

enum class St { start, text, json, after };

class Llama3Json final : public StateParser<St> {
 public:
  using StateParser::StateParser;

 private:
  bool step(bool final) override {
    static const MarkerSet open{tag::python_tag, "{\"name\"",  "{ \"name\"", "{\"type\"",
                                "{ \"type\"",    "<|eom_id|>", "<|eot_id|>", "```"};
    switch (st_) {
      case St::start: {
        size_t i = 0;
        std::string_view t = after_blanks(i);
        if (undecided(t, final)) return false;
        if (t.starts_with('{')) consume(i);
        st_ = t.starts_with('{') ? St::json : St::text;
        return true;
      }
      case St::text: {
        if (!close_fence({}, final)) return false;
        int m = scan_text(open, final, false);
        if (m < 0) return false;
        if (m == 7) {  // after a wait, scan_text finds the fence again at once
          int f = open_fence({"{"}, final);
          if (f == -1) return false;
          if (f == 0) st_ = St::json;
          return true;
        }
        if (m == 0 || m >= 5) consume(open.marker(m).size());
        if (m >= 5) boundary();  // a dropped end token
        st_ = m == 0 ? St::start : m >= 5 ? St::text : St::json;
        return true;
      }
      case St::json: {
        JsonValue v = json_value(final, "the output ended inside a JSON tool call");
        if (v.state == JsonValue::wait) return false;
        bool is_call = v.state == JsonValue::valid && has_string_key(v.doc, {"name"});
        if (is_call) {
          json_object_call(v.doc, {});
        } else {  // not JSON, or not a call: prose
          if (fence_open()) fence_is_text();
          text(rest().substr(0, v.length));
        }
        consume(v.length);
        st_ = is_call ? St::after : St::text;
        return true;
      }
      case St::after: {
        std::string_view s = rest();
        size_t i = 0;
        while (i < s.size() && (is_space(s[i]) || s[i] == ';')) ++i;
        if (i == s.size() && !final) return false;
        consume(i);
        st_ = i < s.size() && s[i] == '{' ? St::json : St::text;
        return true;
      }
    }
    return false;
  }
};

}  // namespace

ParserPtr make_llama3_json(const ToolSet* tools) { return std::make_unique<Llama3Json>(tools); }

}  // namespace toolwire::textformats
