#include "telemetry/store/spans_record.h"

#include <array>
#include <bit>
#include <cstdint>
#include <cstring>
#include <type_traits>

namespace toolwire::telemetry {

namespace {

// The attribute names the gateway writes (docs/traces.md), numbered from 1
// in the record. Only ever appended to: a record names them by position.
// A name missing here is written out in full.
constexpr std::array<std::string_view, 30> kNames = {
    "gen_ai.operation.name",
    "gen_ai.request.model",
    "gen_ai.provider.name",
    "toolwire.route",
    "toolwire.upstream",
    "toolwire.dialect.caller",
    "toolwire.stream",
    "toolwire.attempts",
    "gen_ai.response.model",
    "gen_ai.response.id",
    "gen_ai.usage.input_tokens",
    "gen_ai.usage.output_tokens",
    "gen_ai.response.finish_reasons",
    "toolwire.http_attempts",
    "toolwire.time_to_first_byte_ms",
    "toolwire.outcome",
    "toolwire.latency_ms",
    "gen_ai.tool.name",
    "gen_ai.tool.call.id",
    "toolwire.tool.runner",
    "toolwire.tool.outcome",
    "gen_ai.tool.call.arguments",
    "gen_ai.tool.call.result",
    "toolwire.warnings",
    "toolwire.stream_warnings",
    "toolwire.round",
    "toolwire.output.text",
    "toolwire.duration_ms",
    "http.response.status_code",
    "error.type",
};

// The table's names by length (each length has few): a lookup compares the
// bytes of one or two names, not up to thirty (the linear search was about
// a third of a trace's encoding).
constexpr size_t kMaxLength = 48, kPerLength = 6;
constexpr auto kByLength = [] {
  std::array<std::array<uint8_t, kPerLength + 1>, kMaxLength + 1> t{};  // [0]: how many
  for (size_t i = 0; i < kNames.size(); ++i) {
    auto& row = t[kNames[i].size()];
    if (kNames[i].size() > kMaxLength || row[0] == kPerLength) throw "grow kMaxLength/kPerLength";
    row[1 + row[0]++] = static_cast<uint8_t>(i);
  }
  return t;
}();

size_t name_number(std::string_view name) {
  if (name.size() > kMaxLength) return 0;
  const auto& row = kByLength[name.size()];
  for (size_t j = 1; j <= row[0]; ++j)
    if (std::memcmp(kNames[row[j]].data(), name.data(), name.size()) == 0) return row[j] + 1u;
  return 0;
}

enum Tag : unsigned char { kString = 0, kInt = 1, kDouble = 2, kFalse = 3, kTrue = 4 };

// Writes into room reserved for it (bound() bytes): no capacity check per
// byte, which was most of a trace's encoding.
class Writer {
 public:
  explicit Writer(char* p) : p_(p) {}
  char* end() const { return p_; }
  void byte(unsigned char b) { *p_++ = static_cast<char>(b); }
  void varint(uint64_t v) {
    while (v >= 0x80) {
      *p_++ = static_cast<char>((v & 0x7f) | 0x80);
      v >>= 7;
    }
    *p_++ = static_cast<char>(v);
  }
  void zigzag(int64_t v) {
    varint((static_cast<uint64_t>(v) << 1) ^ static_cast<uint64_t>(v >> 63));
  }
  void str(std::string_view s) {
    varint(s.size());
    if (!s.empty()) std::memcpy(p_, s.data(), s.size());
    p_ += s.size();
  }
  void f64(double d) {
    auto u = std::bit_cast<uint64_t>(d);
    for (int i = 0; i < 8; ++i, u >>= 8) *p_++ = static_cast<char>(u & 0xff);
  }

 private:
  char* p_;
};

constexpr size_t kVarint = 10;  // the most bytes a varint takes

// The most bytes the record of `spans` can take.
size_t bound(const std::vector<Span>& spans) {
  size_t n = 1 + kVarint;
  for (const Span& s : spans) {
    n += 4 * kVarint + s.span_id.size() + s.name.size() + s.kind.size() + s.status_message.size() +
         2 * kVarint + 1 + kVarint;
    for (const auto& [k, v] : s.attributes) {
      n += 2 * kVarint + k.size() + 1 + kVarint;
      if (const auto* text = std::get_if<std::string>(&v)) n += text->size();
    }
  }
  return n;
}

// A bounds-checked reader: every read fails, rather than reading past the end.
class Reader {
 public:
  explicit Reader(std::string_view in) : in_(in) {}
  bool done() const { return pos_ == in_.size(); }

