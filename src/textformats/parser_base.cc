#include "textformats/parser_base.h"

#include <cassert>
#include <cctype>

#include "toolwire/core/json_depth.h"
#include "toolwire/core/json_writer.h"

namespace toolwire::textformats {

std::string Trimmer::put(std::string_view s) {
  size_t b = at_boundary_ ? skip_space(s) : 0;
  size_t e = s.size();
  while (e > b && is_space(s[e - 1])) --e;
  if (e == b) {  // blanks only
    if (!at_boundary_) held_.append(s.substr(b));
    return {};
  }
  at_boundary_ = false;
  emitted_ = true;
  std::string out;
  if (held_.empty()) {
    out.assign(s.data() + b, e - b);
  } else {
    out.reserve(held_.size() + (e - b));
    out.append(held_);
    out.append(s.substr(b, e - b));
    held_.clear();
  }
  if (e < s.size()) held_.assign(s.substr(e));
  return out;
}

namespace {

std::array<std::string_view, 6> ends_of(const ReasoningMarkers& r) {
  return {r.close[0], r.close[1], r.calls[0], r.calls[1], r.calls[2], r.calls[3]};
}

}  // namespace

size_t name_length(std::string_view s) {
  size_t i = 0;
  while (i < s.size() && i <= kMaxName) {
    auto c = static_cast<unsigned char>(s[i]);
    if (!std::isalnum(c) && c != '_' && c != '-' && c != '.' && c != ':' && c != '/') break;
    ++i;
  }
  return i;
}

ParserBase::ParserBase(const ToolSet* tools, ReasoningMarkers r)
    : tools_(tools), think_(r), think_end_(ends_of(r)) {
  if (!think_.enabled) phase_ = Phase::body;
}

void ParserBase::feed(std::string_view delta, ParseOutput& out) {
  out_ = &out;
  if (pos_ == buf_.size()) {
    // Nothing buffered: the delta is read where it is, and only what is left
    // of it is kept (a whole output in one piece is never copied).
    buf_.clear();
    pos_ = 0;
    in_ = delta;
    run(false);
    if (pos_ < in_.size()) buf_.assign(in_.substr(pos_));
    pos_ = 0;
    in_ = buf_;
    return;
  }
  buf_.append(delta);
  in_ = buf_;
  run(false);
  // Drop what was consumed once it is most of the buffer: amortised linear.
  if (pos_ == buf_.size()) {
    buf_.clear();
    pos_ = 0;
  } else if (pos_ > 4096 && pos_ * 2 > buf_.size()) {
    buf_.erase(0, pos_);
    pos_ = 0;
  }
  in_ = buf_;
}

void ParserBase::finish(ParseOutput& out) {
  out_ = &out;
  in_ = buf_;
  run(true);
  if (call_open_) fail_call("the output ended inside this call");
  buf_.clear();
  pos_ = 0;
  in_ = buf_;
}

void ParserBase::run(bool final) {
  while (true) {
    if (phase_ == Phase::start) {
      size_t i = 0;
      std::string_view t = after_blanks(i);
      const std::array<std::string_view, 4> edges = {think_.open[0], think_.open[1],
                                                     think_.close[0], think_.close[1]};
      int edge = -1;
      for (size_t k = 0; k < edges.size(); ++k)
        if (!edges[k].empty() && t.starts_with(edges[k])) edge = static_cast<int>(k);
      if (edge >= 0) {
        // An opening marker starts the block; a closing one ends a block the
        // prompt opened (or an empty one) and goes.
        consume(i + edges[static_cast<size_t>(edge)].size());
        phase_ = edge < 2 ? Phase::reasoning : Phase::body;
      } else if (undecided(t, final, {edges[0], edges[1], edges[2], edges[3]})) {
        return;
      } else {
        phase_ = think_.at_start ? Phase::reasoning : Phase::body;
      }
      continue;
    }
    if (phase_ == Phase::reasoning) {
      std::string_view s = rest();
      MarkerSet::Hit hit = think_end_.find(s, final);
      reasoning(s.substr(0, hit.pos));
      if (hit.which < 0) {
        consume(hit.pos);
        return;
      }
      // A closing marker goes; a call's marker stays for body().
      bool closes = think_end_.marker(hit.which) == think_.close[0] ||
                    think_end_.marker(hit.which) == think_.close[1];
      consume(hit.pos + (closes ? think_end_.marker(hit.which).size() : 0));
      phase_ = Phase::body;
      continue;
    }
    while (true) {
      if (skip_ && !skip_past(*skip_, final, skip_marker_)) return;
      skip_ = nullptr;
      body(final);
      if (!skip_) return;
    }
  }
}

void ParserBase::text(std::string_view s) {
  if (s.empty()) return;
  std::string t = text_trim_.put(s);
  if (!t.empty()) out_->events.push_back(ir::TextDelta{std::move(t)});
}

void ParserBase::reasoning(std::string_view s) {
  if (s.empty()) return;
  std::string t = reasoning_trim_.put(s);
  if (!t.empty()) out_->events.push_back(ir::ThinkingDelta{std::move(t), {}, false});
}

int ParserBase::scan_text(const MarkerSet& ms, bool final, bool consume_marker) {
  std::string_view s = rest();
  MarkerSet::Hit hit = ms.find(s, final);
  text(s.substr(0, hit.pos));
  if (hit.which < 0) {
    consume(hit.pos);
    return -1;
  }
  consume(hit.pos + (consume_marker ? ms.marker(hit.which).size() : 0));
  return hit.which;
}

ParserBase::Header ParserBase::header(std::initializer_list<std::string_view> next,
                                      bool final) const {
  std::string_view s = rest();
  size_t b = skip_space(s);
  size_t n = name_length(s.substr(b));
  size_t i = skip_space(s, b + n);
  if (n > kMaxName || i - n > kMaxName) return {};
  if (undecided(s.substr(i), final, next)) return {-1};
  int k = 0;
  for (std::string_view w : next) {
    if (s.substr(i).starts_with(w)) return {k, s.substr(b, n), i};
    ++k;
  }
  return {};
}

int ParserBase::open_fence(std::initializer_list<std::string_view> starts, bool final) {
  constexpr size_t kMaxInfo = 32;  // "```json": a language tag, not a line of prose
  std::string_view s = rest();
  size_t i = 3;
  while (
      i < s.size() && i < kMaxInfo && s[i] != '\n' &&
      (std::isalnum(static_cast<unsigned char>(s[i])) || s[i] == ' ' || s[i] == '_' || s[i] == '-'))
    ++i;
  if (i == s.size() && !final && i < kMaxInfo) return -1;
  if (i < s.size() && s[i] == '\n') {
    size_t j = skip_space(s, i + 1);
    std::string_view t = s.substr(j);
    if (undecided(t, final, starts) && j - i < kMaxInfo) return -1;
    int k = 0;
    for (std::string_view w : starts) {
      if (t.starts_with(w)) {
        fence_.assign(s.substr(0, j));
        consume(j);
        return k;
      }
      ++k;
    }
  }
  text(s.substr(0, 3));
  consume(3);
  return -2;
}

bool ParserBase::close_open_fence(std::initializer_list<std::string_view> more, bool final) {
  size_t i = 0;
  std::string_view t = after_blanks(i);
  if (undecided(t, final, more) || undecided(t, final, {"```"})) return false;
  for (std::string_view w : more)
    if (t.starts_with(w)) return true;  // another call in the same fence
  if (t.starts_with("```")) consume(i + 3);
  fence_.clear();
  return true;
}

int ParserBase::expect(std::initializer_list<std::string_view> words, bool final) {
  size_t i = 0;
  std::string_view t = after_blanks(i);
  consume(i);
  if (undecided(t, final, words)) return -1;  // a longer word may match ("```" vs "```json")
  int k = 0;
  for (std::string_view w : words) {
    if (t.starts_with(w)) {
      consume(w.size());
      return k;
    }
    ++k;
  }
  return -2;
}

ParserBase::Found ParserBase::find_buffered(const MarkerSet& ms, bool final) {
  std::string_view s = rest();
  if (mark_ > s.size()) mark_ = s.size();
  MarkerSet::Hit hit = ms.find(s.substr(mark_), final);
  if (hit.which < 0) {
    mark_ += hit.pos;
    return {};
  }
  return {mark_ + hit.pos, hit.which};
}

ParserBase::Found ParserBase::find_or_cut(const MarkerSet& ms, bool final, std::string_view cut) {
  Found f = find_buffered(ms, final);
  if (f.which < 0 && final) cut_off(cut);
  return f;
}

void ParserBase::cut_off(std::string_view message) {
  if (call_open_)
    fail_call(std::string(message));
  else if (!message.empty())
    error(std::string(message));
  consume(rest().size());
}

bool ParserBase::skip_past(const MarkerSet& ms, bool final, bool consume_marker) {
  Found f = find_buffered(ms, final);
  if (f.which < 0) {
    if (final) consume(rest().size());
    return false;
  }
  consume(f.pos + (consume_marker ? ms.marker(f.which).size() : 0));
  return true;
}

std::string ParserBase::take(size_t length, size_t skip) {
  std::string out(trim(rest().substr(0, length)));
  consume(length + skip);
  return out;
}

int ParserBase::begin_call(std::string_view name, std::string_view id) {
  assert(!call_open_);
  boundary();
  call_open_ = true;
  call_name_.assign(name);
  args_.clear();
  scan_.reset();
  int index = next_call_++;
  out_->events.push_back(ir::ToolCallStart{index, std::string(id), std::string(name)});
  return index;
}

void ParserBase::call_args(std::string_view fragment) {
  if (fragment.empty()) return;
  args_.append(fragment);
  out_->events.push_back(ir::ToolCallDelta{next_call_ - 1, std::string(fragment)});
}

void ParserBase::error(std::string message, int call_index) {
  out_->errors.push_back(FormatError{call_index, std::move(message)});
}

void ParserBase::fail_call(std::string message) {
  assert(call_open_);
  call_open_ = false;
  boundary();
  error(std::move(message), next_call_ - 1);
}

void ParserBase::end_call() {
  assert(call_open_);
  if (trim(args_).empty()) call_args("{}");
  simdjson::dom::element doc;
  auto err = check_.parse(args_).get(doc);
  if (err) {
    fail_call("the arguments are not valid JSON (" + std::string(simdjson::error_message(err)) +
              ")");
    return;
  }
  if (!doc.is_object()) {
    fail_call("the arguments are not a JSON object");
    return;
  }
  close_call();
}

void ParserBase::close_call() {
  const int index = next_call_ - 1;
  call_open_ = false;
  boundary();
  if (tools_ && !tools_->empty()) {
    nlohmann::json args = parse_json_bounded<nlohmann::json>(args_);
    Status st = tools_->validate(call_name_, args);
    if (!st) error(call_name_ + ": " + st.error().message, index);
  }
  out_->events.push_back(ir::ToolCallEnd{index});
}

void ParserBase::whole_call(std::string_view name, std::string_view id,
                            std::string_view arguments) {
  begin_call(name, id);
  call_args(arguments);
  end_call();
}

void ParserBase::whole_call(const JsonCall& call) {
  begin_call(call.name, call.id);
  call_args(call.arguments);  // never empty: json_call writes {} for none
  close_call();
}

void ParserBase::json_object_call(simdjson::dom::element obj, std::string_view where,
                                  const CallKeys& keys) {
  auto c = json_call(obj, scratch_, keys);
  if (c)
    whole_call(*c);
  else if (where.empty())
    error(c.error().message);
  else
    error(std::string(where) + ": " + c.error().message);
}

void ParserBase::json_list_calls(std::string_view json, const CallKeys& keys) {
  simdjson::dom::element doc;
  if (json_.parse(json.data(), json.size()).get(doc)) {
    error("the tool call list is not valid JSON");
    return;
  }
  json_list_calls(doc, keys);
}

void ParserBase::json_list_calls(simdjson::dom::element doc, const CallKeys& keys) {
  if (doc.is_object()) return json_object_call(doc, "tool call 0", keys);
  size_t i = 0;
  for (simdjson::dom::element e : doc.get_array())
    json_object_call(e, "tool call " + std::to_string(i++), keys);
}

void ParserBase::code_call(std::string_view tool, std::string_view code) {
  std::string args = "{\"code\":";
  JsonWriter::append_escaped(args, code);
  args += '}';
  whole_call(tool, "", args);
}

ParserBase::Scan ParserBase::scan_state() const {
  switch (scan_.state()) {
    case JsonScanner::State::done:
      return Scan::done;
    case JsonScanner::State::invalid:
      return Scan::invalid;
    default:
      return Scan::more;
  }
}

ParserBase::Scan ParserBase::scan_buffered(size_t& length) {
  if (scan_state() != Scan::more) scan_.reset();
  std::string_view s = rest();
  if (mark_ > s.size()) mark_ = s.size();
  size_t n = scan_.scan(s.substr(mark_));
  mark_ += n;
  length = mark_;
  return scan_state();
}

ParserBase::JsonValue ParserBase::json_value(bool final, std::string_view cut) {
  JsonValue v;
  Scan sc = scan_buffered(v.length);
  if (sc == Scan::more && final && !cut.empty()) cut_off(cut);
  if (sc == Scan::more && (!final || !cut.empty())) return v;
  if (sc == Scan::more) {
    v.length = rest().size();
    v.state = JsonValue::cut;
  } else {
    bool ok = sc == Scan::done && !json_.parse(rest().data(), v.length).get(v.doc);
    v.state = ok ? JsonValue::valid : JsonValue::invalid;
  }
  return v;
}

bool ParserBase::list_calls(std::string_view marker, const CallKeys& keys, bool final) {
  JsonValue v = json_value(final, "the output ended inside the tool call list");
  if (v.state == JsonValue::wait) return false;
  if (v.state == JsonValue::invalid) {
    error("the text after " + std::string(marker) + " is not a JSON list");
    return true;  // the rest is prose
  }
  json_list_calls(v.doc, keys);
  consume(v.length);
  return true;
}

ParserBase::Scan ParserBase::stream_args(bool final) {
  std::string_view s = rest();
  if (!scan_.started()) {
    size_t i = skip_space(s);
    consume(i);
    s = rest();
    if (s.empty()) return Scan::more;
  }
  size_t n = scan_.scan(s);
  call_args(s.substr(0, n));
  consume(n);
  return scan_state();
}

ParserBase::Args ParserBase::stream_args_until(std::string_view end, bool final) {
  Scan sc = stream_args(final);
  if (sc == Scan::more) {
    if (final) end_or_cut_call();
    return Args::wait;
  }
  if (sc == Scan::done && end.empty()) {
    end_call();
    return Args::closed;
  }
  if (sc == Scan::done) return Args::done;
  if (trim(args_).empty()) {
    if (!final && is_prefix_of(rest(), end)) return Args::wait;  // maybe the end marker
    if (rest().starts_with(end)) {
      consume(end.size());
      end_call();
      return Args::closed;
    }
  }
  fail_call("the arguments are not JSON");
  return Args::failed;
}

int ParserBase::args_to_end(std::string_view end, const MarkerSet& skip, bool final,
                            std::string_view fence) {
  if (args_stage_ == 0) {
    Args a = stream_args_until(end, final);
    if (a == Args::wait) return -1;
    if (a == Args::failed) skip_until(skip);
    if (a != Args::done) return a == Args::failed ? 2 : 0;
    args_stage_ = fence.empty() ? 2 : 1;
  }
  if (args_stage_ == 1) {
    if (expect({fence}, final) == -1) return -1;
    args_stage_ = 2;
  }
  int m = end_call_at(end, final);
  if (m == -1) return -1;
  args_stage_ = 0;
  return m == 0 ? 0 : 1;
}

int ParserBase::end_call_at(std::string_view end, bool final) {
  int m = expect({end}, final);
  if (m != -1) end_call();
  return m;
}

void ParserBase::end_or_cut_call() {
  simdjson::dom::element doc;
  if (trim(args_).empty() || check_.parse(args_).get(doc) || !doc.is_object())
    fail_call("the output ended inside this call");
  else
    end_call();
}

std::string ParserBase::typed_value(std::string_view property, std::string_view raw, bool guess) {
  std::string out;
  const nlohmann::json* schema = tools_ ? tools_->property_schema(call_name_, property) : nullptr;
  std::string type;
  if (schema && schema->is_object()) {
    auto t = schema->find("type");
    if (t != schema->end() && t->is_string()) type = t->get<std::string>();
    if (t != schema->end() && t->is_array())
      for (const auto& x : *t)
        if (x.is_string() && x != "null") {
          type = x.get<std::string>();
          break;
        }
  }
  std::string_view v = trim(raw);
  auto parsed = [&](auto accept) {
    simdjson::dom::element e;
    if (v.empty() || json_.parse(v.data(), v.size()).get(e) || !accept(e)) return false;
    out = simdjson::to_string(e);
    return true;
  };
  bool done = false;
  if (type == "integer" || type == "number") {
    done = parsed([](simdjson::dom::element e) { return e.is_number(); });
  } else if (type == "boolean") {
    std::string lower(v);
    for (char& c : lower) c = static_cast<char>(std::tolower(static_cast<unsigned char>(c)));
    if (lower == "true" || lower == "false") {
      out = lower;
      done = true;
    }
  } else if (type == "object") {
    done = parsed([](simdjson::dom::element e) { return e.is_object(); });
  } else if (type == "array") {
    done = parsed([](simdjson::dom::element e) { return e.is_array(); });
  } else if (type == "null") {
    done = parsed([](simdjson::dom::element e) { return e.is_null(); });
  } else if (type.empty() && (schema || guess)) {
    done = parsed([](simdjson::dom::element) { return true; });
  }
  if (!done) JsonWriter::append_escaped(out, raw);
  return out;
}

void ParserBase::call_param(std::string_view key, std::string_view raw, bool guess) {
  std::string piece(args_.empty() ? "{" : ",");
  JsonWriter::append_escaped(piece, key);
  piece += ':';
  piece += typed_value(key, raw, guess);
  call_args(piece);
}

void ParserBase::end_param_call() {
  if (!args_.empty()) call_args("}");
  end_call();
}

}  // namespace toolwire::textformats
