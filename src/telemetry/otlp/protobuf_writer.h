// The few protobuf wire-format pieces an OTLP export request needs: varints,
// fixed64, length-delimited fields and nested messages. Writing only: no
// generated code and no protobuf library (proto3 defaults are left out, as
// protobuf's own serializers do).
#pragma once

#include <cstdint>
#include <cstring>
#include <string>
#include <string_view>

namespace toolwire::telemetry::otlp {

class ProtoWriter {
 public:
  explicit ProtoWriter(std::string& out) : out_(out) {}

  enum Wire : uint32_t { kVarint = 0, kFixed64 = 1, kLen = 2, kFixed32 = 5 };

  void varint(uint64_t v) {
    while (v >= 0x80) {
      out_.push_back(static_cast<char>((v & 0x7f) | 0x80));
      v >>= 7;
    }
    out_.push_back(static_cast<char>(v));
  }
  void tag(uint32_t field, Wire wire) { varint((uint64_t{field} << 3) | wire); }

  // int64, enum and bool fields (negative int64 as ten bytes, as protobuf
  // does). `always`: a oneof member (AnyValue's), written even at its default.
  void int_field(uint32_t field, int64_t v, bool always = false) {
    if (v == 0 && !always) return;
    tag(field, kVarint);
    varint(static_cast<uint64_t>(v));
  }
  void bool_field(uint32_t field, bool v, bool always = false) {
    int_field(field, v ? 1 : 0, always);
  }
  void fixed64_field(uint32_t field, uint64_t v, bool always = false) {
    if (v == 0 && !always) return;
    tag(field, kFixed64);
    for (int i = 0; i < 8; ++i, v >>= 8) out_.push_back(static_cast<char>(v & 0xff));
  }
  void double_field(uint32_t field, double d, bool always = false) {
    uint64_t bits = 0;
    std::memcpy(&bits, &d, sizeof bits);
    fixed64_field(field, bits, always);
  }
  // string and bytes fields.
  void bytes_field(uint32_t field, std::string_view bytes, bool always = false) {
    if (bytes.empty() && !always) return;
    tag(field, kLen);
    varint(bytes.size());
    out_.append(bytes);
  }
  // A nested message, written by `fill(ProtoWriter&)`; kept even when empty
  // (an empty AnyValue or KeyValue still says the field is there).
  template <class Fill>
  void message(uint32_t field, Fill&& fill) {
    std::string inner;
    ProtoWriter w(inner);
    fill(w);
    tag(field, kLen);
    varint(inner.size());
    out_.append(inner);
  }

 private:
  std::string& out_;
};

}  // namespace toolwire::telemetry::otlp
