// The machinery every family shares: one input buffer consumed front to back,
// reasoning split off first, trimmed text, and the call events with their
// checks. A family implements body(): it reads rest(), emits, consume()s.
#pragma once

#include <algorithm>
#include <array>
#include <string>
#include <string_view>

#include <simdjson.h>

#include "textformats/json_calls.h"
#include "textformats/json_scan.h"
#include "textformats/markers.h"
#include "toolwire/textformats/parser.h"
#include "toolwire/textformats/tool_set.h"

namespace toolwire::textformats {

// A family's reasoning block: one of `open` at the start of the output (blanks
// before it allowed) until one of `close`. A marker of `calls` ends an
// unclosed block too and is left for body(): a call is never reasoning.
struct ReasoningMarkers {
  std::array<std::string_view, 2> open = {"<think>"};
  std::array<std::string_view, 2> close = {"</think>"};
  std::array<std::string_view, 4> calls = {};
  bool enabled = true;
  // The prompt already opened the block: output starts inside it (DeepSeek-R1).
  bool at_start = false;
};

// Text and reasoning go out trimmed: blanks next to the start, a call, a
// reasoning block or the end are dropped; blanks between words are held until
// the next non-blank arrives, so the result does not depend on the split.
class Trimmer {
 public:
  // What can go out now (empty when nothing can).
  std::string put(std::string_view s);
  // A call or block: held blanks go; leading blanks are dropped only at the
  // very start (text after a call keeps its line break).
  void boundary() {
    held_.clear();
    at_boundary_ = !emitted_;
  }

 private:
  std::string held_;
  bool at_boundary_ = true;
  bool emitted_ = false;
};

// The characters of a tool name or call id (letters, digits, _ - . : /), at
// most kMaxName of them: the length of the name at the start of `s`.
constexpr size_t kMaxName = 256;
size_t name_length(std::string_view s);

class ParserBase : public TextFormatParser {
 public:
  // Public so that a family can inherit it (`using ParserBase::ParserBase`).
  explicit ParserBase(const ToolSet* tools, ReasoningMarkers r = {});
  void feed(std::string_view delta, ParseOutput& out) final;
  void finish(ParseOutput& out) final;
  // The prompt ended inside the reasoning block (ParserOptions::reasoning_open).
  void start_in_reasoning() {
    if (think_.enabled) think_.at_start = true;
  }

 protected:
  // Consumes what it can of rest(). `final`: no more input; consume all and
  // report what is unfinished.
  virtual void body(bool final) = 0;

