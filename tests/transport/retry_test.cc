// The pure retry and redaction rules.
#include <gtest/gtest.h>

#include "toolwire/transport/redact.h"
#include "toolwire/transport/retry.h"

using namespace toolwire::transport;
using namespace std::chrono;

TEST(Retry, RetryableStatuses) {
  for (int s : {408, 409, 429, 500, 502, 503, 504, 529}) EXPECT_TRUE(is_retryable_status(s)) << s;
  for (int s : {200, 201, 400, 401, 403, 404, 413, 422}) EXPECT_FALSE(is_retryable_status(s)) << s;
}

TEST(Retry, RetryAfterSecondsMillisAndDate) {
  auto now = system_clock::from_time_t(1700000000);  // 2023-11-14T22:13:20Z
  HttpHeaders h;
  EXPECT_FALSE(retry_after(h, now).has_value());
  h.add("Retry-After", "2");
  EXPECT_EQ(retry_after(h, now), Millis(2000));
  h.add("retry-after-ms", "1500.5");  // wins over retry-after
  EXPECT_EQ(retry_after(h, now), Millis(1500));

  HttpHeaders d;
  d.add("retry-after", "Tue, 14 Nov 2023 22:13:25 GMT");
  EXPECT_EQ(retry_after(d, now), Millis(5000));
  HttpHeaders past;
  past.add("retry-after", "Tue, 14 Nov 2023 22:00:00 GMT");
  EXPECT_EQ(retry_after(past, now), Millis(0));
  HttpHeaders junk;
  junk.add("retry-after", "soon");
  EXPECT_FALSE(retry_after(junk, now).has_value());
  HttpHeaders neg;
  neg.add("retry-after", "-3");
  EXPECT_FALSE(retry_after(neg, now).has_value());
}

TEST(Retry, ShouldRetryHeader) {
  HttpHeaders h;
  EXPECT_FALSE(should_retry_header(h).has_value());
  h.add("x-should-retry", "false");
  EXPECT_EQ(should_retry_header(h), false);
  h.set("X-Should-Retry", "true");
  EXPECT_EQ(should_retry_header(h), true);
}

TEST(Retry, FullJitterStaysUnderTheGrowingCap) {
  RetryPolicy p;
  p.initial_backoff = Millis(100);
  p.max_backoff = Millis(1000);
  std::mt19937_64 rng(42);
  int64_t max_seen[6] = {};
  for (int i = 0; i < 2000; ++i) {
    for (int retry = 1; retry <= 5; ++retry) {
      Millis d = backoff_delay(p, retry, rng);
      ASSERT_GE(d.count(), 0);
      int64_t cap = std::min<int64_t>(100 << (retry - 1), 1000);
      ASSERT_LE(d.count(), cap) << "retry " << retry;
      max_seen[retry] = std::max(max_seen[retry], static_cast<int64_t>(d.count()));
    }
  }
  // Jitter spreads over the whole range, so the largest sample is near the cap.
  EXPECT_GT(max_seen[1], 90);
  EXPECT_GT(max_seen[4], 720);
  EXPECT_GT(max_seen[5], 900);  // capped at max_backoff
}

TEST(Redact, SensitiveHeaderNames) {
  for (auto n : {"Authorization", "x-api-key", "api-key", "X-Goog-Api-Key", "Proxy-Authorization",
                 "cookie", "x-auth-token"})
    EXPECT_TRUE(is_sensitive_header(n)) << n;
  for (auto n : {"content-type", "anthropic-version", "accept", "user-agent"})
    EXPECT_FALSE(is_sensitive_header(n)) << n;
}

TEST(Redact, Url) {
  EXPECT_EQ(redact_url("https://api.x.com/v1/models/g:generate?key=SECRET"),
            "https://api.x.com/v1/models/g:generate?<redacted>");
  EXPECT_EQ(redact_url("http://user:pw@h:8080/p"), "http://<redacted>@h:8080/p");
  EXPECT_EQ(redact_url("http://h/p#frag"), "http://h/p#<redacted>");
  EXPECT_EQ(redact_url("http://h/a@b"), "http://h/a@b");
}

// What a gateway's caller reads about an upstream: its name, not its address.
TEST(Redact, ScrubAddress) {
  const std::string url = "http://10.0.0.7:8000/v1/chat/completions?k=1";
  EXPECT_EQ(scrub_address("POST http://10.0.0.7:8000/v1/chat/completions?<redacted>: "
                          "upstream http://10.0.0.7:8000: response cut short",
                          url, "U"),
            "upstream U: response cut short");
  EXPECT_EQ(scrub_address("Failed to connect to 10.0.0.7 port 8000 after 0 ms", url, "U"),
            "Failed to connect to U after 0 ms");
  EXPECT_EQ(scrub_address("to 10.0.0.7:8000 and 10.0.0.7", url, "U"), "to U and U");
  EXPECT_EQ(scrub_address("[::1]:9 down", "http://[::1]:9/v1", "U"), "U down");
  EXPECT_EQ(scrub_address("nothing here", url, "U"), "nothing here");
  // A URL without a port: transports name the connection with the default one.
  EXPECT_EQ(scrub_address("upstream http://gpu.internal:80: response cut short",
                          "http://gpu.internal/v1", "U"),
            "upstream U: response cut short");
}

TEST(Redact, ScrubAndRedactedHeaders) {
  HttpHeaders h;
  h.add("Authorization", "Bearer sk-abcdef123");
  h.add("x-api-key", "key-987654");
  h.add("content-type", "application/json");
  std::string s = scrub_secrets("got sk-abcdef123 and key-987654 and application/json", h);
  EXPECT_EQ(s, "got <redacted> and <redacted> and application/json");
  HttpHeaders r = redacted_headers(h);
  EXPECT_EQ(r.get("authorization"), "<redacted>");
  EXPECT_EQ(r.get("X-API-KEY"), "<redacted>");
  EXPECT_EQ(r.get("content-type"), "application/json");
}
