// The machinery every family shares: one input buffer consumed front to back,
// reasoning split off first, trimmed text, and the call events with their
// checks. A family implements body(): it reads rest(), emits, consume()s.
#pragma once

#include <string>
#include <string_view>

#include <simdjson.h>

#include "textformats/json_calls.h"
#include "textformats/json_scan.h"
#include "textformats/markers.h"
#include "toolwire/textformats/parser.h"
#include "toolwire/textformats/tool_set.h"

namespace toolwire::textformats {

struct ReasoningMarkers {
  std::string_view open = "<think>";
  std::string_view close = "</think>";
  bool enabled = true;
  // The prompt already opened the block: output starts inside it (DeepSeek-R1).
  bool at_start = false;
};

// Text and reasoning go out trimmed: blanks next to the start, a call, a
// reasoning block or the end are dropped; blanks between words are held until
// the next non-blank arrives, so the result does not depend on the split.
class Trimmer {
 public:
  // Returns what can go out now (may be empty).
  std::string_view put(std::string_view s);
  // A call or block: held blanks go; leading blanks are dropped only at the
  // very start (text after a call keeps its line break).
  void boundary() {
    held_.clear();
    at_boundary_ = !emitted_;
  }

 private:
  std::string held_;
  std::string out_;
  bool at_boundary_ = true;
  bool emitted_ = false;
};

class ParserBase : public TextFormatParser {
 public:
  void feed(std::string_view delta, ParseOutput& out) final;
  void finish(ParseOutput& out) final;

 protected:
  explicit ParserBase(const ToolSet* tools, ReasoningMarkers r = {});

  // Consumes what it can of rest(). `final`: no more input; consume all and
  // report what is unfinished.
  virtual void body(bool final) = 0;

  std::string_view rest() const { return std::string_view(buf_).substr(pos_); }
  void consume(size_t n) {
    pos_ += n;
    mark_ = mark_ > n ? mark_ - n : 0;
  }

  void text(std::string_view s);
  void reasoning(std::string_view s);
  void boundary() { text_trim_.boundary(); }

  // Prose until one of `ms`: emits the text before it, returns the marker's
  // index with the marker consumed (left in place when !consume_marker), or
  // -1 when there is none yet (everything safe emitted; at final, all).
  int scan_text(const MarkerSet& ms, bool final, bool consume_marker = true);
  // Blanks, then one of `words`: its index (consumed with the blanks), -1
  // to wait for more input, -2 for anything else (only blanks consumed).
  int expect(std::initializer_list<std::string_view> words, bool final);
  // Looks for `ms` in a region kept buffered (a name, a whole call): returns
  // its offset in rest() or npos; the search resumes where it stopped.
  struct Found {
    size_t pos = std::string_view::npos;
    int which = -1;
  };
  Found find_buffered(const MarkerSet& ms, bool final);

  // A JSON object or array at the start of rest(), kept buffered until it
  // ends: done (its length in `length`), more, or invalid (`length`: the
  // bytes before the offending one). Each byte is scanned once.
  enum class Scan { more, done, invalid };
  Scan scan_buffered(size_t& length);
  // The current call's arguments streamed from rest() as they arrive (leading
  // blanks skipped): done once the object closed, invalid at a byte JSON
  // cannot have there (nothing consumed from it), more otherwise.
  Scan stream_args(bool final);
  void reset_scan() { scan_.reset(); }

  // Calls.
  int begin_call(std::string_view name, std::string_view id = {});
  void call_args(std::string_view fragment);
  void end_call();                      // checks the arguments; ToolCallEnd, or an error and none
  void fail_call(std::string message);  // an error and no ToolCallEnd
  // At the end of output inside a call whose closing markup never came:
  // complete JSON arguments end it (servers strip stop strings), else it was
  // cut off.
  void end_or_cut_call();
  void whole_call(std::string_view name, std::string_view id, std::string_view arguments);
  // A call whose arguments json_call() took from a parsed object: the
  // arguments are known to be a JSON object, so they are not parsed again.
  void whole_call(const JsonCall& call);
  bool in_call() const { return call_open_; }
  const std::string& call_name() const { return call_name_; }
  const std::string& call_arguments() const { return args_; }
  void error(std::string message, int call_index = -1);

  // A value written as text (XML parameters), typed by the tool's schema:
  // string properties stay strings; numbers, booleans, objects and arrays are
  // parsed when they are valid; with no schema, `guess` parses any valid JSON.
  std::string typed_value(std::string_view property, std::string_view raw, bool guess);

  const ToolSet* tools_;
  simdjson::dom::parser json_;
  simdjson::dom::parser scratch_;  // a second document (arguments inside a string)

 private:
  void run(bool final);
  void close_call();  // the arguments are an object: schema check, ToolCallEnd

  simdjson::dom::parser check_;  // end_call's own: a family may be walking json_'s document
  JsonScanner scan_;
  std::string buf_;
  size_t pos_ = 0;
  size_t mark_ = 0;  // find_buffered's resume offset into rest()
  ParseOutput* out_ = nullptr;
  ReasoningMarkers think_;
  MarkerSet think_close_;
  enum class Phase { start, reasoning, body } phase_ = Phase::start;
  Trimmer text_trim_;
  Trimmer reasoning_trim_;
  int next_call_ = 0;
  bool call_open_ = false;
  std::string call_name_;
  std::string args_;
};

}  // namespace toolwire::textformats