  std::string_view rest() const { return in_.substr(pos_); }
  // rest() past its leading blanks, counted in `blanks` (not consumed).
  std::string_view after_blanks(size_t& blanks) const {
    std::string_view s = rest();
    blanks = skip_space(s);
    return s.substr(blanks);
  }
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
  // Blanks before the marker are held: a marker that turns out to be prose
  // goes out as text() with them; a call drops them (begin_call).
  int scan_text(const MarkerSet& ms, bool final, bool consume_marker = true);
  // After an opening marker: blanks, a name (name_length), blanks, then one
  // of `next`. Nothing is consumed; `which` is the index of the word found,
  // -1 to wait for more input, -2 when this is no such header (prose).
  struct Header {
    int which = -2;
    std::string_view name;  // in rest()
    size_t end = 0;         // the offset of the word in rest()
  };
  Header header(std::initializer_list<std::string_view> next, bool final) const;
  // A code fence whose first line opens a call (after prose: "```json\n{").
  // At "```" in rest(): reads the fence's info string and the blanks after
  // its line; when one of `starts` follows, consumes up to it and returns its
  // index (the fence is then open: fence_open()); -1 to wait; -2 when the
  // fence holds something else (the "```" goes out as text).
  int open_fence(std::initializer_list<std::string_view> starts, bool final);
  bool fence_open() const { return !fence_.empty(); }
  // The open fence holds no call after all: what open_fence consumed
  // ("```json\n") goes out as text and the fence is prose.
  void fence_is_text() {
    text(fence_);
    fence_.clear();
  }
  // In an open fence, after a call: blanks and the closing "```" are dropped
  // (true), unless one of `more` (another call) comes first; anything else
  // ends the fence as prose. false to wait for more input.
  bool close_fence(std::initializer_list<std::string_view> more, bool final) {
    return fence_.empty() || close_open_fence(more, final);
  }
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
  // The output ended inside unfinished markup: `message` fails the open
  // call, or is reported (unless empty) when none is open; the rest is dropped.
  void cut_off(std::string_view message);
  // find_buffered; at the end of output with no marker, cut_off(`cut`).
  Found find_or_cut(const MarkerSet& ms, bool final, std::string_view cut);
  // Drops rest() up to the next of `ms` (and the marker, when
  // `consume_marker`): true once there, false to wait for more input (at the
  // end of output everything is dropped).
  bool skip_past(const MarkerSet& ms, bool final, bool consume_marker = true);
  // After a broken call: input up to the next of `ms` (and the marker, when
  // `consume_marker`) is dropped before body() runs again, in the state it
  // set. body() returns right after asking.
  void skip_until(const MarkerSet& ms, bool consume_marker = true) {
    skip_ = &ms;
    skip_marker_ = consume_marker;
  }
  // The first `length` bytes of rest(), trimmed, consumed with `skip` more.
  std::string take(size_t length, size_t skip);

  // A JSON object or array at the start of rest(), kept buffered until it
  // ends: done (its length in `length`), more, or invalid (`length`: the
  // bytes before the offending one). Each byte is scanned once; after done
  // or invalid, the next call scans a new value.
  enum class Scan { more, done, invalid };
  Scan scan_buffered(size_t& length);
  // The next find_buffered / scan_buffered starts again at the start of rest().
  void rescan() {
    mark_ = 0;
    scan_.reset();
  }
  // scan_buffered, and the value parsed (into json_) once it closed. wait:
  // more input is needed (at the end of output, cut_off(`cut`) first);
  // valid: `doc` holds it, `length` is its size; invalid: not JSON (`length`
  // bytes of it are known to be so); cut: the output ended inside it and
  // `cut` is empty (`length`: all of rest()).
  struct JsonValue {
    enum { wait, valid, invalid, cut } state = wait;
    size_t length = 0;
    simdjson::dom::element doc;
  };
  JsonValue json_value(bool final, std::string_view cut);
  // A JSON list of calls (or one call object) at rest(), after `marker`:
  // false to wait for more input; true once it is read (its calls emitted, or
  // an error: cut off, or no JSON, and then what follows is prose).
  bool list_calls(std::string_view marker, const CallKeys& keys, bool final);
  // The current call's arguments streamed from rest() as they arrive (leading
  // blanks skipped): done once the object closed, invalid at a byte JSON
  // cannot have there (nothing consumed from it), more otherwise.
  Scan stream_args(bool final);
  // stream_args for a call closed by `end`, which may also come alone (no
  // arguments: {}). wait: for more input (at the end of output the call was
  // ended or cut off); done: the object closed, `end` is still to come;
  // closed: the call ended (`end` came first, or, when `end` is empty, the
  // object closed or nothing came); failed: not JSON, the call failed.
  enum class Args { wait, done, closed, failed };
  Args stream_args_until(std::string_view end, bool final);
  // After Args::done: blanks, then `end` ends the call (also when it is
  // missing). expect()'s answer: -1 to wait, 0 for `end`, -2 without it.
  int end_call_at(std::string_view end, bool final);
  // The rest of a call whose arguments stream up to `end`: the arguments
  // (stream_args_until), the optional `fence` after them ("```"), then `end`
  // (end_call_at). -1 to wait for more input; 0 once `end` ended the call, 1
  // when the call ended without it; 2 when it failed: input up to `skip` is
  // then dropped (skip_until), so the caller returns at once.
  int args_to_end(std::string_view end, const MarkerSet& skip, bool final,
                  std::string_view fence = {});
  // A broken block: `message`, and input up to `skip` is dropped. false, for
  // step() to return.
  bool broken(std::string message, const MarkerSet& skip, bool consume_marker = true) {
    error(std::move(message));
    skip_until(skip, consume_marker);
    return false;
  }

