// glm45 — GLM-4.5 / 4.6:
//   <think>...</think>
//   <tool_call>get_weather
//   <arg_key>city</arg_key>
//   <arg_value>Paris</arg_value>
//   </tool_call>
// Values are text: string properties stay strings, others are parsed as JSON
// when they are (with no schema, any valid JSON value is taken as such).
#include "textformats/families.h"
#include "textformats/parser_base.h"

namespace toolwire::textformats {

namespace {

constexpr std::string_view kKey = "<arg_key>";
constexpr std::string_view kValue = "<arg_value>";
constexpr std::string_view kEnd = "</tool_call>";

class Glm45 final : public ParserBase {
 public:
  using ParserBase::ParserBase;

 private:
  enum class St { text, name, key, before_value, value, args };

  void cut() {
    if (in_call())
      fail_call("the output ended inside this call");
    else
      error("the output ended inside a <tool_call> block");
    consume(rest().size());
  }

  void body(bool final) override {
    static const MarkerSet open{"<tool_call>"};
    static const MarkerSet name_end{kKey, kEnd};
    static const MarkerSet key_end{"</arg_key>"};
    static const MarkerSet value_end{"</arg_value>"};
    static const MarkerSet end{kEnd};
    while (true) {
      switch (st_) {
        case St::text:
          if (scan_text(open, final) < 0) return;
          st_ = St::name;
          break;
        case St::name: {
          Found f = find_buffered(name_end, final);
          if (f.which < 0) {
            if (final) cut();
            return;
          }
          std::string name = take(f.pos, name_end.marker(f.which).size());
          if (name.empty()) {
            error("a <tool_call> without a function name");
            st_ = St::text;
            if (f.which == 0) return skip_until(end);
            break;
          }
          begin_call(name);
          if (f.which == 1) {
            end_call();
            st_ = St::text;
          } else {
            st_ = St::key;
          }
          break;
        }
        case St::key: {
          Found f = find_buffered(key_end, final);
          if (f.which < 0) {
            if (final) cut();
            return;
          }
          key_ = take(f.pos, 10);
          st_ = St::before_value;
          break;
        }
        case St::before_value: {
          int m = expect({kValue}, final);
          if (m == -1) return;
          if (m < 0) {
            if (final) {
              cut();
              return;
            }
            fail_call("<arg_key> without <arg_value>");
            st_ = St::text;
            return skip_until(end);
          }
          st_ = St::value;
          break;
        }
        case St::value: {
          Found f = find_buffered(value_end, final);
          if (f.which < 0) {
            if (final) cut();
            return;
          }
          call_param(key_, trim(rest().substr(0, f.pos)), true);
          consume(f.pos + 12);
          st_ = St::args;
          break;
        }
        case St::args: {
          int m = expect({kKey, kEnd}, final);
          if (m == -1) return;
          if (m == 0) {
            st_ = St::key;
          } else if (m == 1) {
            end_param_call();
            st_ = St::text;
          } else {
            if (final) {
              cut();
              return;
            }
            fail_call("unexpected text inside <tool_call>");
            st_ = St::text;
            return skip_until(end);
          }
          break;
        }
      }
    }
  }

  St st_ = St::text;
  std::string key_;
};

}  // namespace

ParserPtr make_glm45(const ToolSet* tools) { return std::make_unique<Glm45>(tools); }

}  // namespace toolwire::textformats
