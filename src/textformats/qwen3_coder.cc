// qwen3_coder — Qwen3-Coder's XML calls:
//   <tool_call>
//   <function=get_weather>
//   <parameter=city>
//   Paris
//   </parameter>
//   </function>
//   </tool_call>
// Values are text; the tool's schema types them (typed_value). The call starts
// when its name is read and each parameter goes out when it closes. A bare
// <function=...> without the <tool_call> wrapper is accepted, and so is a
// JSON object inside <tool_call> (the hermes form Qwen models fall back to;
// the JSON scanner delimits it, so markers inside its strings are text). A
// parameter whose </parameter> is missing ends at the next <parameter= or
// </function>. Tags not followed by what they open (`<tool_call> tags`,
// `<function=name> in prose`) are prose.
#include "textformats/families.h"
#include "textformats/parser_base.h"

namespace toolwire::textformats {

namespace {

constexpr std::string_view kParameter = "<parameter=";

enum class St { text, wrapper, function, json, params, key, value, after };

class Qwen3Coder final : public StateParser<St> {
 public:
  explicit Qwen3Coder(const ToolSet* tools)
      : StateParser(tools, {.calls = {tag::tool_call, tag::function}}) {}

 private:
  // Markup that turned out to be prose: the tags read so far are text.
  bool prose() {
    if (wrapped_) text(tag::tool_call);
    wrapped_ = false;
    st_ = St::text;
    return true;
  }

  bool step(bool final) override {
    static const MarkerSet open{tag::tool_call, tag::function};
    static const MarkerSet gt{">"};
    static const MarkerSet end_value{"</parameter>", kParameter, tag::function_end};
    static const MarkerSet end_tool_call{tag::tool_call_end};
    switch (st_) {
      case St::text: {
        int m = scan_text(open, final, false);
        if (m < 0) return false;
        wrapped_ = m == 0;
        if (m == 0) consume(tag::tool_call.size());
        st_ = m == 0 ? St::wrapper : St::function;
        return true;
      }
      case St::wrapper: {
        size_t i = 0;
        std::string_view t = after_blanks(i);
        if (undecided(t, final, {tag::function})) return false;
        if (t.empty()) {
          cut_off("the output ended inside a <tool_call> block");
          return false;
        }
        if (!t.starts_with(tag::function) && !t.starts_with('{')) return prose();
        consume(i);
        st_ = t.starts_with('{') ? St::json : St::function;
        return true;
      }
      case St::function: {  // at <function=NAME>, then a parameter or the end
        std::string_view s = rest().substr(tag::function.size());
        size_t n = name_length(s);
        if (n == s.size() && !final && n <= kMaxName) return false;
        if (n == 0 || n > kMaxName || n == s.size() || s[n] != '>') {
          text(tag::function);
          consume(tag::function.size());
          return prose();
        }
        size_t i = skip_space(s, n + 1);
        std::string_view t = s.substr(i);
        if (undecided(t, final, {kParameter, tag::function_end})) return false;
        if (t.empty()) {
          cut_off("the output ended inside a <function=...> tag");
          return false;
        }
        if (!t.starts_with(kParameter) && !t.starts_with(tag::function_end)) {
          text(tag::function);
          consume(tag::function.size());
          return prose();
        }
        begin_call(s.substr(0, n));
        consume(tag::function.size() + i);
        st_ = St::params;
        return true;
      }
      case St::json: {
        JsonValue v = json_value(final, "the output ended inside a <tool_call> block");
        if (v.state == JsonValue::wait) return false;
        st_ = St::text;
        if (v.state != JsonValue::valid)
          return broken("a <tool_call> block is neither <function=...> nor JSON", end_tool_call);
        json_object_call(v.doc, "<tool_call>");
        consume(v.length);
        st_ = St::after;
        return true;
      }
      case St::params: {
        int m = expect({kParameter, tag::function_end, tag::tool_call_end}, final);
        if (m == -1) return false;
        if (m == 0) {
          st_ = St::key;
        } else if (m == 1 || m == 2) {
          end_param_call();
          st_ = m == 1 ? St::after : St::text;
        } else {
          fail_call(final ? "the output ended inside this call"
                          : "unexpected text inside <function=...>");
          st_ = St::text;
          skip_until(end_tool_call);
          return false;
        }
        return true;
      }
      case St::key: {
        Found f = find_or_cut(gt, final, "the output ended inside this call");
        if (f.which < 0) return false;
        key_ = take(f.pos, 1);
        st_ = St::value;
        return true;
      }
      case St::value: {
        Found f = find_or_cut(end_value, final, "the output ended inside this call");
        if (f.which < 0) return false;
        std::string_view v = rest().substr(0, f.pos);
        if (v.starts_with('\n')) v.remove_prefix(1);
        if (v.ends_with('\n')) v.remove_suffix(1);
        call_param(key_, v, false);
        consume(f.which == 0 ? f.pos + 12 : f.pos);
        st_ = St::params;
        return true;
      }
      case St::after:
        if (expect({tag::tool_call_end}, final) == -1) return false;
        wrapped_ = false;
        st_ = St::text;
        return true;
    }
    return false;
  }

  bool wrapped_ = false;  // inside <tool_call>
  std::string key_;
};

}  // namespace

ParserPtr make_qwen3_coder(const ToolSet* tools) { return std::make_unique<Qwen3Coder>(tools); }

}  // namespace toolwire::textformats
