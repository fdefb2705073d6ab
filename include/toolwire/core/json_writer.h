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

#include <cstdint>
#include <string>
#include <string_view>

namespace toolwire {

class JsonWriter {
 public:
  explicit JsonWriter(std::string& out) : out_(out) {}

  void begin_object() { value_prefix(); out_.push_back('{'); push(); }
  void end_object() { pop(); out_.push_back('}'); }
  void begin_array() { value_prefix(); out_.push_back('['); push(); }
  void end_array() { pop(); out_.push_back(']'); }

  void key(std::string_view k) {
    comma();
    append_escaped(out_, k);
    out_.push_back(':');
    after_key_ = true;
  }

  void string(std::string_view s) { value_prefix(); append_escaped(out_, s); }
  void raw(std::string_view json) { value_prefix(); out_.append(json); }  // caller guarantees valid JSON
  void null() { value_prefix(); out_.append("null"); }
  void boolean(bool b) { value_prefix(); out_.append(b ? "true" : "false"); }
  void number(int64_t n);
  void number(double d);

  // Convenience: key + value.
  void field(std::string_view k, std::string_view s) { key(k); string(s); }
  void field(std::string_view k, const char* s) { key(k); string(s); }
  void field_raw(std::string_view k, std::string_view json) { key(k); raw(json); }
  void field(std::string_view k, int64_t n) { key(k); number(n); }
  void field(std::string_view k, int n) { key(k); number(static_cast<int64_t>(n)); }
  void field(std::string_view k, bool b) { key(k); boolean(b); }
  void field_null(std::string_view k) { key(k); null(); }

  // Appends `s` as a quoted, escaped JSON string.
  static void append_escaped(std::string& out, std::string_view s);

 private:
  // Depth is bounded by the IR's shape (codecs never recurse on user data:
  // user JSON is spliced with raw()), so 64 levels of "first" flags suffice.
  static constexpr int kMaxDepth = 64;
  void push() { ++depth_; if (depth_ < kMaxDepth) first_[depth_] = true; }
  void pop() { --depth_; }
  void comma() {
    if (depth_ < kMaxDepth) {
      if (!first_[depth_]) out_.push_back(',');
      first_[depth_] = false;
    }
  }
  void value_prefix() {
    if (after_key_) { after_key_ = false; return; }
    if (depth_ > 0) comma();
  }

  std::string& out_;
  int depth_ = 0;
  bool after_key_ = false;
  bool first_[kMaxDepth] = {};
};

}  // namespace toolwire
