#include "toolwire/dialects/framing/sse.h"

#include <gtest/gtest.h>

#include <random>

namespace toolwire::dialects {
namespace {

std::vector<SseEvent> parse_in_chunks(std::string_view bytes, const std::vector<size_t>& cuts) {
  SseParser parser;
  std::vector<SseEvent> out;
  size_t pos = 0;
  for (size_t cut : cuts) {
    EXPECT_TRUE(parser.feed(bytes.substr(pos, cut - pos), out).ok());
    pos = cut;
  }
  EXPECT_TRUE(parser.feed(bytes.substr(pos), out).ok());
  return out;
}

const std::string kStream =
    "\xEF\xBB\xBF: comment\r\n"
    "event: message_start\r\n"
    "data: {\"a\":1}\r\n"
    "\r\n"
    "data:first\n"
    "data: second\n"
    "id: 7\n"
    "retry: 100\n"
    "...\n"
    "\n"
    "event: ping\r"
    "data: {}\r"
    "\r"
    "event: no-data\n"
    "\n"
    "data: [DONE]\n\n";

const std::vector<SseEvent> kExpected = {
    {"message_start", "{\"a\":1}"},
    {"", "first\nsecond"},
    {"ping", "{}"},
    {"", "[DONE]"},
};

TEST(SseParser, ParsesWhole) { EXPECT_EQ(parse_in_chunks(kStream, {}), kExpected); }

TEST(SseParser, SameEventsAtEverySplitPoint) {
  for (size_t i = 0; i <= kStream.size(); ++i) {
    ASSERT_EQ(parse_in_chunks(kStream, {i}), kExpected) << "split at " << i;
  }
}

TEST(SseParser, SameEventsByteAtATimeAndRandomChunks) {
  std::vector<size_t> every;
  for (size_t i = 1; i < kStream.size(); ++i) every.push_back(i);
  EXPECT_EQ(parse_in_chunks(kStream, every), kExpected);
  std::mt19937 rng(42);
  for (int round = 0; round < 200; ++round) {
    std::vector<size_t> cuts;
    for (size_t i = 1; i < kStream.size(); ++i)
      if (rng() % 5 == 0) cuts.push_back(i);
    ASSERT_EQ(parse_in_chunks(kStream, cuts), kExpected) << "round " << round;
  }
}

// The last event ID survives events without `id` and is taken at dispatch;
// `retry` only when it is all digits (MCP resumes a cut stream with both).
TEST(SseParser, KeepsLastEventIdAndRetry) {
  SseParser p;
  std::vector<SseEvent> out;
  EXPECT_EQ(p.retry_ms(), -1);
  ASSERT_TRUE(p.feed("id: a-1\nretry: 250\ndata: \n\n", out).ok());
  EXPECT_EQ(p.last_event_id(), "a-1");
  EXPECT_EQ(p.retry_ms(), 250);
  ASSERT_TRUE(p.feed("data: x\n\nretry: 1x\nid: a-2\ndata: y", out).ok());
  EXPECT_EQ(p.last_event_id(), "a-1");  // a-2 is not dispatched yet
  EXPECT_EQ(p.retry_ms(), 250);
  ASSERT_TRUE(p.feed("\n\n", out).ok());
  EXPECT_EQ(p.last_event_id(), "a-2");
  ASSERT_TRUE(p.feed("id\n\n", out).ok());  // an empty id resets it
  EXPECT_EQ(p.last_event_id(), "");
  EXPECT_EQ(out.size(), 3u);
}

TEST(SseParser, ReportsPartialEventAtTruncation) {
  SseParser parser;
  std::vector<SseEvent> out;
  ASSERT_TRUE(parser.feed("data: {\"x\"", out).ok());
  EXPECT_TRUE(parser.has_partial_event());
  ASSERT_TRUE(parser.feed(":1}\n\n", out).ok());
  EXPECT_FALSE(parser.has_partial_event());
  EXPECT_EQ(out.size(), 1u);
}

TEST(SseParser, RefusesOversizedEvent) {
  SseParser parser(64);
  std::vector<SseEvent> out;
  auto st = parser.feed("data: " + std::string(100, 'x'), out);
  ASSERT_FALSE(st.ok());
  EXPECT_EQ(st.error().code, ErrorCode::resource_exhausted);
}

}  // namespace
}  // namespace toolwire::dialects
