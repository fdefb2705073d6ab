// `redis:` in the YAML and `--redis` on the command line: accepted forms,
// and a clear error (file:line:column and key, or a usage error) for the rest.
#include <gtest/gtest.h>

#include "subprocess.h"
#include "toolwire/gateway/config.h"

namespace toolwire::gateway {
namespace {

constexpr const char* kBase =
    "upstreams: {s: {profile: scripted}}\nroutes: [{model: '*', upstreams: [s]}]\n";

TEST(RedisConfig, Section) {
  auto c = load_config_string(
      std::string(kBase) +
      "redis:\n  url: redis://10.0.0.5:6380/2\n  prefix: 'gw1:'\n"
      "  timeout_ms: 100\n  limits_on_failure: closed\n"
      "  stream_lease_ms: 5000\n  conductor_lease_ms: 2000\n  response_ttl_s: 60\n"
      "  max_response_kb: 16\n");
  ASSERT_TRUE(c) << c.error().message;
  const SharedStateOptions& o = c->options.shared;
  EXPECT_EQ(o.redis_url, "redis://10.0.0.5:6380/2");
  EXPECT_EQ(o.prefix, "gw1:");
  EXPECT_EQ(o.timeout.count(), 100);
  EXPECT_FALSE(o.limits_fail_open);
  EXPECT_EQ(o.stream_lease.count(), 5000);
  EXPECT_EQ(o.conductor_lease.count(), 2000);
  EXPECT_EQ(o.response_ttl.count(), 60);
  EXPECT_EQ(o.max_response_bytes, 16u * 1024);
  // Without the section: in process.
  auto plain = load_config_string(kBase);
  ASSERT_TRUE(plain);
  EXPECT_TRUE(plain->options.shared.redis_url.empty());
  EXPECT_TRUE(plain->options.shared.limits_fail_open);
}

TEST(RedisConfig, BadSection) {
  struct Case {
    const char* yaml;
    const char* error;
  };
  const Case cases[] = {
      {"redis:\n  prefix: x\n", "redis: url is required"},
      {"redis:\n  url: http://h:1\n", "redis.url: redis URL: it must start with redis://"},
      {"redis:\n  url: redis://u:pw@h:1\n", "credentials in the URL are not supported"},
      {"redis:\n  url: redis://h:1\n  limits_on_failure: maybe\n", "expected open or closed"},
      {"redis:\n  url: redis://h:1\n  timeout_ms: 0\n", "redis.timeout_ms: must be between"},
      {"redis:\n  url: redis://h:1\n  colour: red\n", "redis.colour: unknown key"},
      {"redis: redis://h:1\n", "redis: expected a mapping"},
  };
  for (const auto& c : cases) {
    auto r = load_config_string(std::string(kBase) + c.yaml, "gw.yaml");
    ASSERT_FALSE(r) << c.yaml;
    EXPECT_NE(r.error().message.find(c.error), std::string::npos) << r.error().message;
    EXPECT_EQ(r.error().message.find("pw"), std::string::npos) << r.error().message;
    EXPECT_EQ(r.error().message.rfind("gw.yaml:", 0), 0u) << r.error().message;
  }
}

// A bad --redis is a usage error (exit 2) that names the flag.
TEST(RedisConfig, BadFlag) {
  testing::Subprocess serve(
      {TOOLWIRE_BINARY, "serve", "--listen", "127.0.0.1:0", "--redis", "redis://h:99999"});
  ASSERT_TRUE(serve.started());
  EXPECT_EQ(serve.wait(std::chrono::seconds(15)), 2);
  EXPECT_NE(serve.err().find("--redis: redis URL: the port must be"), std::string::npos)
      << serve.err();
}

}  // namespace
}  // namespace toolwire::gateway
