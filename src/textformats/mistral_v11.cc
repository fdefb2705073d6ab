// mistral_v11 — Mistral tokenizer v11+ (Mistral Small 3.2, Magistral, Devstral):
//   [THINK]...[/THINK]                     (Magistral; <think>...</think> too)
//   [TOOL_CALLS]get_weather[ARGS]{"city": "Paris"}[TOOL_CALLS]get_time[ARGS]{}
// with an optional [CALL_ID]id before [ARGS]. A JSON list right after
// [TOOL_CALLS] (the older mistral_nemo form) is accepted too. Arguments
// stream; a call ends when its JSON object closes (the JSON scanner delimits
// it: markers inside strings are text). [ARGS] lost in detokenisation
// (NAME{...}) still reads as a call; [TOOL_CALLS] followed by no name and
// [ARGS] / [CALL_ID] / `{` is prose that mentions it.
#include "textformats/families.h"
#include "textformats/parser_base.h"

namespace toolwire::textformats {

namespace {

constexpr std::string_view kArgs = "[ARGS]";
constexpr std::string_view kCallId = "[CALL_ID]";

enum class St { text, head, name, id, args, list };

class MistralV11 final : public StateParser<St> {
 public:
  explicit MistralV11(const ToolSet* tools)
      : StateParser(tools, {.open = {"[THINK]", "<think>"},
                            .close = {"[/THINK]", "</think>"},
                            .calls = {tag::tool_calls}}) {}

 private:
  bool step(bool final) override {
    static const MarkerSet open{tag::tool_calls};
    switch (st_) {
      case St::text:
        return text_until(open, {St::head}, final);
      case St::head: {
        size_t i = 0;
        std::string_view t = after_blanks(i);
        // `[TOOL_C` may be the next marker rather than a list: wait for it.
        if (undecided(t, final, {tag::tool_calls})) return false;
        if ((t.starts_with('[') || t.starts_with('{')) && !t.starts_with(tag::tool_calls)) {
          consume(i);
          st_ = St::list;
        } else {
          st_ = St::name;
        }
        return true;
      }
      case St::name: {
        Header h = header({kArgs, kCallId, "{", tag::tool_calls}, final);
        if (h.which == -1) return false;
        if (h.which == -2 || h.name.empty()) {
          std::string_view t = trim(rest());
          if (final && !t.empty() && name_length(t) == t.size()) {
            cut_off("the output ended inside a tool call name");
            return false;
          }
          if (!t.empty()) text(tag::tool_calls);  // the marker named in prose
          st_ = St::text;
          return true;
        }
        std::string name(h.name);
        if (h.which == 3) {
          error("[TOOL_CALLS] " + name + " without [ARGS]");
          consume(h.end);
          st_ = St::text;
          return true;
        }
        name_ = name;
        consume(h.end + (h.which == 0 ? kArgs.size() : h.which == 1 ? kCallId.size() : 0));
        if (h.which == 1) {
          st_ = St::id;
          return true;
        }
        begin_call(name_);
        st_ = St::args;
        return true;
      }
      case St::id: {
        Header h = header({kArgs, "{"}, final);
        if (h.which == -1) return false;
        if (h.which == -2) {
          if (final) {
            cut_off("the output ended inside a tool call id");
            return false;
          }
          error("[CALL_ID] without [ARGS]");
          st_ = St::text;
          return true;
        }
        begin_call(name_, h.name);
        consume(h.end + (h.which == 0 ? kArgs.size() : 0));
        st_ = St::args;
        return true;
      }
      case St::args: {
        // No end marker: [ARGS] then nothing is {}.
        if (stream_args_until({}, final) == Args::wait) return false;
        st_ = St::text;
        return true;
      }
      case St::list:
        if (!list_calls(tag::tool_calls, {}, final)) return false;
        st_ = St::text;
        return true;
    }
    return false;
  }

  std::string name_;
};

}  // namespace

ParserPtr make_mistral_v11(const ToolSet* tools) { return std::make_unique<MistralV11>(tools); }

}  // namespace toolwire::textformats
