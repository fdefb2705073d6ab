// The event-stream framing (toolwire/dialects/framing/eventstream.h): CRC-32, every
// header value type, round trips, corruption, truncation, cuts at every byte
// offset, and lengths past the limits.
#include <gtest/gtest.h>

#include <random>

#include "test_util.h"
#include "toolwire/dialects/framing/eventstream.h"

namespace toolwire::dialects::bedrock_test {
namespace {

TEST(EventStreamCrc, KnownCheckValues) {
  EXPECT_EQ(crc32("123456789"), 0xCBF43926u);  // CRC-32/ISO-HDLC's check value
  EXPECT_EQ(crc32(""), 0u);
  EXPECT_EQ(crc32("The quick brown fox jumps over the lazy dog"), 0x414FA339u);
  // Long inputs take the carry-less-multiply path where the CPU has one:
  // values from Python's zlib.crc32 over bytes (i * 131 + 7) % 251.
  std::string data;
  for (int i = 0; i < 5000; ++i) data.push_back(static_cast<char>((i * 131 + 7) % 251));
  const std::pair<size_t, uint32_t> zlib[] = {
      {64, 0x80c752d4},   {65, 0x17381361},   {79, 0x84dd3a49},  {80, 0xdc5dba85},
      {100, 0x88e7030e},  {127, 0x5cf38385},  {128, 0xdee80736}, {129, 0xecb27051},
      {191, 0x9fe3caab},  {192, 0xc1f19411},  {255, 0xac580b34}, {256, 0x901c2fea},
      {1000, 0x77e57f86}, {4097, 0xe6766ae4}, {5000, 0x88db4206}};
  for (const auto& [n, want] : zlib)
    EXPECT_EQ(crc32(std::string_view(data).substr(0, n)), want) << n;
  EXPECT_EQ(crc32(std::string(1u << 20, 'q')), 0x1168210fu);
  // Every length and offset agrees with the byte-at-a-time definition.
  auto slow = [](std::string_view s) {
    uint32_t c = 0xFFFFFFFFu;
    for (unsigned char b : s) {
      c ^= b;
      for (int k = 0; k < 8; ++k) c = (c & 1) ? 0xEDB88320u ^ (c >> 1) : c >> 1;
    }
    return ~c;
  };
  for (size_t off = 0; off < 17; ++off)
    for (size_t n = 0; n < 400; ++n)
      ASSERT_EQ(crc32(std::string_view(data).substr(off, n)),
                slow(std::string_view(data).substr(off, n)))
          << off << " " << n;
  // Continuation: one call or two give the same CRC, at any split.
  const std::string s = "a longer input that crosses several eight-byte blocks, twice over";
  for (size_t i = 0; i <= s.size(); ++i)
    EXPECT_EQ(crc32(std::string_view(s).substr(i), crc32(std::string_view(s).substr(0, i))),
              crc32(s));
}

std::string every_header_type_message() {
  const char uuid[16] = {1, 2, 3, 4, 5, 6, 7, 8, 9, 10, 11, 12, 13, 14, 15, 16};
  const EventStreamHeaderView headers[] = {
      {"t", HeaderType::bool_true, 1},
      {"f", HeaderType::bool_false, 0},
      {"byte", HeaderType::byte, -5},
      {"short", HeaderType::short_, -30000},
      {"int", HeaderType::integer, 2000000000},
      {"long", HeaderType::long_, -9000000000000LL},
      {"bin", HeaderType::bytes, 0, std::string_view("\0\xff\x01", 3)},
      {":event-type", "contentBlockDelta"},
      {"ts", HeaderType::timestamp, 1767225600123LL},
      {"id", HeaderType::uuid, 0, std::string_view(uuid, 16)},
  };
  std::string out;
  append_event_stream_message(out, headers, R"({"payload":true})");
  return out;
}

TEST(EventStreamFraming, EveryHeaderTypeRoundTrips) {
  const std::string bytes = every_header_type_message();
  EventStreamParser parser;
  std::vector<EventStreamMessage> out;
  ASSERT_TRUE(parser.feed(bytes, out).ok());
  ASSERT_EQ(out.size(), 1u);
  const auto& h = out[0].headers;
  ASSERT_EQ(h.size(), 10u);
  EXPECT_EQ(h[0].type, HeaderType::bool_true);
  EXPECT_EQ(h[0].number, 1);
  EXPECT_EQ(h[1].number, 0);
  EXPECT_EQ(h[2].number, -5);
  EXPECT_EQ(h[3].number, -30000);
  EXPECT_EQ(h[4].number, 2000000000);
  EXPECT_EQ(h[5].number, -9000000000000LL);
  EXPECT_EQ(h[6].text, std::string("\0\xff\x01", 3));
  EXPECT_EQ(out[0].header(":event-type"), "contentBlockDelta");
  EXPECT_EQ(h[8].type, HeaderType::timestamp);
  EXPECT_EQ(h[8].number, 1767225600123LL);
  EXPECT_EQ(h[9].text.size(), 16u);
  EXPECT_EQ(out[0].payload, R"({"payload":true})");
  // Prelude as documented: total length, headers length, then their CRC.
  auto be32 = [&](size_t at) {
    return (uint32_t{static_cast<unsigned char>(bytes[at])} << 24) |
           (uint32_t{static_cast<unsigned char>(bytes[at + 1])} << 16) |
           (uint32_t{static_cast<unsigned char>(bytes[at + 2])} << 8) |
           uint32_t{static_cast<unsigned char>(bytes[at + 3])};
  };
  EXPECT_EQ(be32(0), bytes.size());
  EXPECT_EQ(be32(8), crc32(std::string_view(bytes).substr(0, 8)));
  EXPECT_EQ(be32(bytes.size() - 4), crc32(std::string_view(bytes).substr(0, bytes.size() - 4)));
}

TEST(EventStreamFraming, SmithyFramedFixtureParses) {
  // Framed by @smithy/eventstream-codec (tests/dialect_bedrock_converse/stream_fixture.mjs).
  std::string bytes = read_fixture("bedrock-converse-stream-tool-use.eventstream");
  EventStreamParser parser;
  std::vector<EventStreamMessage> out;
  ASSERT_TRUE(parser.feed(bytes, out).ok());
  ASSERT_EQ(out.size(), 11u);
  EXPECT_EQ(out[0].header(":event-type"), "messageStart");
  EXPECT_EQ(out[10].header(":event-type"), "metadata");
  // And our writer frames the same messages byte for byte.
  std::string again;
  for (const auto& m : out) {
    std::vector<EventStreamHeaderView> hv;
    for (const auto& h : m.headers) hv.push_back({h.name, h.type, h.number, h.text});
    append_event_stream_message(again, hv, m.payload);
  }
  EXPECT_EQ(again, bytes);
}

std::string three_messages() {
  std::string bytes;
  append_event_stream_message(bytes, {{":event-type", "a"}}, "first");
  append_event_stream_message(bytes, {}, "");  // the smallest message: 16 bytes
  append_event_stream_message(bytes, {{":event-type", "c"}, {"x", "y"}}, std::string(300, 'z'));
  return bytes;
}

TEST(EventStreamFraming, SameMessagesAtEveryCutAndInAnyChunking) {
  const std::string bytes = three_messages();
  EventStreamParser whole;
  std::vector<EventStreamMessage> expected;
  ASSERT_TRUE(whole.feed(bytes, expected).ok());
  ASSERT_EQ(expected.size(), 3u);
  EXPECT_EQ(expected[1].payload, "");
  for (size_t i = 0; i <= bytes.size(); ++i) {
    for (size_t j = i; j <= bytes.size(); j += 37) {
      EventStreamParser p;
      std::vector<EventStreamMessage> out;
      ASSERT_TRUE(p.feed(std::string_view(bytes).substr(0, i), out).ok());
      ASSERT_TRUE(p.feed(std::string_view(bytes).substr(i, j - i), out).ok());
      ASSERT_TRUE(p.feed(std::string_view(bytes).substr(j), out).ok());
      ASSERT_EQ(out, expected) << "cuts " << i << ", " << j;
      EXPECT_FALSE(p.has_partial_message());
    }
  }
  EventStreamParser bytewise;
  std::vector<EventStreamMessage> out;
  for (char c : bytes) ASSERT_TRUE(bytewise.feed(std::string_view(&c, 1), out).ok());
  EXPECT_EQ(out, expected);
}

TEST(EventStreamFraming, TruncatedMessageIsPendingNotDelivered) {
  const std::string bytes = three_messages();
  // Where each message ends.
  std::vector<size_t> ends;
  {
    std::string one;
    append_event_stream_message(one, {{":event-type", "a"}}, "first");
    ends.push_back(one.size());
    ends.push_back(ends.back() + 16);
    ends.push_back(bytes.size());
  }
  for (size_t cut = 0; cut <= bytes.size(); ++cut) {
    EventStreamParser p;
    std::vector<EventStreamMessage> out;
    ASSERT_TRUE(p.feed(std::string_view(bytes).substr(0, cut), out).ok());
    size_t complete = 0;
    while (complete < ends.size() && ends[complete] <= cut) ++complete;
    EXPECT_EQ(out.size(), complete) << "cut " << cut;
    const bool at_boundary = cut == 0 || (complete > 0 && ends[complete - 1] == cut);
    EXPECT_EQ(p.has_partial_message(), !at_boundary) << "cut " << cut;
  }
}

TEST(EventStreamFraming, AnyFlippedBitIsCaught) {
  const std::string bytes = every_header_type_message();
  for (size_t i = 0; i < bytes.size(); ++i) {
    std::string bad = bytes;
    bad[i] ^= 0x04;
    EventStreamParser p;
    std::vector<EventStreamMessage> out;
    Status st = p.feed(bad, out);
    // A flipped length may also just leave the message incomplete.
    EXPECT_TRUE(!st.ok() || (out.empty() && p.has_partial_message())) << "byte " << i;
    EXPECT_TRUE(out.empty()) << "byte " << i;
    if (!st.ok()) {
      // An error is final.
      EXPECT_FALSE(p.feed(bytes, out).ok());
    }
  }
}

std::string prelude(uint32_t total, uint32_t headers) {
  std::string p(8, '\0');
  for (int i = 0; i < 4; ++i) {
    p[i] = static_cast<char>(total >> (24 - 8 * i));
    p[4 + i] = static_cast<char>(headers >> (24 - 8 * i));
  }
  const uint32_t crc = crc32(p);
  for (int i = 0; i < 4; ++i) p.push_back(static_cast<char>(crc >> (24 - 8 * i)));
  return p;
}

TEST(EventStreamFraming, LengthsOutOfRangeAreRefusedBeforeBuffering) {
  struct Case {
    uint32_t total, headers;
    const char* words;
  };
  const Case cases[] = {
      {0xFFFFFFFFu, 0, "exceeds the limit"},
      {(16u << 20) + 1, 0, "exceeds the limit"},
      {15, 0, "below the minimum"},
      {100, 200, "does not fit"},
      {1u << 20, 200u << 10, "headers length"},
  };
  for (const auto& c : cases) {
    EventStreamParser p;
    std::vector<EventStreamMessage> out;
    Status st = p.feed(prelude(c.total, c.headers), out);
    ASSERT_FALSE(st.ok()) << c.total;
    EXPECT_NE(st.error().message.find(c.words), std::string::npos) << st.error().message;
  }
  // A smaller configured limit holds too.
  EventStreamParser small(EventStreamLimits{.max_message_bytes = 64, .max_headers_bytes = 32});
  std::vector<EventStreamMessage> out;
  std::string big;
  append_event_stream_message(big, {}, std::string(100, 'x'));
  EXPECT_FALSE(small.feed(big, out).ok());
}

TEST(EventStreamFraming, MalformedHeadersAreErrors) {
  // Hand-built headers blocks inside a valid frame: each must fail cleanly.
  const std::string blocks[] = {
      std::string("\x00", 1),  // empty name
      std::string("\x05"
                  "ab",
                  3),  // name past the block
      std::string("\x01"
                  "a\x0a",
                  3),  // unknown type 10
      std::string("\x01"
                  "a\x07\x00\x09"
                  "abc",
                  7),  // string past the block
      std::string("\x01"
                  "a\x04\x00\x00",
                  5),  // int32 past the block
      std::string("\x01"
                  "a\x09"
                  "0123456789",
                  13),  // uuid past the block
  };
  for (const auto& h : blocks) {
    std::string msg =
        prelude(static_cast<uint32_t>(16 + h.size()), static_cast<uint32_t>(h.size()));
    msg += h;
    const uint32_t crc = crc32(msg);
    for (int i = 0; i < 4; ++i) msg.push_back(static_cast<char>(crc >> (24 - 8 * i)));
    EventStreamParser p;
    std::vector<EventStreamMessage> out;
    Status st = p.feed(msg, out);
    EXPECT_FALSE(st.ok()) << ::testing::PrintToString(h);
  }
}

TEST(EventStreamFraming, RandomBytesNeverCrash) {
  std::mt19937 rng(99);
  for (int round = 0; round < 2000; ++round) {
    std::string junk(rng() % 64, '\0');
    for (char& c : junk) c = static_cast<char>(rng());
    if (round % 3 == 0) junk = three_messages().substr(0, rng() % 200) + junk;
    EventStreamParser p;
    std::vector<EventStreamMessage> out;
    (void)p.feed(junk, out);
  }
}

}  // namespace
}  // namespace toolwire::dialects::bedrock_test
