#include "textformats/json_answer.h"

namespace toolwire::textformats {

void JsonAnswer::body(bool final) {
  static const MarkerSet newline{"\n"};
  static const MarkerSet none{"\x01\x02never"};  // text after the answer has no markup
  while (true) {
    switch (st_) {
      case St::start: {
        size_t i = 0;
        std::string_view t = after_blanks(i);
        if (undecided(t, final, {"```"})) return;
        if (t.starts_with("```")) {
          consume(i + 3);
          st_ = St::fence;
        } else if (t.starts_with('{')) {
          consume(i);
          st_ = St::json;
        } else {
          on_prose();
          st_ = St::text;
        }
        break;
      }
      case St::fence: {  // ```json\n: the language tag ends the line
        Found f = find_buffered(newline, final);
        if (f.which < 0) {
          if (final) {
            on_broken(rest(), true);
            consume(rest().size());
          }
          return;
        }
        consume(f.pos + 1);
        fenced_ = true;
        st_ = St::json;
        break;
      }
      case St::json: {
        size_t len = 0;
        Scan sc = scan_buffered(len);
        if (sc == Scan::more && !final) return;
        if (sc == Scan::invalid) {  // opened like JSON, is not
          on_broken(rest().substr(0, len), false);
          consume(len);
          st_ = St::text;
          break;
        }
        if (sc == Scan::more) {  // final
          on_broken(rest(), true);
          consume(rest().size());
          return;
        }
        std::string_view src = rest().substr(0, len);
        simdjson::dom::element doc;
        if (json_.parse(src.data(), src.size()).get(doc))
          on_broken(src, false);
        else
          on_value(doc, src);
        consume(len);
        boundary();
        st_ = fenced_ ? St::close_fence : St::text;
        break;
      }
      case St::close_fence: {
        int m = expect({"```"}, final);
        if (m == -1) return;
        st_ = St::text;
        break;
      }
      case St::text:
        if (drop_text_) {
          consume(rest().size());
          return;
        }
        if (scan_text(none, final) < 0) return;
        break;
    }
  }
}

}  // namespace toolwire::textformats
