// mistral_v11 — Mistral tokenizer v11+ (Mistral Small 3.2, Magistral, Devstral):
//   [TOOL_CALLS]get_weather[ARGS]{"city": "Paris"}[TOOL_CALLS]get_time[ARGS]{}
// with an optional [CALL_ID]id before [ARGS]. A JSON list right after
// [TOOL_CALLS] (the older mistral_nemo form) is accepted too. Arguments
// stream; a call ends when its JSON object closes.
#include "textformats/families.h"
#include "textformats/json_calls.h"
#include "textformats/parser_base.h"

namespace toolwire::textformats {

namespace {

constexpr std::string_view kToolCalls = "[TOOL_CALLS]";
constexpr std::string_view kArgs = "[ARGS]";
constexpr std::string_view kCallId = "[CALL_ID]";

class MistralV11 final : public ParserBase {
 public:
  explicit MistralV11(const ToolSet* tools) : ParserBase(tools) {}

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
          std::string_view s = rest();
          size_t i = skip_space(s);
          if (i == s.size() && !final) return;
          // `[TOOL_C` may be the next marker rather than a list: wait for it.
          if (!final && is_prefix_of(s.substr(i), kToolCalls)) return;
          if (i < s.size() && (s[i] == '[' || s[i] == '{') &&
              !s.substr(i).starts_with(kToolCalls)) {
            consume(i);
            reset_scan();
            st_ = St::list;
          } else {
            st_ = St::name;
          }
          break;
        }
        case St::name: {
          Found f = find_buffered(name_end, final);
          if (f.which < 0) {
            if (final) {
              if (!trim(rest()).empty()) error("the output ended inside a tool call name");
              consume(rest().size());
            }
            return;
          }
          name_.assign(trim(rest().substr(0, f.pos)));
          consume(f.pos + name_end.marker(f.which).size());
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
          Found f = find_buffered(id_end, final);
          if (f.which < 0) {
            if (final) {
              error("the output ended inside a tool call id");
              consume(rest().size());
            }
            return;
          }
          std::string id(trim(rest().substr(0, f.pos)));
          consume(f.pos + kArgs.size());
          start(id);
          break;
        }
        case St::args: {
          Scan sc = stream_args(final);
          if (sc == Scan::more) {
            if (final) end_or_cut_call();
            return;
          }
          if (sc == Scan::done)
            end_call();
          else if (trim(call_arguments()).empty())
            end_call();  // [ARGS] then nothing: {}
          else
            fail_call("the arguments are not JSON");
          st_ = St::text;
          break;
        }
        case St::list: {
          size_t len = 0;
          Scan sc = scan_buffered(len);
          if (sc == Scan::more) {
            if (!final) return;
            error("the output ended inside the tool call list");
            consume(rest().size());
            return;
          }
          if (sc == Scan::done)
            list(rest().substr(0, len));
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
    reset_scan();
    st_ = St::args;
  }

  void list(std::string_view json) {
    simdjson::dom::element doc;
    if (json_.parse(json.data(), json.size()).get(doc)) {
      error("the tool call list is not valid JSON");
      return;
    }
    auto one = [&](simdjson::dom::element e, size_t i) {
      auto c = json_call(e, scratch_);
      if (!c)
        error("tool call " + std::to_string(i) + ": " + c.error().message);
      else
        whole_call(*c);
    };
    if (doc.is_object()) return one(doc, 0);
    size_t i = 0;
    for (simdjson::dom::element e : doc.get_array()) one(e, i++);
  }

  St st_ = St::text;
  std::string name_;
};

}  // namespace

ParserPtr make_mistral_v11(const ToolSet* tools) { return std::make_unique<MistralV11>(tools); }

}  // namespace toolwire::textformats