  bool byte(unsigned char& b) {
    if (pos_ >= in_.size()) return false;
    b = static_cast<unsigned char>(in_[pos_++]);
    return true;
  }
  bool varint(uint64_t& v) {
    v = 0;
    for (int shift = 0; shift < 64; shift += 7) {
      unsigned char b;
      if (!byte(b)) return false;
      v |= static_cast<uint64_t>(b & 0x7f) << shift;
      if ((b & 0x80) == 0) return true;
    }
    return false;  // more than ten bytes
  }
  bool zigzag(int64_t& v) {
    uint64_t u;
    if (!varint(u)) return false;
    v = static_cast<int64_t>((u >> 1) ^ (~(u & 1) + 1));
    return true;
  }
  bool str(std::string_view& s) {
    uint64_t n;
    if (!varint(n) || n > in_.size() - pos_) return false;
    s = in_.substr(pos_, n);
    pos_ += n;
    return true;
  }
  bool str(std::string& s) {
    std::string_view v;
    if (!str(v)) return false;
    s.assign(v);
    return true;
  }
  bool f64(double& d) {
    if (in_.size() - pos_ < 8) return false;
    uint64_t u = 0;
    for (int i = 7; i >= 0; --i) u = (u << 8) | static_cast<unsigned char>(in_[pos_ + i]);
    d = std::bit_cast<double>(u);
    pos_ += 8;
    return true;
  }
  // A count of items each taking at least `min_bytes`: larger than what is
  // left means a corrupt record (and no huge reserve()).
  bool count(uint64_t& n, size_t min_bytes) {
    return varint(n) && n <= (in_.size() - pos_) / min_bytes;
  }

 private:
  std::string_view in_;
  size_t pos_ = 0;
};

// What AttrKey allows: a name written into JSON as it is.
bool plain_name(std::string_view name) {
  for (char c : name)
    if (static_cast<unsigned char>(c) < 0x20 || c == '"' || c == '\\') return false;
  return true;
}

Error corrupt(std::string_view what) {
  return make_error(ErrorCode::parse_error,
                    "a stored trace's spans cannot be read: " + std::string(what));
}

}  // namespace

void append_spans_record(const std::vector<Span>& spans, std::string& out) {
  const size_t base = out.size();
  out.resize_and_overwrite(base + bound(spans), [&](char* buf, size_t) {
    Writer w(buf + base);
    w.byte(kSpansRecordForm);
    w.varint(spans.size());
    for (const Span& s : spans) {
      w.str(s.span_id);
      w.str(s.name);
      w.str(s.kind);
      w.zigzag(s.start_us);
      w.zigzag(s.duration_us);
      w.byte(s.error ? 1 : 0);
      w.str(s.status_message);
      w.varint(s.attributes.size());
      for (const auto& [k, v] : s.attributes) {
        const size_t n = name_number(k);
        w.varint(n);
        if (n == 0) w.str(k);
        std::visit(
            [&](const auto& x) {
              using T = std::decay_t<decltype(x)>;
              if constexpr (std::is_same_v<T, std::string>) {
                w.byte(kString);
                w.str(x);
              } else if constexpr (std::is_same_v<T, bool>) {
                w.byte(x ? kTrue : kFalse);
              } else if constexpr (std::is_same_v<T, int64_t>) {
                w.byte(kInt);
                w.zigzag(x);
              } else {
                w.byte(kDouble);
                w.f64(x);
              }
            },
            v);
      }
    }
    return static_cast<size_t>(w.end() - buf);
  });
}

Result<DecodedSpans> decode_spans_record(std::string_view record) {
  Reader r(record);
  unsigned char form;
  if (!r.byte(form) || form != kSpansRecordForm) return corrupt("not a spans record");
  DecodedSpans out;
  uint64_t n;
  // A span takes at least 8 bytes (4 empty strings, 2 varints, a flag, a count).
  if (!r.count(n, 8)) return corrupt("a bad span count");
  out.spans.reserve(n);
  for (uint64_t i = 0; i < n; ++i) {
    Span& s = out.spans.emplace_back();
    unsigned char error;
    uint64_t attrs;
    if (!r.str(s.span_id) || !r.str(s.name) || !r.str(s.kind) || !r.zigzag(s.start_us) ||
        !r.zigzag(s.duration_us) || !r.byte(error) || error > 1 || !r.str(s.status_message) ||
        !r.count(attrs, 2))
      return corrupt("a span cut short or malformed");
    s.error = error == 1;
    s.attributes.reserve(attrs);
    for (uint64_t a = 0; a < attrs; ++a) {
      uint64_t k;
      if (!r.varint(k) || k > kNames.size()) return corrupt("an unknown attribute name");
      std::string_view name;
      if (k > 0) {
        name = kNames[k - 1];
      } else {
        if (!r.str(name) || !plain_name(name)) return corrupt("a bad attribute name");
        name = out.names.emplace_back(name);
      }
      unsigned char tag;
      if (!r.byte(tag)) return corrupt("an attribute cut short");
      Value v;
      switch (tag) {
        case kString: {
          std::string text;
          if (!r.str(text)) return corrupt("an attribute cut short");
          v = std::move(text);
          break;
        }
        case kInt: {
          int64_t x;
          if (!r.zigzag(x)) return corrupt("an attribute cut short");
          v = x;
          break;
        }
        case kDouble: {
          double x;
          if (!r.f64(x)) return corrupt("an attribute cut short");
          v = x;
          break;
        }
        case kFalse:
        case kTrue:
          v = tag == kTrue;
          break;
        default:
          return corrupt("an unknown value type");
      }
      s.attributes.emplace_back(name, std::move(v));
    }
  }
  if (!r.done()) return corrupt("bytes after the last span");
  return out;
}

Result<std::string> spans_record_json(std::string_view record) {
  auto decoded = decode_spans_record(record);
  if (!decoded) return std::move(decoded).error();
  Trace t;
  t.spans = std::move(decoded->spans);
  return t.spans_json();
}

}  // namespace toolwire::telemetry
