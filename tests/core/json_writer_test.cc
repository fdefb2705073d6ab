#include "toolwire/core/json_writer.h"

#include <gtest/gtest.h>

#include <nlohmann/json.hpp>
#if defined(__x86_64__)
#include <cpuid.h>
#endif
#include <cstdint>
#include <random>

#include "core/json_escape.h"

namespace toolwire {
namespace {

TEST(JsonWriter, WritesNestedObjectsWithCommas) {
  std::string out;
  JsonWriter w(out);
  w.begin_object();
  w.field("a", "x");
  w.key("b");
  w.begin_array();
  w.number(int64_t{1});
  w.number(2.5);
  w.boolean(true);
  w.null();
  w.begin_object();
  w.end_object();
  w.end_array();
  w.field_raw("c", R"({"k":[1,2]})");
  w.end_object();
  EXPECT_EQ(out, R"({"a":"x","b":[1,2.5,true,null,{}],"c":{"k":[1,2]}})");
}

// Literal keys and values take a path without an escape scan; runtime
// strings (string_view, std::string, const char*) take the escaping one. Both
// must write the same JSON, commas included, at every nesting level.
TEST(JsonWriter, LiteralAndRuntimeKeysWriteTheSameJson) {
  const std::string k_type = "type", v_text = "text", k_quote = "q\"uote", v_esc = "line\nbreak";
  const char* k_ptr = "n";
  std::string lit, run;
  {
    JsonWriter w(lit);
    w.begin_object();
    w.field("type", "text");
    w.field("text", v_esc);
    w.field(k_quote, v_esc);  // a runtime key that needs escaping
    w.field("n", int64_t{7});
    w.field("i", 3);
    w.field("b", false);
    w.key("arr");
    w.begin_array();
    w.begin_object();
    w.field("type", "text");
    w.end_object();
    w.begin_object();
    w.end_object();
    w.end_array();
    w.end_object();
  }
  {
    JsonWriter w(run);
    w.begin_object();
    w.field(std::string_view(k_type), std::string_view(v_text));
    w.field(std::string_view("text"), std::string_view(v_esc));
    w.field(std::string_view(k_quote), std::string_view(v_esc));
    w.field(std::string_view(k_ptr), int64_t{7});
    w.field(std::string_view("i"), 3);
    w.field(std::string_view("b"), false);
    w.key(std::string_view("arr"));
    w.begin_array();
    w.begin_object();
    w.field(std::string_view("type"), std::string_view("text"));
    w.end_object();
    w.begin_object();
    w.end_object();
    w.end_array();
    w.end_object();
  }
  EXPECT_EQ(lit, run);
  EXPECT_EQ(
      nlohmann::json::parse(lit),
      nlohmann::json::parse(
          R"({"type":"text","text":"line\nbreak","q\"uote":"line\nbreak","n":7,"i":3,"b":false,"arr":[{"type":"text"},{}]})"));
  static_assert(JsonWriter::is_plain("content") && !JsonWriter::is_plain("a\"b") &&
                !JsonWriter::is_plain("\n"));
}

TEST(JsonWriter, EscapesEverythingJsonRequires) {
  std::string s = "q\"b\\n\n r\r t\t \x01 \x1f é 🙂";
  std::string out;
  JsonWriter::append_escaped(out, s);
  EXPECT_EQ(out, "\"q\\\"b\\\\n\\n r\\r t\\t \\u0001 \\u001f é 🙂\"");
  EXPECT_EQ(nlohmann::json::parse(out).get<std::string>(), s);
}

// The escaper skips eight bytes at a time: put every special byte at every
// offset of a word, and compare with nlohmann's escaping.
TEST(JsonWriter, EscapesAtEveryWordOffsetLikeNlohmann) {
  const std::string specials = std::string("\"\\\n\r\t\b\f\x01\x1f\x7f", 10) + "\xc3\xa9";
  for (size_t len = 0; len < 40; ++len) {
    for (size_t pos = 0; pos < len; ++pos) {
      for (char c : specials) {
        std::string s(len, 'a');
        s[pos] = c;
        if (static_cast<unsigned char>(c) >= 0x80) continue;  // lone UTF-8 byte: not valid input
        std::string out;
        JsonWriter::append_escaped(out, s);
        ASSERT_EQ(nlohmann::json::parse(out).get<std::string>(), s)
            << "len " << len << " pos " << pos;
        ASSERT_EQ(out, nlohmann::json(s).dump()) << "len " << len << " pos " << pos;
      }
    }
  }
}

// Escapes may grow the text sixfold: dense runs outgrow the writer's slack and
// take several rounds; the text already in `out` stays untouched.
TEST(JsonWriter, EscapesDenseRunsLongerThanItsSlack) {
  const std::string dense[] = {
      std::string(1000, '"'), std::string(1000, '\x01'), std::string(999, '\n') + "x", [] {
        std::string mixed;
        for (int i = 0; i < 3000; ++i)
          mixed += static_cast<char>(i % 7 == 0 ? '\\' : (i % 5 == 0 ? 2 : 'a' + i % 26));
        return mixed;
      }()};
  for (const std::string& s : dense) {
    std::string out = "prefix:";
    JsonWriter::append_escaped(out, s);
    ASSERT_EQ(out, "prefix:" + nlohmann::json(s).dump());
  }
}

// Many appends to one growing string, short and long, clean and escaped: the
// string's reallocations must never misplace bytes (GCC 12's
// resize_and_overwrite hands the callback the new capacity, not the size).
TEST(JsonWriter, AppendsToAGrowingStringKeepEveryByte) {
  std::string out, expected;
  for (int i = 0; i < 3000; ++i) {
    std::string s = "k" + std::to_string(i);
    if (i % 3 == 1) s += std::string(static_cast<size_t>(i % 70), 'x');
    if (i % 5 == 2) s += "\"q\"\n";
    JsonWriter::append_escaped(out, s);
    expected += nlohmann::json(s).dump();
    ASSERT_EQ(out.size(), expected.size()) << "after append " << i;
  }
  EXPECT_EQ(out, expected);
}

// Random strings of every escape density, long enough for the 16-byte block
// path with several escapes per block, compared with nlohmann's escaping.
TEST(JsonWriter, EscapesRandomStringsOfEveryDensityLikeNlohmann) {
  std::mt19937 rng(7);
  const std::string specials = std::string("\"\\\n\r\t\b\f\x01\x1f", 9);
  for (int round = 0; round < 3000; ++round) {
    const size_t len = rng() % 300;
    const unsigned density = rng() % 101;  // percent of special bytes
    std::string s;
    for (size_t i = 0; i < len; ++i)
      s.push_back(rng() % 100 < density ? specials[rng() % specials.size()]
                                        : static_cast<char>('a' + rng() % 26));
    std::string out = "x";
    JsonWriter::append_escaped(out, s);
    ASSERT_EQ(out, "x" + nlohmann::json(s).dump()) << "round " << round;
  }
}

// Every escaper variant this CPU can run (SSE2 always on x86-64, AVX2 when
// present), not only the one append_escaped picked: special bytes at every
// offset of two 32-byte blocks and random strings of every density and of
// lengths across all block/tail boundaries, compared with nlohmann.
TEST(JsonWriter, EveryEscaperVariantMatchesNlohmann) {
  using detail::EscapeIsa;
  // \x01 and \x1f need \u00XX (the AVX-512 path hands such blocks on);
  // \x7f and UTF-8 need no escape.
  const std::string specials[] = {"\"", "\\",   "\n",   "\r",   "\t",      "\b",
                                  "\f", "\x01", "\x1f", "\x7f", "\xc3\xa9"};
  constexpr size_t kSpecials = sizeof(specials) / sizeof(specials[0]);
  int variants = 0;
  for (EscapeIsa isa : {EscapeIsa::portable, EscapeIsa::avx2, EscapeIsa::avx512}) {
    if (!detail::escape_isa_available(isa)) continue;
    ++variants;
    SCOPED_TRACE(isa == EscapeIsa::avx512 ? "avx512"
                 : isa == EscapeIsa::avx2 ? "avx2"
                                          : "portable");
    for (size_t len = 0; len < 140; ++len)
      for (size_t pos = 0; pos <= len; ++pos) {
        const std::string s =
            std::string(pos, 'a') + specials[(len + pos) % kSpecials] + std::string(len - pos, 'b');
        std::string out = "x";
        detail::append_escaped_with(isa, out, s);
        ASSERT_EQ(out, "x" + nlohmann::json(s).dump()) << "len " << len << " pos " << pos;
      }
    std::mt19937 rng(11);
    for (int round = 0; round < 3000; ++round) {
      const size_t len = rng() % 700;
      const unsigned density = rng() % 101;  // percent of special pieces
      std::string s;
      for (size_t i = 0; i < len; ++i) {
        if (rng() % 100 < density)
          s += specials[rng() % kSpecials];
        else
          s.push_back(static_cast<char>('a' + rng() % 26));
      }
      std::string out = "x";
      detail::append_escaped_with(isa, out, s);
      ASSERT_EQ(out, "x" + nlohmann::json(s).dump()) << "round " << round;
    }
  }
  EXPECT_GE(variants, 1);
  // append_escaped itself uses the widest variant available.
  const EscapeIsa widest = detail::escape_isa_available(EscapeIsa::avx512) ? EscapeIsa::avx512
                           : detail::escape_isa_available(EscapeIsa::avx2) ? EscapeIsa::avx2
                                                                           : EscapeIsa::portable;
  EXPECT_EQ(detail::escape_isa_in_use(), widest);
}

#if defined(__x86_64__) && (defined(__GNUC__) || defined(__clang__))
// XINUSE (XGETBV with ECX=1): which register state components are not in
// their initial state. Bit 2: upper halves of ymm0-15; bit 6: upper halves of
// zmm0-15. Supported when CPUID.(EAX=0DH,ECX=1):EAX bit 2 is set.
bool xinuse_readable() {
  unsigned a, b, c, d;
  return __get_cpuid_count(0xD, 1, &a, &b, &c, &d) && (a & (1u << 2));
}
uint64_t xinuse() {
  uint32_t lo, hi;
  asm volatile("xgetbv" : "=a"(lo), "=d"(hi) : "c"(1));
  return (uint64_t{hi} << 32) | lo;
}

// The AVX2 / AVX-512 escapers must leave the upper vector state clean: GCC 12
// emits no vzeroupper on leaving target("avx…") functions, and on Intel cores
// a dirty upper state slows every later legacy-SSE instruction (the Anthropic
// stream encoder ran 7x slower; docs/benchmarks/codecs.md, session 4).
TEST(JsonWriter, WideEscapersLeaveTheUpperVectorStateClean) {
  if (!xinuse_readable()) GTEST_SKIP() << "this CPU cannot report XINUSE";
  constexpr uint64_t kDirtyUpper = (1u << 2) | (1u << 6);
  std::string text;
  for (int i = 0; i < 100; ++i)
    text += "{\"key\":\"value\"}\n";  // long, with escapes: the block paths
  int checked = 0;
  for (auto isa : {detail::EscapeIsa::avx2, detail::EscapeIsa::avx512}) {
    if (!detail::escape_isa_available(isa)) continue;
    if (xinuse() & kDirtyUpper) continue;  // already dirty before the call: nothing to learn
    std::string out;
    detail::append_escaped_with(isa, out, text);
    const uint64_t after = xinuse();  // nothing between the call and this read uses AVX
    EXPECT_EQ(after & kDirtyUpper, 0u) << "isa " << static_cast<int>(isa) << ", XINUSE " << after;
    EXPECT_EQ(out, nlohmann::json(text).dump());
    ++checked;
  }
  if (checked == 0) GTEST_SKIP() << "no wide escaper on this CPU";
}
#endif

TEST(JsonWriter, NonFiniteDoublesBecomeNull) {
  std::string out;
  JsonWriter w(out);
  w.begin_array();
  w.number(std::numeric_limits<double>::infinity());
  w.end_array();
  EXPECT_EQ(out, "[null]");
}

}  // namespace
}  // namespace toolwire
