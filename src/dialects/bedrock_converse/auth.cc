// The dialect's auth hook: SigV4 (toolwire/dialects/framing/sigv4.h) with the standard
// AWS environment variables. The signing itself is a pure function; this
// file only gathers its inputs (credentials, region, the clock).
#include <cstdlib>
#include <ctime>

#include "dialects/bedrock_converse/wire.h"
#include "toolwire/dialects/framing/sigv4.h"

namespace toolwire::dialects::bedrock_converse {
namespace {

std::string_view env(const char* name) {
  const char* v = std::getenv(name);
  return v ? std::string_view(v) : std::string_view();
}

// "bedrock-runtime.eu-west-1.amazonaws.com" → "eu-west-1"; "" otherwise.
std::string_view region_of_host(std::string_view url) {
  constexpr std::string_view kPrefix = "bedrock-runtime.";
  const size_t at = url.find(kPrefix);
  if (at == std::string_view::npos) return {};
  std::string_view rest = url.substr(at + kPrefix.size());
  if (rest.starts_with("fips.")) rest.remove_prefix(5);
  const size_t dot = rest.find('.');
  return dot == std::string_view::npos ? std::string_view() : rest.substr(0, dot);
}

}  // namespace

void sigv4_auth(const AuthRequest& request, HeaderList& out) {
  // The profile's key (api_key_env, AWS_SECRET_ACCESS_KEY by default) is the
  // secret access key; the rest comes from the environment.
  const std::string_view secret = request.key.empty() ? env("AWS_SECRET_ACCESS_KEY") : request.key;
  const std::string_view id = env("AWS_ACCESS_KEY_ID");
  if (secret.empty() || id.empty()) return;  // unsigned: the upstream answers 403
  std::string_view region = env("AWS_REGION");
  if (region.empty()) region = env("AWS_DEFAULT_REGION");
  if (region.empty()) region = region_of_host(request.url);
  if (region.empty()) region = "us-east-1";
  const AwsCredentials credentials{
      .access_key_id = id, .secret_access_key = secret, .session_token = env("AWS_SESSION_TOKEN")};
  const SigV4Scope scope{.region = region,
                         .service = kSigningService,
                         .unix_seconds = static_cast<int64_t>(std::time(nullptr))};
  // A URL the provider built always has a scheme and a host; a failure here
  // leaves the request unsigned (and the upstream refuses it).
  (void)sigv4_sign({.method = request.method,
                    .url = request.url,
                    .body = request.body,
                    .headers = request.headers},
                   credentials, scope, out);
}

}  // namespace toolwire::dialects::bedrock_converse
