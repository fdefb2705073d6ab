// toolwire/core/json_writer.h — the one small escaping JSON writer.
//
// Codecs write their wire JSON through this: it appends straight into a
// std::string, inserts commas itself, escapes strings in one pass, and splices
// raw JSON (tool arguments, schemas, unknown fields) without re-parsing it.
//
//   JsonWriter w(out);
//   w.begin_object();
//   w.key("role"); w.string("tool");
//   w.key("input"); w.raw(call.arguments);   // already JSON text
//   w.end_object();
#pragma once

#include <cassert>
#include <cstddef>
#include <cstdint>
#include <cstring>
#include <string>
#include <string_view>

namespace toolwire {

class JsonWriter {
 public:
  explicit JsonWriter(std::string& out) : out_(out) {}

  void begin_object() {
    value_prefix();
    out_.push_back('{');
    push();
  }
  void end_object() {
    pop();
    out_.push_back('}');
  }
  void begin_array() {
    value_prefix();
    out_.push_back('[');
    push();
  }
  void end_array() {
    pop();
    out_.push_back(']');
  }

  void key(std::string_view k) {
    comma();
    append_escaped(out_, k);
    out_.push_back(':');
    after_key_ = true;
  }
  // A key written as a string literal: codecs write a thousand of them per
  // request, so `,"key":` goes out in one append with no escape scan. (A
  // literal holding a quote, backslash or control byte would be a bug; debug
  // builds check.)
  template <size_t N>
  void key(const char (&k)[N]) {
    literal_key(std::string_view(k, std::char_traits<char>::length(k)));
  }

  // A key the caller knows needs no escaping (a literal it checked: no
  // quote, backslash or control byte; debug builds check again), written
  // like a string literal's key, without the escape scan.
  void plain_key(std::string_view k) { literal_key(k); }

  void string(std::string_view s) {
    value_prefix();
    append_escaped(out_, s);
  }
  void raw(std::string_view json) {
    value_prefix();
    out_.append(json);
  }  // caller guarantees valid JSON
  void null() {
    value_prefix();
    out_.append("null");
  }
  void boolean(bool b) {
    value_prefix();
    out_.append(b ? "true" : "false");
  }
  void number(int64_t n);
  void number(double d);

  // Convenience: key + value.
  template <size_t N, class V>
  void field(const char (&k)[N], const V& v) {
    key(k);
    value(v);
  }
  // `"key":"value"` with both literals (`"type":"text"`): one append.
  template <size_t N, size_t M>
  void field(const char (&k)[N], const char (&v)[M]) {
    literal_key(std::string_view(k, std::char_traits<char>::length(k)));
    literal_string(std::string_view(v, std::char_traits<char>::length(v)));
  }
  void field(std::string_view k, std::string_view s) {
    key(k);
    string(s);
  }
  void field(std::string_view k, const char* s) {
    key(k);
    string(s);
  }
  void field_raw(std::string_view k, std::string_view json) {
    key(k);
    raw(json);
  }
  void field(std::string_view k, int64_t n) {
    key(k);
    number(n);
  }
  void field(std::string_view k, int n) {
    key(k);
    number(static_cast<int64_t>(n));
  }
  void field(std::string_view k, bool b) {
    key(k);
    boolean(b);
  }
  void field_null(std::string_view k) {
    key(k);
    null();
  }

  // Appends `s` as a quoted, escaped JSON string.
  static void append_escaped(std::string& out, std::string_view s);

  // Appends `s` in quotes as is; `s` must be plain (see is_plain).
  static void append_quoted_plain(std::string& out, std::string_view s) {
    assert(is_plain(s));
    const size_t base = out.size();
    const size_t total = base + s.size() + 2;
    // The lambda ignores its size argument: GCC 12's libstdc++ passes the
    // new capacity there, not the size asked for.
    out.resize_and_overwrite(total, [&](char* buf, size_t) {
      buf[base] = '"';
      if (!s.empty()) std::memcpy(buf + base + 1, s.data(), s.size());
      buf[total - 1] = '"';
      return total;
    });
  }

  // True when `s` can sit inside a JSON string as is (no quote, backslash or
  // control byte).
  static constexpr bool is_plain(std::string_view s) {
    for (char c : s)
      if (static_cast<unsigned char>(c) < 0x20 || c == '"' || c == '\\') return false;
    return true;
  }

 private:
  void value(std::string_view s) { string(s); }
  void value(const char* s) { string(s); }
  void value(int64_t n) { number(n); }
  void value(int n) { number(static_cast<int64_t>(n)); }
  void value(bool b) { boolean(b); }

  // `[,]"k":` in one append; `k` needs no escaping. Always inline, so that a
  // literal's length is a constant and its copy a store or two: GCC 12 kept it
  // out of line at its ~200 call sites, and inlining it took 1.1–1.7 µs (2–3 %)
  // off each 64 KB request translation (docs/benchmarks/codecs.md).
  [[gnu::always_inline]] void literal_key(std::string_view k) {
    assert(is_plain(k));
    const bool comma = take_comma();
    const size_t base = out_.size();
    const size_t total = base + comma + k.size() + 3;
    out_.resize_and_overwrite(total,
                              [&](char* buf, size_t) {  // (size argument: see append_quoted_plain)
                                char* o = buf + base;
                                *o = ',';
                                o += comma;
                                *o++ = '"';
                                std::memcpy(o, k.data(), k.size());
                                o += k.size();
                                o[0] = '"';
                                o[1] = ':';
                                return total;
                              });
    after_key_ = true;
  }
  // `"s"` as a value; `s` needs no escaping.
  void literal_string(std::string_view s) {
    value_prefix();
    append_quoted_plain(out_, s);
  }

  // Depth is bounded by the IR's shape (codecs never recurse on user data:
  // user JSON is spliced with raw()), so 64 levels of "first" flags suffice.
  static constexpr int kMaxDepth = 64;
  void push() {
    ++depth_;
    if (depth_ < kMaxDepth) first_[depth_] = true;
  }
  void pop() { --depth_; }
  // Whether the next member or element needs a comma before it; marks the
  // current level as no longer empty.
  bool take_comma() {
    if (depth_ >= kMaxDepth) return false;
    const bool needed = !first_[depth_];
    first_[depth_] = false;
    return needed;
  }
  void comma() {
    if (take_comma()) out_.push_back(',');
  }
  void value_prefix() {
    if (after_key_) {
      after_key_ = false;
      return;
    }
    if (depth_ > 0) comma();
  }

  std::string& out_;
  int depth_ = 0;
  bool after_key_ = false;
  bool first_[kMaxDepth] = {};
};

}  // namespace toolwire
