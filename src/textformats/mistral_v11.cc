// mistral_v11 — Mistral tokenizer v11+ (Mistral Small 3.2, Magistral, Devstral):
//   [TOOL_CALLS]get_weather[ARGS]{"city": "Paris"}[TOOL_CALLS]get_time[ARGS]{}
// with an optional [CALL_ID]id before [ARGS]. A JSON list right after
// [TOOL_CALLS] (the older mistral_nemo form) is accepted too. Arguments
// stream; a call ends when its JSON object closes.
#include "textformats/families.h"
#include "textformats/parser_base.h"

namespace toolwire::textformats {

namespace {

constexpr std::string_view kToolCalls = "[TOOL_CALLS]";
constexpr std::string_view kArgs = "[ARGS]";
constexpr std::string_view kCallId = "[CALL_ID]";

class MistralV11 final : public ParserBase {
 public:
  using ParserBase::ParserBase;

 private:
  enum class St { text, head, name, id, args, list };

  void body(bool final) override {
    static const MarkerSet open{kToolCalls};
    static const MarkerSet name_end{kArgs, kCallId, kToolCalls};
    static const MarkerSet id_end{kArgs};
    while (true) {
      switch (st_) {
        case St::text:
          if (scan_text(open, final) < 0) return;
          st_ = St::head;
          break;
        case St::head: {
          size_t i = 0;
          std::string_view t = after_blanks(i);
          // `[TOOL_C` may be the next marker rather than a list: wait for it.
          if (undecided(t, final, {kToolCalls})) return;
          if ((t.starts_with('[') || t.starts_with('{')) && !t.starts_with(kToolCalls)) {
            consume(i);
            st_ = St::list;
          } else {
            st_ = St::name;
          }
          break;
        }
        case St::name: {
          Found f =
              find_or_cut(name_end, final,
                          trim(rest()).empty() ? "" : "the output ended inside a tool call name");
          if (f.which < 0) return;
          name_ = take(f.pos, name_end.marker(f.which).size());
          if (f.which == 2) {
            error("[TOOL_CALLS] " + name_ + " without [ARGS]");
            st_ = St::head;
          } else if (f.which == 1) {
            st_ = St::id;
          } else {
            start("");
          }
          break;
        }
        case St::id: {
          Found f = find_or_cut(id_end, final, "the output ended inside a tool call id");
          if (f.which < 0) return;
          start(take(f.pos, kArgs.size()));
          break;
        }
        case St::args: {
          // No end marker: [ARGS] then nothing is {}.
          Args a = stream_args_until({}, final);
          if (a == Args::wait) return;
          st_ = St::text;
          break;
        }
        case St::list: {
          size_t len = 0;
          Scan sc = scan_buffered(len);
          if (sc == Scan::more) {
            if (final) cut_off("the output ended inside the tool call list");
            return;
          }
          if (sc == Scan::done)
            json_list_calls(rest().substr(0, len));
          else
            error("the text after [TOOL_CALLS] is not a JSON list");
          if (sc == Scan::done) consume(len);
          st_ = St::text;
          break;
        }
      }
    }
  }

  void start(std::string_view id) {
    if (name_.empty()) {
      error("a [TOOL_CALLS] call without a name");
      st_ = St::text;
      return;
    }
    begin_call(name_, id);
    st_ = St::args;
  }

  St st_ = St::text;
  std::string name_;
};

}  // namespace

ParserPtr make_mistral_v11(const ToolSet* tools) { return std::make_unique<MistralV11>(tools); }

}  // namespace toolwire::textformats
