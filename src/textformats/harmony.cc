// harmony — GPT-OSS's channels (the prompt ends with <|start|>assistant):
//   <|channel|>analysis<|message|>reasoning<|end|>
//   <|start|>assistant<|channel|>commentary to=functions.get_weather
//   <|constrain|>json<|message|>{"city":"Paris"}<|call|>
//   <|start|>assistant<|channel|>final<|message|>text<|return|>
// analysis is reasoning; final (and commentary without a recipient, the
// preamble) is text; a message with a recipient `to=functions.NAME` (in the
// header before or after the channel) is a call whose body is the arguments,
// streamed. Output that starts with no header is text. A message cut off by
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

class Harmony final : public ParserBase {
 public:
  explicit Harmony(const ToolSet* tools) : ParserBase(tools, ReasoningMarkers{.enabled = false}) {}

 private:
  enum class St { between, header, body, args };

  void body(bool final) override {
    static const MarkerSet header_end{kMessage};
    static const MarkerSet body_end{"<|end|>", "<|return|>", "<|call|>", kStart, kChannel};
    while (true) {
      switch (st_) {
        case St::between: {
          size_t i = 0;
          std::string_view t = after_blanks(i);
          if (t.starts_with(kStart)) {
            consume(i + kStart.size());
            st_ = St::header;
          } else if (t.starts_with(kChannel)) {
            consume(i);
            st_ = St::header;
          } else if (undecided(t, final, {kStart, kChannel})) {
            return;
          } else if (t.empty()) {
            consume(i);
            return;
          } else {
            channel_ = "final";  // no header: plain text
            st_ = St::body;
          }
          break;
        }
        case St::header: {
          Found f =
              find_or_cut(header_end, final,
                          trim(rest()).empty() ? "" : "the output ended inside a message header");
          if (f.which < 0) return;
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
          break;
        }
        case St::body:
        case St::args: {
          std::string_view s = rest();
          if (st_ == St::args && trim(call_arguments()).empty()) {  // skip leading blanks
            size_t i = skip_space(s);
            consume(i);
            s = rest();
          }
          MarkerSet::Hit hit = body_end.find(s, final);
          std::string_view part = s.substr(0, hit.pos);
          if (st_ == St::args)
            call_args(part);
          else if (channel_ == "analysis")
            reasoning(part);
          else
            text(part);
          if (hit.which < 0) {
            consume(hit.pos);
            if (final && st_ == St::args) end_or_cut_call();
            return;
          }
          bool next_header = hit.which >= 3;  // <|start|> or <|channel|> without an <|end|>
          consume(hit.pos + (next_header ? 0 : body_end.marker(hit.which).size()));
          if (st_ == St::args) end_call();
          boundary();
          st_ = St::between;
          break;
        }
      }
    }
  }

  St st_ = St::between;
  std::string channel_;
};

}  // namespace

ParserPtr make_harmony(const ToolSet* tools) { return std::make_unique<Harmony>(tools); }

}  // namespace toolwire::textformats
