// textprovider::make_upstream, the one provider factory of chat and serve:
// the scripted model's script, the key rule and where tool_format applies.
#include "toolwire/textprovider/upstream.h"

#include <gtest/gtest.h>

#include <cstdlib>

#include "toolwire/transport/http_client.h"

namespace toolwire::textprovider {
namespace {

constexpr const char* kUnset = "TW_UPSTREAM_TEST_SURELY_UNSET";

class Upstream : public ::testing::Test {
 protected:
  void SetUp() override { ::unsetenv(kUnset); }

  static UpstreamSpec spec(std::string profile, std::string base_url = {}) {
    UpstreamSpec s;
    s.provider.profile = std::move(profile);
    s.provider.base_url = std::move(base_url);
    return s;
  }
  Result<std::unique_ptr<provider::Provider>> make(const UpstreamSpec& s) {
    return make_upstream(s, &client_);
  }

  transport::HttpClient client_;
};

TEST_F(Upstream, ScriptedTakesTheDefaultScriptOrAFile) {
  UpstreamSpec s = spec("scripted");
  s.default_script = R"({"rules": [], "fallback": "hi"})";
  auto p = make_upstream(s, nullptr);  // no transport needed
  ASSERT_TRUE(p) << p.error().to_string();

  s.script_file = "/nonexistent/rules.json";
  auto missing = make(s);
  ASSERT_FALSE(missing);
  EXPECT_EQ(missing.error().code, ErrorCode::not_found);
  EXPECT_EQ(missing.error().message, "cannot open script '/nonexistent/rules.json'");

  UpstreamSpec none = spec("scripted");
  auto no_script = make(none);
  ASSERT_FALSE(no_script);
  EXPECT_EQ(no_script.error().message, "a scripted model needs a script file");

  s.script_file.clear();
  s.tool_format = "hermes";
  auto formatted = make(s);
  ASSERT_FALSE(formatted);
  EXPECT_EQ(formatted.error().code, ErrorCode::invalid_argument);
}

// A base URL of one's own with no key variable named needs no key; a named
// variable must be set when the profile requires a key; so must the
// profile's own variable for its official endpoint.
TEST_F(Upstream, KeyRule) {
  auto local = make(spec("anthropic", "http://127.0.0.1:9"));
  EXPECT_TRUE(local) << local.error().to_string();

  UpstreamSpec named = spec("anthropic", "http://127.0.0.1:9");
  named.provider.api_key_env = kUnset;
  auto unset = make(named);
  ASSERT_FALSE(unset);
  EXPECT_EQ(unset.error().code, ErrorCode::unauthenticated);
  EXPECT_NE(unset.error().message.find(std::string(kUnset) + " is not set"), std::string::npos)
      << unset.error().message;

  UpstreamSpec official = spec("anthropic");
  official.provider.api_key_env = kUnset;
  EXPECT_FALSE(make(official));

  ::setenv(kUnset, "k", 1);
  EXPECT_TRUE(make(named));
  EXPECT_TRUE(make(official));
  ::unsetenv(kUnset);
}

TEST_F(Upstream, ToolFormatOnlyForOpenAiChatAndCompletionProfiles) {
  UpstreamSpec chat = spec("openai_compatible", "http://127.0.0.1:9/v1");
  chat.tool_format = "hermes";
  EXPECT_TRUE(make(chat));

  UpstreamSpec anthropic = spec("anthropic", "http://127.0.0.1:9");
  anthropic.tool_format = "hermes";
  auto refused = make(anthropic);
  ASSERT_FALSE(refused);
  EXPECT_NE(refused.error().message.find("tool_format is only for OpenAI-style chat or completion"),
            std::string::npos)
      << refused.error().message;

  chat.tool_format = "hermez";
  EXPECT_FALSE(make(chat));

  UpstreamSpec completions = spec("openai_completions", "http://127.0.0.1:9/v1");
  EXPECT_FALSE(make(completions));  // needs its family
  completions.tool_format = "llama3_json";
  EXPECT_TRUE(make(completions));
}

TEST_F(Upstream, HttpProfilesNeedATransport) {
  auto p = make_upstream(spec("openai_compatible", "http://127.0.0.1:9/v1"), nullptr);
  ASSERT_FALSE(p);
  EXPECT_EQ(p.error().code, ErrorCode::internal);
}

}  // namespace
}  // namespace toolwire::textprovider
