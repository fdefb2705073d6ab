// harmony — GPT-OSS's channels (the prompt ends with <|start|>assistant):
//   <|channel|>analysis<|message|>reasoning<|end|>
//   <|start|>assistant<|channel|>commentary to=functions.get_weather
//   <|constrain|>json<|message|>{"city":"Paris"}<|call|>
//   <|start|>assistant<|channel|>final<|message|>text<|return|>
// analysis is reasoning; final (and commentary without a recipient, the
// preamble) is text; a message with a recipient `to=functions.NAME` (in the
// header before or after the channel) is a call whose body is the arguments,
// streamed and delimited by the JSON scanner (a <|call|> inside a string is
// text). Output that starts with no header is text; a header ends an
// unclosed message (an analysis message never swallows the call after it).
// A message cut off by
// the end of output keeps what it had (the stop token is usually stripped); a
// call then needs complete JSON arguments.
#include "textformats/families.h"
#include "textformats/parser_base.h"

namespace toolwire::textformats {

namespace {

constexpr std::string_view kStart = "<|start|>";
constexpr std::string_view kChannel = "<|channel|>";
constexpr std::string_view kMessage = "<|message|>";

// The word after `key` in a header, up to a blank or the next `<|`.
std::string_view header_word(std::string_view header, std::string_view key) {
  size_t k = header.find(key);
  if (k == std::string_view::npos) return {};
  std::string_view w = header.substr(k + key.size());
  size_t i = skip_space(w);
  w = w.substr(i);
  size_t e = 0;
  while (e < w.size() && !is_space(w[e]) && !w.substr(e).starts_with("<|")) ++e;
  return w.substr(0, e);
}

enum class St { between, header, body, args, after_args };

class Harmony final : public StateParser<St> {
 public:
  explicit Harmony(const ToolSet* tools) : StateParser(tools, ReasoningMarkers{.enabled = false}) {}

 private:
  bool step(bool final) override {
    static const MarkerSet header_end{kMessage};
    static const MarkerSet body_end{"<|end|>", "<|return|>", "<|call|>", kStart, kChannel};
    switch (st_) {
      case St::between: {
        size_t i = 0;
        std::string_view t = after_blanks(i);
        if (undecided(t, final, {kStart, kChannel, "<|end|>", "<|return|>", "<|call|>"}))
          return false;
        consume(i);
        if (t.empty()) return false;
        for (std::string_view end : {"<|end|>", "<|return|>", "<|call|>"})
          if (t.starts_with(end)) {  // after a broken call
            consume(end.size());
            return true;
          }
        if (t.starts_with(kStart)) consume(kStart.size());
        bool header = t.starts_with(kStart) || t.starts_with(kChannel);
        if (!header) channel_ = "final";  // no header: plain text
        st_ = header ? St::header : St::body;
        return true;
      }
      case St::header: {
        Found f =
            find_or_cut(header_end, final,
                        trim(rest()).empty() ? "" : "the output ended inside a message header");
        if (f.which < 0) return false;
        std::string_view header = rest().substr(0, f.pos);
        channel_ = header_word(header, kChannel);
        std::string recipient(header_word(header, "to="));
        consume(f.pos + kMessage.size());
        boundary();
        if (!recipient.empty()) {
          std::string_view name = recipient;
          if (name.starts_with("functions.")) name.remove_prefix(10);
          begin_call(name);
          st_ = St::args;
        } else {
          st_ = St::body;
        }
        return true;
      }
      case St::body: {
        std::string_view s = rest();
        MarkerSet::Hit hit = body_end.find(s, final);
        std::string_view part = s.substr(0, hit.pos);
        if (channel_ == "analysis")
          reasoning(part);
        else
          text(part);
        if (hit.which < 0) {
          consume(hit.pos);
          return false;
        }
        bool next_header = hit.which >= 3;  // <|start|> or <|channel|> without an <|end|>
        consume(hit.pos + (next_header ? 0 : body_end.marker(hit.which).size()));
        boundary();
        st_ = St::between;
        return true;
      }
      case St::args: {
        Scan sc = stream_args(final);
        if (sc == Scan::more) {
          if (final) end_or_cut_call();
          return false;
        }
        if (sc == Scan::invalid && !trim(call_arguments()).empty()) {
          fail_call("the arguments are not JSON");
          st_ = St::between;
          skip_until(body_end, false);
          return false;
        }
        st_ = sc == Scan::done ? St::after_args : St::between;
        if (sc == Scan::invalid) {  // no arguments: the message ended at once
          size_t i = 0;
          std::string_view t = after_blanks(i);
          if (undecided(t, final, {"<|call|>", "<|end|>"})) return false;
          if (body_end.find(t, true).pos != 0) {
            fail_call("the arguments are not JSON");
            skip_until(body_end, false);
            return false;
          }
        }
        end_call();
        return true;
      }
      case St::after_args:
        if (expect({"<|call|>", "<|end|>", "<|return|>"}, final) == -1) return false;
        boundary();
        st_ = St::between;
        return true;
    }
    return false;
  }

  std::string channel_;
};

}  // namespace

ParserPtr make_harmony(const ToolSet* tools) { return std::make_unique<Harmony>(tools); }

}  // namespace toolwire::textformats
