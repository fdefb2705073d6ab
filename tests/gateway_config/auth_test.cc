#include <gtest/gtest.h>

#include "toolwire/gateway/auth.h"

namespace toolwire::gateway {
namespace {

using Clock = std::chrono::steady_clock;

KeyConfig key(std::string name, std::string hash, std::vector<std::string> models = {}, int rpm = 0,
              int streams = 0) {
  KeyConfig c;
  c.name = std::move(name);
  c.sha256_hex = std::move(hash);
  c.models = std::move(models);
  c.requests_per_minute = rpm;
  c.max_concurrent_streams = streams;
  return c;
}

TEST(GatewayKeys, HashIsSha256Hex) {
  EXPECT_EQ(sha256_hex(""), "e3b0c44298fc1c149afbf4c8996fb92427ae41e4649b934ca495991b7852b855");
  EXPECT_EQ(sha256_hex("secret"),
            "2bb80d537b1da3e38bd30361aa855686bde0eacd7162fef6a25fe97bf527a25b");
}

TEST(GatewayKeys, AuthenticatesOnlyTheConfiguredKey) {
  KeyRing ring;
  ASSERT_TRUE(ring.add(key("a", "sha256:" + sha256_hex("one"))));
  ASSERT_TRUE(ring.add(key("b", sha256_hex("two"))));
  ASSERT_NE(ring.authenticate("one"), nullptr);
  EXPECT_EQ(ring.authenticate("one")->config().name, "a");
  EXPECT_EQ(ring.authenticate("two")->config().name, "b");
  EXPECT_EQ(ring.authenticate("three"), nullptr);
  EXPECT_EQ(ring.authenticate(""), nullptr);
  EXPECT_FALSE(ring.add(key("bad", "sha256:1234")));
}

TEST(GatewayKeys, ModelAllowList) {
  GatewayKey k(key("k", sha256_hex("x"), {"gpt-*", "demo"}));
  EXPECT_TRUE(k.allows_model("gpt-4o"));
  EXPECT_TRUE(k.allows_model("demo"));
  EXPECT_FALSE(k.allows_model("claude-3"));
  GatewayKey all(key("all", sha256_hex("y")));
  EXPECT_TRUE(all.allows_model("anything"));
}

TEST(GatewayKeys, TokenBucketRefillsWithTime) {
  GatewayKey k(key("k", sha256_hex("x"), {}, 2));
  auto t0 = Clock::now();
  EXPECT_FALSE(k.take_request(t0));
  EXPECT_FALSE(k.take_request(t0));
  auto wait = k.take_request(t0);
  ASSERT_TRUE(wait);
  EXPECT_EQ(*wait, 30);  // one token every 30 s
  EXPECT_TRUE(k.take_request(t0 + std::chrono::seconds(10)));
  EXPECT_FALSE(k.take_request(t0 + std::chrono::seconds(31)));  // refilled
}

TEST(GatewayKeys, StreamSlots) {
  GatewayKey k(key("k", sha256_hex("x"), {}, 0, 2));
  EXPECT_TRUE(k.open_stream());
  EXPECT_TRUE(k.open_stream());
  EXPECT_FALSE(k.open_stream());
  k.close_stream();
  EXPECT_TRUE(k.open_stream());
}

}  // namespace
}  // namespace toolwire::gateway
