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
// JSON object inside <tool_call> (the hermes form Qwen models fall back to).
// A parameter whose </parameter> is missing ends at the next <parameter= or
// </function>.
#include "textformats/families.h"
#include "textformats/parser_base.h"

namespace toolwire::textformats {

namespace {

constexpr std::string_view kFunction = "<function=";
constexpr std::string_view kParameter = "<parameter=";
constexpr std::string_view kEndFunction = "</function>";
constexpr std::string_view kEndToolCall = "</tool_call>";

class Qwen3Coder final : public ParserBase {
 public:
  using ParserBase::ParserBase;

 private:
  enum class St { text, wrapper, json, name, params, key, value, after };

  void body(bool final) override {
    static const MarkerSet open{"<tool_call>", kFunction};
    static const MarkerSet gt{">"};
    static const MarkerSet end_value{"</parameter>", kParameter, kEndFunction};
    static const MarkerSet end_tool_call{kEndToolCall};
    while (true) {
      switch (st_) {
        case St::text: {
          int m = scan_text(open, final);
          if (m < 0) return;
          st_ = m == 0 ? St::wrapper : St::name;
          break;
        }
        case St::wrapper: {
          int m = expect({kFunction, "{"}, final);
          if (m == -1) return;
          if (m == 0) {
            st_ = St::name;
          } else if (m == 1) {
            st_ = St::json;  // hermes-style JSON; its brace was consumed
          } else {
            error(final ? "the output ended inside a <tool_call> block"
                        : "<tool_call> without <function=...>");
            st_ = St::text;
            return skip_until(end_tool_call);
          }
          break;
        }
        case St::json: {
          Found f = find_buffered(end_tool_call, final);
          if (f.which < 0 && !final) return;
          size_t len = f.which < 0 ? rest().size() : f.pos;
          std::string body = "{" + std::string(rest().substr(0, len));
          simdjson::dom::element doc;
          if (json_.parse(body).get(doc))
            error(f.which < 0 ? "the output ended inside a <tool_call> block"
                              : "a <tool_call> block is neither <function=...> nor JSON");
          else
            json_object_call(doc, "<tool_call>");
          consume(f.which < 0 ? len : len + kEndToolCall.size());
          st_ = St::text;
          if (f.which < 0) return;
          break;
        }
        case St::name: {
          Found f = find_or_cut(gt, final, "the output ended inside a <function=...> tag");
          if (f.which < 0) return;
          begin_call(take(f.pos, 1));
          st_ = St::params;
          break;
        }
        case St::params: {
          int m = expect({kParameter, kEndFunction, kEndToolCall}, final);
          if (m == -1) return;
          if (m == 0) {
            st_ = St::key;
          } else if (m == 1 || m == 2) {
            end_param_call();
            st_ = m == 1 ? St::after : St::text;
          } else {
            fail_call(final ? "the output ended inside this call"
                            : "unexpected text inside <function=...>");
            st_ = St::text;
            return skip_until(end_tool_call);
          }
          break;
        }
        case St::key: {
          Found f = find_or_cut(gt, final, "the output ended inside this call");
          if (f.which < 0) return;
          key_ = take(f.pos, 1);
          st_ = St::value;
          break;
        }
        case St::value: {
          Found f = find_or_cut(end_value, final, "the output ended inside this call");
          if (f.which < 0) return;
          std::string_view v = rest().substr(0, f.pos);
          if (v.starts_with('\n')) v.remove_prefix(1);
          if (v.ends_with('\n')) v.remove_suffix(1);
          call_param(key_, v, false);
          consume(f.which == 0 ? f.pos + 12 : f.pos);
          st_ = St::params;
          break;
        }
        case St::after: {
          int m = expect({kEndToolCall}, final);
          if (m == -1) return;
          st_ = St::text;
          break;
        }
      }
    }
  }

  St st_ = St::text;
  std::string key_;
};

}  // namespace

ParserPtr make_qwen3_coder(const ToolSet* tools) { return std::make_unique<Qwen3Coder>(tools); }

}  // namespace toolwire::textformats
