// redis::parse_url: the one form it takes, and a clear error for the rest.
#include <gtest/gtest.h>

#include "toolwire/redis/url.h"

namespace toolwire::redis {
namespace {

TEST(RedisUrl, Accepted) {
  auto u = parse_url("redis://127.0.0.1:6390/3");
  ASSERT_TRUE(u) << u.error().message;
  EXPECT_EQ(u->host, "127.0.0.1");
  EXPECT_EQ(u->port, 6390);
  EXPECT_EQ(u->db, 3);
  u = parse_url("redis://cache.internal");
  ASSERT_TRUE(u);
  EXPECT_EQ(u->port, 6379);
  EXPECT_EQ(u->db, 0);
  u = parse_url("redis://[::1]:7000/");
  ASSERT_TRUE(u);
  EXPECT_EQ(u->host, "::1");
  EXPECT_EQ(u->port, 7000);
  EXPECT_EQ(u->to_string(), "redis://[::1]:7000/0");
}

TEST(RedisUrl, RefusedWithReason) {
  struct Case {
    const char* url;
    const char* why;
  };
  const Case cases[] = {
      {"", "must start with redis://"},
      {"http://h:1", "must start with redis://"},
      {"rediss://h:1", "TLS"},
      {"redis://", "empty host"},
      {"redis://:6379", "empty host"},
      {"redis://h:", "empty port"},
      {"redis://h:0", "port must be"},
      {"redis://h:65536", "port must be"},
      {"redis://h:12ab", "port must be"},
      {"redis://h:-1", "port must be"},
      {"redis://h:99999999999999999999", "port must be"},
      {"redis://h:1/x", "database must be"},
      {"redis://h:1/-1", "database must be"},
      {"redis://h:1/1/2", "database must be"},
      {"redis://h:1?db=2", "no query"},
      {"redis://h:1#x", "no query"},
      {"redis://h h:1", "bad character"},
      {"redis://[::1:1", "closing ]"},
      {"redis://[]:1", "empty host"},
      {"redis://[::1]x", "expected :PORT"},
      {"redis://h\n:1", "bad character"},
      {"redis://[6M12v120__%]", "brackets are for IPv6"},  // found by fuzz_shared_state
  };
  for (const auto& c : cases) {
    auto u = parse_url(c.url);
    ASSERT_FALSE(u) << c.url;
    EXPECT_EQ(u.error().code, ErrorCode::invalid_argument);
    EXPECT_NE(u.error().message.find(c.why), std::string::npos)
        << c.url << ": " << u.error().message;
  }
}

// A password in the URL is refused, and the error does not repeat it.
TEST(RedisUrl, CredentialsRefusedNotEchoed) {
  auto u = parse_url("redis://user:s3cret-pass@h:6379/0");
  ASSERT_FALSE(u);
  EXPECT_NE(u.error().message.find("credentials"), std::string::npos);
  EXPECT_EQ(u.error().message.find("s3cret"), std::string::npos);
}

}  // namespace
}  // namespace toolwire::redis
