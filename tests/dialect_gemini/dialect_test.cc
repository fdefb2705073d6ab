// The gemini entry of the dialect list and its built-in profile: URL
// templates with the model in the path, the API key header with no prefix.
#include <gtest/gtest.h>

#include "toolwire/dialects/dialect.h"
#include "toolwire/provider/profile.h"

namespace toolwire::dialects {
namespace {

TEST(GeminiDialect, EntryAndUrls) {
  const Dialect* d = find_dialect("gemini");
  ASSERT_TRUE(d);
  ASSERT_TRUE(d->has_codec());
  EXPECT_EQ(d->codec().name(), "gemini");
  EXPECT_TRUE(d->borrowed);
  EXPECT_EQ(dialect_of(d->codec()), d);
  EXPECT_EQ(
      url_for("https://generativelanguage.googleapis.com/", d->path, "gemini-2.5-flash"),
      "https://generativelanguage.googleapis.com/v1beta/models/gemini-2.5-flash:generateContent");
  EXPECT_EQ(
      url_for("https://generativelanguage.googleapis.com", d->stream_path, "gemini-2.5-flash"),
      "https://generativelanguage.googleapis.com/v1beta/models/"
      "gemini-2.5-flash:streamGenerateContent?alt=sse");
  EXPECT_EQ(d->stream_error_code("RESOURCE_EXHAUSTED"), ErrorCode::resource_exhausted);
  EXPECT_TRUE(d->export_tool);
  // Gemini's name rule is not the generic one: its codec checks names.
  EXPECT_EQ(d->max_tool_name_length, 0u);
  EXPECT_NE(dialect_names([](const Dialect& x) { return x.has_codec(); }).find("gemini"),
            std::string::npos);
}

TEST(GeminiDialect, ProfileAuthenticatesWithTheGoogleKeyHeader) {
  auto p = provider::builtin_profile("gemini");
  ASSERT_TRUE(p) << p.error().to_string();
  EXPECT_EQ(p->dialect, "gemini");
  EXPECT_EQ(p->base_url, "https://generativelanguage.googleapis.com");
  EXPECT_EQ(p->path, "");  // the dialect's templates
  EXPECT_EQ(p->auth_header, "x-goog-api-key");
  EXPECT_EQ(p->auth_prefix, "");
  EXPECT_EQ(p->api_key_env, "GEMINI_API_KEY");
  const Dialect* d = find_dialect(p->dialect);
  ASSERT_TRUE(d);
  HeaderList headers;
  AuthRequest req;
  req.header = p->auth_header;
  req.prefix = p->auth_prefix;
  req.key = "test-key";
  d->auth(req, headers);
  ASSERT_EQ(headers.size(), 1u);
  EXPECT_EQ(headers[0].first, "x-goog-api-key");
  EXPECT_EQ(headers[0].second, "test-key");
}

}  // namespace
}  // namespace toolwire::dialects
