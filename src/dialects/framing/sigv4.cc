// AWS Signature Version 4 (toolwire/dialects/framing/sigv4.h), with OpenSSL's SHA-256
// and HMAC.
#include "toolwire/dialects/framing/sigv4.h"

#include <openssl/evp.h>
#include <openssl/hmac.h>
#include <openssl/sha.h>

#include <algorithm>
#include <ctime>
#include <map>
#include <vector>

namespace toolwire::dialects {
namespace {

constexpr char kHex[] = "0123456789abcdef";

std::string hex(const unsigned char* p, size_t n) {
  std::string out(n * 2, '0');
  for (size_t i = 0; i < n; ++i) {
    out[2 * i] = kHex[p[i] >> 4];
    out[2 * i + 1] = kHex[p[i] & 15];
  }
  return out;
}

std::string hmac(std::string_view key, std::string_view data) {
  unsigned char out[EVP_MAX_MD_SIZE];
  unsigned int len = 0;
  HMAC(EVP_sha256(), key.data(), static_cast<int>(key.size()),
       reinterpret_cast<const unsigned char*>(data.data()), data.size(), out, &len);
  return std::string(reinterpret_cast<char*>(out), len);
}

bool unreserved(unsigned char c) {
  return (c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z') || (c >= '0' && c <= '9') || c == '-' ||
         c == '.' || c == '_' || c == '~';
}

// RFC 3986 encoding of every byte but the unreserved ones (upper-case hex,
// as AWS compares it).
void escape(std::string& out, std::string_view s) {
  constexpr char kUpper[] = "0123456789ABCDEF";
  for (unsigned char c : s) {
    if (unreserved(c)) {
      out.push_back(static_cast<char>(c));
    } else {
      out.push_back('%');
      out.push_back(kUpper[c >> 4]);
      out.push_back(kUpper[c & 15]);
    }
  }
}

int hex_value(char c) {
  if (c >= '0' && c <= '9') return c - '0';
  if (c >= 'a' && c <= 'f') return c - 'a' + 10;
  if (c >= 'A' && c <= 'F') return c - 'A' + 10;
  return -1;
}

std::string unescape(std::string_view s) {
  std::string out;
  for (size_t i = 0; i < s.size(); ++i) {
    if (s[i] == '%' && i + 2 < s.size()) {
      const int hi = hex_value(s[i + 1]), lo = hex_value(s[i + 2]);
      if (hi >= 0 && lo >= 0) {
        out.push_back(static_cast<char>(hi * 16 + lo));
        i += 2;
        continue;
      }
    }
    out.push_back(s[i] == '+' ? ' ' : s[i]);
  }
  return out;
}

std::string canonical_query(std::string_view query) {
  std::vector<std::pair<std::string, std::string>> pairs;
  while (!query.empty()) {
    const size_t amp = query.find('&');
    std::string_view item = query.substr(0, amp);
    query = amp == std::string_view::npos ? std::string_view() : query.substr(amp + 1);
    if (item.empty()) continue;
    const size_t eq = item.find('=');
    std::string k, v;
    escape(k, unescape(item.substr(0, eq)));
    if (eq != std::string_view::npos) escape(v, unescape(item.substr(eq + 1)));
    pairs.emplace_back(std::move(k), std::move(v));
  }
  std::sort(pairs.begin(), pairs.end());
  std::string out;
  for (const auto& [k, v] : pairs) {
    if (!out.empty()) out.push_back('&');
    out.append(k).append("=").append(v);
  }
  return out;
}

// Headers a proxy may add or rewrite: never signed (@smithy's list).
bool unsignable(std::string_view name) {
  static constexpr std::string_view kNames[] = {
      "authorization",     "cache-control", "connection",     "expect", "from",    "keep-alive",
      "max-forwards",      "pragma",        "referer",        "te",     "trailer", "upgrade",
      "transfer-encoding", "user-agent",    "x-amzn-trace-id"};
  for (std::string_view n : kNames)
    if (n == name) return true;
  return name.starts_with("proxy-") || name.starts_with("sec-");
}

std::string lower(std::string_view s) {
  std::string out(s);
  for (char& c : out)
    if (c >= 'A' && c <= 'Z') c = static_cast<char>(c - 'A' + 'a');
  return out;
}

// CR/LF to spaces, runs of spaces and tabs to one space, ends trimmed.
std::string canonical_value(std::string_view v) {
  std::string out;
  bool space = false;
  for (char c : v) {
    if (c == '\r' || c == '\n' || c == ' ' || c == '\t') {
      space = true;
      continue;
    }
    if (space && !out.empty()) out.push_back(' ');
    space = false;
    out.push_back(c);
  }
  return out;
}

}  // namespace

std::string sha256_hex(std::string_view data) {
  unsigned char digest[SHA256_DIGEST_LENGTH];
  SHA256(reinterpret_cast<const unsigned char*>(data.data()), data.size(), digest);
  return hex(digest, sizeof digest);
}

std::string sigv4_canonical_path(std::string_view raw_path) {
  std::vector<std::string_view> segments;
  std::string_view rest = raw_path;
  while (!rest.empty()) {
    const size_t slash = rest.find('/');
    std::string_view seg = rest.substr(0, slash);
    rest = slash == std::string_view::npos ? std::string_view() : rest.substr(slash + 1);
    if (seg.empty() || seg == ".") continue;
    if (seg == "..") {
      if (!segments.empty()) segments.pop_back();
      continue;
    }
    segments.push_back(seg);
  }
  std::string out;
  if (raw_path.starts_with("/")) out.push_back('/');
  for (size_t i = 0; i < segments.size(); ++i) {
    if (i) out.push_back('/');
    escape(out, segments[i]);  // the second encoding: '%' becomes "%25"
  }
  if (!segments.empty() && raw_path.ends_with("/")) out.push_back('/');
  return out;
}

Status sigv4_sign(const SigV4Request& request, const AwsCredentials& credentials,
                  const SigV4Scope& scope, HeaderList& out) {
  // The URL's parts: scheme://[userinfo@]authority/path?query#fragment.
  std::string_view url = request.url;
  const size_t scheme_end = url.find("://");
  if (scheme_end == std::string_view::npos)
    return make_error(ErrorCode::invalid_argument, "SigV4: the URL has no scheme");
  std::string_view rest = url.substr(scheme_end + 3);
  if (const size_t hash = rest.find('#'); hash != std::string_view::npos)
    rest = rest.substr(0, hash);
  const size_t path_at = rest.find_first_of("/?");
  std::string_view authority = rest.substr(0, path_at);
  if (const size_t at = authority.rfind('@'); at != std::string_view::npos)
    authority.remove_prefix(at + 1);
  if (authority.empty())
    return make_error(ErrorCode::invalid_argument, "SigV4: the URL has no host");
  std::string_view path_query =
      path_at == std::string_view::npos ? std::string_view() : rest.substr(path_at);
  const size_t q = path_query.find('?');
  std::string_view path = path_query.substr(0, q);
  std::string_view query =
      q == std::string_view::npos ? std::string_view() : path_query.substr(q + 1);
  if (path.empty()) path = "/";

  char date[17];  // 20250101T000000Z
  const std::time_t t = static_cast<std::time_t>(scope.unix_seconds);
  std::tm tm{};
  gmtime_r(&t, &tm);
  std::strftime(date, sizeof date, "%Y%m%dT%H%M%SZ", &tm);
  const std::string_view amz_date(date, 16);
  const std::string_view short_date = amz_date.substr(0, 8);
  const std::string payload_hash = sha256_hex(request.body);

  // Lower-cased name → canonical value; repeated names join with ','.
  std::map<std::string, std::string> headers;
  if (request.headers)
    for (const auto& [k, v] : *request.headers) {
      std::string name = lower(k);
      if (unsignable(name) || name == "host" || name == "x-amz-date" ||
          name == "x-amz-security-token" || name == "x-amz-content-sha256")
        continue;
      auto [it, fresh] = headers.try_emplace(std::move(name), canonical_value(v));
      if (!fresh) it->second.append(",").append(canonical_value(v));
    }
  headers["host"] = lower(authority);
  headers["x-amz-date"] = std::string(amz_date);
  if (!credentials.session_token.empty())
    headers["x-amz-security-token"] = canonical_value(credentials.session_token);
  if (scope.content_sha256) headers["x-amz-content-sha256"] = payload_hash;

  std::string signed_headers, canonical;
  canonical.append(request.method).append("\n");
  canonical.append(sigv4_canonical_path(path)).append("\n");
  canonical.append(canonical_query(query)).append("\n");
  for (const auto& [k, v] : headers) {
    canonical.append(k).append(":").append(v).append("\n");
    if (!signed_headers.empty()) signed_headers.push_back(';');
    signed_headers.append(k);
  }
  canonical.append("\n").append(signed_headers).append("\n").append(payload_hash);

  std::string credential_scope;
  credential_scope.append(short_date).append("/").append(scope.region).append("/");
  credential_scope.append(scope.service).append("/aws4_request");
  std::string to_sign = "AWS4-HMAC-SHA256\n";
  to_sign.append(amz_date).append("\n").append(credential_scope).append("\n");
  to_sign.append(sha256_hex(canonical));

  std::string key = "AWS4";
  key.append(credentials.secret_access_key);
  std::string k = hmac(key, short_date);
  std::fill(key.begin(), key.end(), '\0');  // no copy of the secret left behind
  k = hmac(k, scope.region);
  k = hmac(k, scope.service);
  k = hmac(k, "aws4_request");
  const std::string sig = hmac(k, to_sign);

  out.emplace_back("x-amz-date", std::string(amz_date));
  if (scope.content_sha256) out.emplace_back("x-amz-content-sha256", payload_hash);
  if (!credentials.session_token.empty())
    out.emplace_back("x-amz-security-token", std::string(credentials.session_token));
  std::string auth = "AWS4-HMAC-SHA256 Credential=";
  auth.append(credentials.access_key_id).append("/").append(credential_scope);
  auth.append(", SignedHeaders=").append(signed_headers);
  auth.append(", Signature=")
      .append(hex(reinterpret_cast<const unsigned char*>(sig.data()), sig.size()));
  out.emplace_back("authorization", std::move(auth));
  return Status::Ok();
}

}  // namespace toolwire::dialects
