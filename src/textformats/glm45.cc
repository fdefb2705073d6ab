// glm45 — GLM-4.5 / 4.6:
//   <think>...</think>
//   <tool_call>get_weather
//   <arg_key>city</arg_key>
//   <arg_value>Paris</arg_value>
//   </tool_call>
// Values are text: string properties stay strings, others are parsed as JSON
// when they are (with no schema, any valid JSON value is taken as such). A
// <tool_call> not followed by a name and <arg_key> or </tool_call> is prose;
// one inside an unclosed <think> ends the reasoning.
#include "textformats/families.h"
#include "textformats/parser_base.h"

namespace toolwire::textformats {

namespace {

constexpr std::string_view kKey = "<arg_key>";
constexpr std::string_view kValue = "<arg_value>";
constexpr std::string_view kCut = "the output ended inside this call";

enum class St { text, name, key, before_value, value, args };

class Glm45 final : public StateParser<St> {
 public:
  explicit Glm45(const ToolSet* tools) : StateParser(tools, {.calls = {tag::tool_call}}) {}

 private:
  // Text inside a call that is no markup: the call fails and the rest of the
  // block is dropped.
  bool broken(std::string_view why, bool final) {
    if (final) {
      cut_off(kCut);
      return false;
    }
    fail_call(std::string(why));
    st_ = St::text;
    skip_until(end_);
    return false;
  }

  bool step(bool final) override {
    static const MarkerSet open{tag::tool_call};
    static const MarkerSet key_end{"</arg_key>"};
    static const MarkerSet value_end{"</arg_value>"};
    switch (st_) {
      case St::text:
        return text_until(open, {St::name}, final);
      case St::name: {
        Header h = header({kKey, tag::tool_call_end}, final);
        if (h.which == -1) return false;
        if (h.which == -2) {
          std::string_view t = trim(rest());
          if (final && name_length(t) == t.size()) {
            cut_off("the output ended inside a <tool_call> block");
            return false;
          }
          text(tag::tool_call);  // the tag named in prose
          st_ = St::text;
          return true;
        }
        if (h.name.empty()) {
          error("a <tool_call> without a function name");
          st_ = St::text;
          if (h.which == 0) {
            skip_until(end_);
            return false;
          }
          consume(h.end + tag::tool_call_end.size());
          return true;
        }
        begin_call(h.name);
        consume(h.end + (h.which == 0 ? kKey.size() : tag::tool_call_end.size()));
        if (h.which == 1) end_call();
        st_ = h.which == 0 ? St::key : St::text;
        return true;
      }
      case St::key: {
        Found f = find_or_cut(key_end, final, kCut);
        if (f.which < 0) return false;
        key_ = take(f.pos, 10);
        st_ = St::before_value;
        return true;
      }
      case St::before_value: {
        int m = expect({kValue}, final);
        if (m == -1) return false;
        if (m < 0) return broken("<arg_key> without <arg_value>", final);
        st_ = St::value;
        return true;
      }
      case St::value: {
        Found f = find_or_cut(value_end, final, kCut);
        if (f.which < 0) return false;
        call_param(key_, trim(rest().substr(0, f.pos)), true);
        consume(f.pos + 12);
        st_ = St::args;
        return true;
      }
      case St::args: {
        int m = expect({kKey, tag::tool_call_end}, final);
        if (m == -1) return false;
        if (m < 0) return broken("unexpected text inside <tool_call>", final);
        if (m == 1) end_param_call();
        st_ = m == 0 ? St::key : St::text;
        return true;
      }
    }
    return false;
  }

  static inline const MarkerSet end_{tag::tool_call_end};
  std::string key_;
};

}  // namespace

ParserPtr make_glm45(const ToolSet* tools) { return std::make_unique<Glm45>(tools); }

}  // namespace toolwire::textformats
