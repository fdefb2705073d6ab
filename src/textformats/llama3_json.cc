// llama3_json — Llama 3.1 / 3.2 / 3.3 JSON tool calling:
//   {"name": "get_weather", "parameters": {"city": "Paris"}}
//   <|python_tag|>{"name": ..., "parameters": ...}; {"name": ..., "parameters": ...}
// A call is a JSON object with a "name" and "parameters" (or "arguments"),
// at the start of the output, after <|python_tag|>, or where an object opens
// with a "name" or "type" key in prose. Several calls may follow each other,
// separated by blanks or ";". An object that turns out not to be a call is
// text. <|eom_id|> / <|eot_id|> are dropped.
#include "textformats/families.h"
#include "textformats/json_calls.h"
#include "textformats/parser_base.h"

namespace toolwire::textformats {

namespace {

class Llama3Json final : public ParserBase {
 public:
  using ParserBase::ParserBase;

 private:
  enum class St { start, text, json, after };

  void body(bool final) override {
    static const MarkerSet open{"<|python_tag|>", "{\"name\"",  "{ \"name\"", "{\"type\"",
                                "{ \"type\"",     "<|eom_id|>", "<|eot_id|>"};
    while (true) {
      switch (st_) {
        case St::start: {
          size_t i = 0;
          std::string_view t = after_blanks(i);
          if (undecided(t, final)) return;
          if (t.starts_with('{')) {
            consume(i);
            st_ = St::json;
          } else {
            st_ = St::text;
          }
          break;
        }
        case St::text: {
          int m = scan_text(open, final, false);
          if (m < 0) return;
          if (m == 0) {
            consume(open.marker(0).size());
            st_ = St::start;
          } else if (m >= 5) {
            consume(open.marker(m).size());
          } else {
            st_ = St::json;
          }
          break;
        }
        case St::json: {
          size_t len = 0;
          Scan sc = scan_buffered(len);
          if (sc == Scan::more) {
            if (final) cut_off("the output ended inside a JSON tool call");
            return;
          }
          if (sc == Scan::invalid) {  // not JSON after all: prose
            text(rest().substr(0, len));
            consume(len);
            st_ = St::text;
            break;
          }
          std::string_view json = rest().substr(0, len);
          simdjson::dom::element doc;
          bool is_call =
              !json_.parse(json.data(), json.size()).get(doc) && has_string_key(doc, {"name"});
          if (is_call) {
            json_object_call(doc, {});
            st_ = St::after;
          } else {
            text(json);
            st_ = St::text;
          }
          consume(len);
          break;
        }
        case St::after: {
          std::string_view s = rest();
          size_t i = 0;
          while (i < s.size() && (is_space(s[i]) || s[i] == ';')) ++i;
          if (i == s.size() && !final) return;
          consume(i);
          if (i < s.size() && s[i] == '{') {
            st_ = St::json;
          } else {
            st_ = St::text;
          }
          break;
        }
      }
    }
  }

  St st_ = St::start;
};

}  // namespace

ParserPtr make_llama3_json(const ToolSet* tools) { return std::make_unique<Llama3Json>(tools); }

}  // namespace toolwire::textformats