  // Calls. begin_call also restarts the JSON scan, for stream_args.
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
  // A call object (json_call), or an error `where: why` (`why` alone when
  // `where` is empty).
  void json_object_call(simdjson::dom::element obj, std::string_view where,
                        const CallKeys& keys = {});
  // A JSON list of call objects, or one object; a bad element is reported
  // alone and the others still count.
  void json_list_calls(std::string_view json, const CallKeys& keys = {});
  void json_list_calls(simdjson::dom::element doc, const CallKeys& keys);
  // A call of `tool` with {"code": code} (Python written after a tag).
  void code_call(std::string_view tool, std::string_view code);
  bool in_call() const { return call_open_; }
  const std::string& call_name() const { return call_name_; }
  const std::string& call_arguments() const { return args_; }
  void error(std::string message, int call_index = -1);

  // A value written as text (XML parameters), typed by the tool's schema:
  // string properties stay strings; numbers, booleans, objects and arrays are
  // parsed when they are valid; with no schema, `guess` parses any valid JSON.
  std::string typed_value(std::string_view property, std::string_view raw, bool guess);
  // One XML parameter of the open call, typed (typed_value), added to its
  // arguments object; end_param_call closes the object and the call.
  void call_param(std::string_view key, std::string_view raw, bool guess);
  void end_param_call();

  const ToolSet* tools_;
  simdjson::dom::parser json_;
  simdjson::dom::parser scratch_;  // a second document (arguments inside a string)

 private:
  void run(bool final);
  bool close_open_fence(std::initializer_list<std::string_view> more, bool final);
  Scan scan_state() const;
  void close_call();  // the arguments are an object: schema check, ToolCallEnd

  std::string fence_;  // the open fence's head, empty when none
  const MarkerSet* skip_ = nullptr;
  bool skip_marker_ = true;
  simdjson::dom::parser check_;  // end_call's own: a family may be walking json_'s document
  JsonScanner scan_;
  std::string buf_;      // input not yet consumed (and some that was, until it is dropped)
  std::string_view in_;  // what is read: buf_, or a delta that came with nothing buffered
  size_t pos_ = 0;       // the first byte of in_ not consumed
  size_t mark_ = 0;      // find_buffered's resume offset into rest()
  ParseOutput* out_ = nullptr;
  ReasoningMarkers think_;
  MarkerSet think_end_;  // think_.close, then think_.calls
  enum class Phase { start, reasoning, body } phase_ = Phase::start;
  Trimmer text_trim_;
  Trimmer reasoning_trim_;
  int next_call_ = 0;
  int args_stage_ = 0;  // args_to_end: 0 arguments, 1 fence, 2 end
  bool call_open_ = false;
  std::string call_name_;
  std::string args_;
};

// A family written as a state machine over its enum St (the first value is
// the initial state): step() handles st_ and returns true to go on, false to
// wait for more input (or right after skip_until).
template <class St>
class StateParser : public ParserBase {
 public:
  using ParserBase::ParserBase;

 protected:
  virtual bool step(bool final) = 0;
  // Prose until a marker of `open` (consumed): false to wait; else the state
  // becomes next[the marker's index] (the last entry for any later marker).
  bool text_until(const MarkerSet& open, std::initializer_list<St> next, bool final) {
    int m = scan_text(open, final);
    if (m < 0) return false;
    st_ = next.begin()[std::min(static_cast<size_t>(m), next.size() - 1)];
    return true;
  }

  St st_{};

 private:
  void body(bool final) final {
    while (step(final)) {
    }
  }
};

}  // namespace toolwire::textformats
