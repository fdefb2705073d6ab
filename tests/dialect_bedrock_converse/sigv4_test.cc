// SigV4 against @smithy/signature-v4: sigv4_vectors.json holds requests the
// AWS SDK's signer signed with fixed credentials and times
// (sigv4_vectors.mjs; CTest bedrock_sigv4_vectors checks the file is still
// its output). toolwire's signer must produce the same headers.
#include <gtest/gtest.h>

#include <cstdlib>
#include <fstream>
#include <map>
#include <sstream>

#include "test_util.h"
#include "toolwire/dialects/dialect.h"
#include "toolwire/dialects/framing/sigv4.h"

namespace toolwire::dialects::bedrock_test {
namespace {

using nlohmann::json;

json vectors() {
  std::ifstream in(std::string(TOOLWIRE_SOURCE_DIR) +
                   "/tests/dialect_bedrock_converse/sigv4_vectors.json");
  std::stringstream s;
  s << in.rdbuf();
  return json::parse(s.str());
}

TEST(SigV4, MatchesTheAwsSdkSigner) {
  json all = vectors();
  ASSERT_EQ(all.size(), 3u);
  for (const auto& v : all) {
    SCOPED_TRACE(v["name"].get<std::string>());
    HeaderList headers;
    for (const auto& [k, val] : v["headers"].items()) headers.emplace_back(k, val);
    const std::string url = v["url"], body = v["body"], region = v["region"];
    const auto& c = v["credentials"];
    const std::string id = c["accessKeyId"], secret = c["secretAccessKey"];
    const std::string token = c.value("sessionToken", "");
    HeaderList out;
    ASSERT_TRUE(
        sigv4_sign({.method = "POST", .url = url, .body = body, .headers = &headers},
                   {.access_key_id = id, .secret_access_key = secret, .session_token = token},
                   {.region = region,
                    .service = "bedrock",
                    .unix_seconds = v["time"].get<int64_t>(),
                    .content_sha256 = v["applyChecksum"].get<bool>()},
                   out)
            .ok());
    json got = json::object();
    for (const auto& [k, val] : out) got[k] = val;
    EXPECT_EQ(got, v["expect"]) << got.dump(1);
  }
}

TEST(SigV4, CanonicalPathEncodesEachSegmentAgain) {
  EXPECT_EQ(sigv4_canonical_path("/model/amazon.nova-lite-v1%3A0/converse"),
            "/model/amazon.nova-lite-v1%253A0/converse");
  EXPECT_EQ(sigv4_canonical_path("/a//b/./c/../d/"), "/a/b/d/");
  EXPECT_EQ(sigv4_canonical_path("/x y"), "/x%20y");
  EXPECT_EQ(sigv4_canonical_path(""), "");
}

TEST(SigV4, TheUrlTheProviderBuildsIsTheOneSigned) {
  // url_for percent-encodes the model id once; SigV4 encodes the path again.
  const std::string url = url_for("https://bedrock-runtime.us-east-1.amazonaws.com",
                                  "/model/{model}/converse", "amazon.nova-lite-v1:0");
  EXPECT_EQ(
      url,
      "https://bedrock-runtime.us-east-1.amazonaws.com/model/amazon.nova-lite-v1%3A0/converse");
  json v = vectors()[0];
  ASSERT_EQ(v["url"], url);
}

TEST(SigV4, SecretsStayOutOfTheHeaders) {
  HeaderList out;
  ASSERT_TRUE(sigv4_sign({.method = "POST", .url = "https://h/p", .body = "{}"},
                         {.access_key_id = "AKID", .secret_access_key = "SECRETKEY"},
                         {.region = "us-east-1", .service = "bedrock", .unix_seconds = 0}, out)
                  .ok());
  for (const auto& [k, v] : out) EXPECT_EQ(v.find("SECRETKEY"), std::string::npos) << k;
  EXPECT_FALSE(sigv4_sign({.method = "POST", .url = "no-scheme"}, {}, {}, out).ok());
}

TEST(SigV4, DialectHookSignsWithTheEnvironmentsCredentials) {
  const Dialect* d = find_dialect("bedrock");
  ASSERT_TRUE(d);
  EXPECT_EQ(d->name, "bedrock_converse");
  EXPECT_EQ(d->stream_media_type, "application/vnd.amazon.eventstream");
  setenv("AWS_ACCESS_KEY_ID", "AKIDENV", 1);
  setenv("AWS_SECRET_ACCESS_KEY", "envsecret", 1);
  setenv("AWS_SESSION_TOKEN", "envtoken", 1);
  setenv("AWS_REGION", "ap-south-1", 1);
  HeaderList plain = {{"content-type", "application/json"}};
  HeaderList out;
  d->auth({.method = "POST",
           .url = "https://bedrock-runtime.ap-south-1.amazonaws.com/model/m/converse",
           .body = "{}",
           .headers = &plain},
          out);
  unsetenv("AWS_ACCESS_KEY_ID");
  unsetenv("AWS_SECRET_ACCESS_KEY");
  unsetenv("AWS_SESSION_TOKEN");
  unsetenv("AWS_REGION");
  std::map<std::string, std::string> h(out.begin(), out.end());
  ASSERT_TRUE(h.count("authorization"));
  EXPECT_TRUE(h["authorization"].starts_with("AWS4-HMAC-SHA256 Credential=AKIDENV/"));
  EXPECT_NE(h["authorization"].find("/ap-south-1/bedrock/aws4_request"), std::string::npos);
  EXPECT_NE(h["authorization"].find("SignedHeaders=content-type;host;"), std::string::npos);
  EXPECT_EQ(h["x-amz-security-token"], "envtoken");
  EXPECT_EQ(h["x-amz-date"].size(), 16u);
  // Without credentials nothing is added.
  out.clear();
  d->auth({.method = "POST", .url = "https://h/p", .body = "{}", .headers = &plain}, out);
  EXPECT_TRUE(out.empty());
}

}  // namespace
}  // namespace toolwire::dialects::bedrock_test
