#include "textformats/json_answer.h"

namespace toolwire::textformats {

using json_answer::St;

bool JsonAnswer::step(bool final) {
  static const MarkerSet fence{"```"};
  switch (st_) {
    case St::start: {
      size_t i = 0;
      std::string_view t = after_blanks(i);
      if (undecided(t, final, {"```"})) return false;
      consume(i);
      st_ = t.starts_with('{') ? St::json : St::prose;
      return true;
    }
    case St::prose: {
      if (!close_fence({}, final)) return false;
      if (scan_text(fence, final, false) < 0) {
        if (final && !answered_) on_prose();
        return false;
      }
      int m = open_fence({"{"}, final);  // after a wait, scan_text finds it again at once
      if (m == -1) return false;
      if (m == 0) st_ = St::json;
      return true;
    }
    case St::json: {
      JsonValue v = json_value(final, {});
      if (v.state == JsonValue::wait) return false;
      std::string_view src = rest().substr(0, v.length);
      if (v.state != JsonValue::valid) {
        on_broken(src, v.state == JsonValue::cut);
        answered_ = true;
      } else if (on_value(v.doc, src)) {
        answered_ = true;
      } else {  // some other JSON: text, with its fence
        if (fence_open()) fence_is_text();
        text(src);
      }
      consume(src.size());
      boundary();
      st_ = St::prose;
      return true;
    }
  }
  return false;
}

}  // namespace toolwire::textformats
